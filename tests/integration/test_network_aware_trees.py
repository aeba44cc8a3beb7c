"""Network-aware broadcasts on emulated grids through the controller's routing (Nupairoj1998 ch. 5,
Tseng2001): the switches' port counters see OPT-Mesh's and OPT-Tree's messages on exactly the
links the topology's routes predict, with ranks placed out of order; multi-node multicast
plans (U-torus direct, partitioned with random and balanced DDNs) deliver every source's
bytes to its destinations on real ranks on a torus."""

from __future__ import annotations

import json
import random

import pytest

from collectives.call import BcastCall
from testbed.bench import contention as bc
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from testbed.errors import RunFailed
from testbed.measure.bcast_batch import Batched, run_bcasts
from testbed.measure.options import RunOptions
from testbed.measure.params import measure_params
from testbed.measure.rank_placement import predicted_copies
from topologies import parse_spec


def test_link_counters_match_the_routes_of_each_tree(caps, clean_after):
    # 10 Mbit/s as in the bench: at 100 the busy userspace switch dropped segments now and
    # then, and TCP's retransmissions added half a copy on the root's link (1 run in 4)
    topo = parse_spec("mesh:rows=2,cols=3,bw=10")
    nodes = list(range(6))
    random.Random(3).shuffle(nodes)
    with Emulation(topo, caps=caps) as emu:
        # one timed run of 128 KiB (2 messages), Ping and PingPong only (model_params times
        # 1 MiB three times: 8 s here; 256 KiB three times: 4.9 s, this 2.8 s, t_hold and
        # t_end within 0.2 % of those). t_hold is 0.8-1.0 x t_end here, and the trees' split
        # turns where it passes t_end: the routes predicted below are those of the tree built
        # from the very figures run_bcast gives the ranks (placed_sends: rank_options)
        params = measure_params(emu, [65536], repetitions=1, dummy_max=0, budget_bytes=128 << 10)
        # both trees in one MPI job, each broadcast's frames counted apart (run_bcasts)
        rows = run_bcasts(emu, [Batched(alg, BcastCall(alg, 65536), repetitions=3, frames=2)
                                for alg in ("opt-mesh", "opt-tree")],
                          RunOptions(hosts=[f"h{n}" for n in nodes], params=params, flow=False))
        for alg, row in rows.items():
            assert not isinstance(row, Exception), (alg, row)
            sends, _ = bc.placed_sends(topo, alg, nodes, 65536, params)
            routed = predicted_copies(topo, sends)
            assert row.verified
            assert bc.measured_copies(row.to_dict()) == routed, (
                alg, row.link_bytes, routed, params["t_hold_sends_s"], params["t_end_s"])
            assert len(routed) >= 2 * (len(nodes) - 1)  # every send crosses >= 2 links


def multinode(emu, *args: str) -> list[dict]:
    res = run_mpi(emu, ["-m", "collectives.programs.multinode_bench", "--torus", "2,4", *args],
                  timeout=300)
    return [json.loads(ln) for ln in res.rank_output[0].splitlines() if ln.startswith("{")]


def test_multinode_plans_deliver_on_a_torus(caps, clean_after):
    with Emulation(parse_spec("torus:rows=2,cols=4,bw=100"), caps=caps) as emu:
        rows = multinode(emu, "--sources", "3", "--dests", "4", "--factors", "0.5,1",
                         "--sizes", "0,1000,70000", "--reps", "1")
        with pytest.raises(RunFailed, match="unknown scheme 'telepathy'"):
            multinode(emu, "--schemes", "telepathy")
    assert len(rows) == 2 * 3 * 3
    assert all(r["correct"] for r in rows), rows
    assert {r["scheme"] for r in rows} == {"u-torus", "partitioned-random",
                                           "partitioned-balanced"}
