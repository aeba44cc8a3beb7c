"""The broadcast executor on real MPI ranks in emulated hosts: every algorithm (and MPICH's
MPI_Bcast) delivers random payloads of 0 B to 1 MiB correctly from every root, on the whole
world and on subset communicators."""

from __future__ import annotations

import json

from collectives.algorithms import names
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

ALGOS = names("mpi", "tree", "dynamic")  # multicast: test_mcast_collectives
P2P = ",".join(ALGOS)


def records(res) -> list[dict]:
    return [json.loads(ln) for out in res.rank_output.values() for ln in out.splitlines()
            if ln.startswith("{")]


def test_every_algorithm_every_root_sizes_and_subsets(caps, clean_after):
    with Emulation(parse_spec("star:hosts=5,bw=1000"), caps=caps) as emu:
        small = run_mpi(emu, ["-m", "collectives.programs.verify", "--sizes", "0,1,1000,65539",
                              "--subsets", "--algorithms", P2P], timeout=240)
        # 16 fragments of 64 KiB, a long message for MPICH (above its 512 KiB); 4 MiB took
        # 4 s more and went the same ways
        big = run_mpi(emu, ["-m", "collectives.programs.verify", "--sizes", str(1 << 20),
                            "--roots", "0,3", "--fragment", "65536", "--algorithms", P2P],
                      timeout=240)
    got = records(small)
    assert not [r for r in got if "error" in r], got
    by_comm = {r["comm"]: r for r in got}
    world = by_comm["world"]
    n = len(ALGOS)
    assert len(world.pop("seconds")) == n * 4 * 5  # each broadcast's time, slowest rank's
    assert world == {"comm": "world", "size": 5, "broadcasts": n * 4 * 5, "all_correct": True}
    assert by_comm["parity0"]["size"] == 3 and by_comm["parity0"]["all_correct"]
    assert by_comm["parity1"]["size"] == 2 and by_comm["parity1"]["all_correct"]
    (whole,) = records(big)
    assert all(s > 0 for s in whole.pop("seconds"))
    assert whole == {"comm": "world", "size": 5, "broadcasts": n * 2, "all_correct": True}
