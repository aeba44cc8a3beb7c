"""32 hosts on one machine (issue 52): a star of 32 comes up, 32 ranks start, one broadcast
of each family (a point-to-point tree, MPICH's MPI_Bcast, the IP-multicast nack with its
tree of acknowledgements, the default, and two-stage) delivers every byte to every rank, and
the teardown leaves nothing (clean_after). About 15 s here (2026-12-07)."""

from __future__ import annotations

from testbed.emulation.network import Emulation
from topologies import parse_spec

from .verify_runs import verify_runs

FAMILIES = "binomial,mpich,nack,two-stage"


def test_thirty_two_hosts_start_and_every_family_delivers(caps, clean_after):
    with Emulation(parse_spec("star:hosts=32,bw=100"), caps=caps) as emu:
        assert len(emu.topo.hosts) == 32 and emu.timings["ready_s"] > 0
        (got,) = verify_runs(emu, [["--sizes", "65536", "--roots", "0",
                                    "--algorithms", FAMILIES]], timeout=240)
    (world,) = got
    assert world["comm"] == "world" and world["size"] == 32
    assert world["broadcasts"] == 4 and world["all_correct"] is True
    assert all(s > 0 for s in world["seconds"])
    # the multicast ones sent datagrams that reached the 31 receivers: 45 fragments of 64 KiB
    # each, 31 times over, for nack and two-stage, each held by a datagram (`delivered`) or
    # made good by parity or the root's point-to-point repair (`repaired`: one datagram of
    # the 2790 was, in a CI run of 32 ranks on 2 cores), and nearly all by the datagrams
    fragments, got = 2 * 45 * 31, world["datagrams"]
    assert got["delivered"] + got["repaired"] >= fragments, got
    assert got["delivered"] >= 0.9 * fragments, got
