"""The broadcast executor on real MPI ranks in emulated hosts: every algorithm (and MPICH's
MPI_Bcast) delivers random payloads of 0 B to 1 MiB correctly from every root, on the whole
world and on subset communicators."""

from __future__ import annotations

from collectives.algorithms import names
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .verify_runs import verify_runs

ALGOS = names("mpi", "tree", "dynamic")  # multicast: test_mcast_collectives
P2P = ",".join(ALGOS)


def test_every_algorithm_every_root_sizes_and_subsets(caps, clean_after):
    with Emulation(parse_spec("star:hosts=5,bw=1000"), caps=caps) as emu:
        # both checks in one MPI job (verify_runs). The big one: 16 fragments of 64 KiB, a
        # long message for MPICH (above its 512 KiB); 4 MiB took 4 s more and went the same
        # ways
        got, big = verify_runs(emu, [
            ["--sizes", "0,1,1000,65539", "--subsets", "--algorithms", P2P],
            ["--sizes", str(1 << 20), "--roots", "0,3", "--fragment", "65536",
             "--algorithms", P2P]], timeout=480)
    by_comm = {r["comm"]: r for r in got}
    world = by_comm["world"]
    n = len(ALGOS)
    assert len(world.pop("seconds")) == n * 4 * 5  # each broadcast's time, slowest rank's
    assert world == {"comm": "world", "size": 5, "broadcasts": n * 4 * 5, "all_correct": True}
    assert by_comm["parity0"]["size"] == 3 and by_comm["parity0"]["all_correct"]
    assert by_comm["parity1"]["size"] == 2 and by_comm["parity1"]["all_correct"]
    (whole,) = big
    assert all(s > 0 for s in whole.pop("seconds"))
    assert whole == {"comm": "world", "size": 5, "broadcasts": n * 2, "all_correct": True}
