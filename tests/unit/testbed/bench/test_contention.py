"""testbed.bench.contention: the tree whose routes it predicts is the one the ranks build,
from the figures run_bcast gives them, where t_hold sits at a split edge of the tree."""

from __future__ import annotations

from types import SimpleNamespace

from collectives.call import BcastCall
from collectives.trees.run import schedule_for
from testbed.bench.contention import placed_sends
from testbed.measure.bcast import ranked_call
from testbed.measure.bcast_model import algorithm_params
from testbed.measure.rank_placement import node_params, predicted_copies
from topologies import parse_spec

SIZE = 65536
# a fresh-clone CI at 076e271 (tests/integration/test_network_aware_trees.py): 64 KiB on 10
# Mbit/s, t_hold per send of 3 back-to-back sends a little above t_end, of 5 a little below
END = 0.05568
HOLDS = [0.0360, 0.0467, 0.0558, 0.0557, 0.0556]
PARAMS = {"sizes": [SIZE], "t_hold_s": [HOLDS[-1]], "t_hold_sends_s": [HOLDS],
          "t_end_s": [END]}
MESH = parse_spec("mesh:rows=2,cols=3,bw=10")
NODES = [0, 2, 3, 5, 4, 1]  # the integration test's: range(6) shuffled by Random(3)


def ranks_sends(algorithm: str) -> tuple[list[tuple[int, int]], float]:
    """The sends (node to node) of the tree the ranks build, as they build it: the call
    run_bcast sends them (ranked_call), read back from its JSON line, to schedule_for."""
    names = [f"h{n}" for n in NODES]
    ranked, _ = ranked_call(SimpleNamespace(topo=MESH), BcastCall(algorithm, SIZE), names,
                            PARAMS)
    kwargs = BcastCall.from_json(ranked.to_json()).kwargs()
    built = schedule_for(kwargs.pop("algorithm"), len(NODES), 0, SIZE, **kwargs)
    return (sorted((NODES[a], NODES[b]) for a, b, *_ in built.transfers()),
            ranked.options["t_hold"])


def test_the_predicted_tree_is_the_ranks_where_t_hold_meets_t_end():
    for algorithm in ("opt-mesh", "opt-tree"):
        sends, t_hold = placed_sends(MESH, algorithm, NODES, SIZE, PARAMS)
        built, used = ranks_sends(algorithm)
        assert sorted((s.sender, s.receiver) for s in sends) == built, algorithm
        assert t_hold == used == HOLDS[2]  # the count OPT-Tree's tree settles at
    # at 3 sends' t_hold (>= t_end) OPT-Mesh's root sends twice; at the 5 sends' it sends
    # three times: the tree the CI predicted while the ranks built the other
    sends, _ = placed_sends(MESH, "opt-mesh", NODES, SIZE, PARAMS)
    assert predicted_copies(MESH, sends)["h0>s1"] == 2
    placement = node_params(MESH, "opt-mesh", [f"h{n}" for n in NODES])
    at_most = schedule_for("opt-mesh", len(NODES), 0, SIZE,
                           **algorithm_params("opt-mesh", SIZE, PARAMS), **placement)
    assert sum(1 for a, *_ in at_most.transfers() if a == 0) == 3
