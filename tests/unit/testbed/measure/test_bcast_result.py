"""testbed.measure.bcast_result: run_bcast's typed result writes the record results
folders have always held, reads it back, and a failed or flagged point reaches the claims
as before (testbed.reproduce.networks.claim_point)."""

import json

from collectives.call import BcastCall
from testbed.bench.points import Flagged
from testbed.measure.bcast_result import BcastResult
from testbed.measure.times import Times
from testbed.reproduce.networks import claim_point

# the keys run_bcast's dict had (issue 37 made it a dataclass): old folders hold them
RECORD_KEYS = {
    "algorithm", "mpich_algorithm", "wait", "send_order", "completion", "call", "hosts",
    "size", "iterations", "t_mcast_s", "timing", "direct_across_servers", "servers",
    "verified", "predicted_s", "rank_hosts", "rank_done_s", "rank_return_s",
    "rank_done_from", "flow", "flow_vs_direct", "cpu", "datagrams", "window", "naive_s",
    "root_queue", "late", "final_phase_s", "loss", "loss_scope", "tcp", "frames",
    "link_bytes", "topology", "switch", "dyn_tree"}


def result(**over: object) -> BcastResult:
    base = dict(call=BcastCall("binomial", 4096, send_order="overlapped"),
                rank_hosts=("h0", "h1", "h2"), iterations=5,
                t_mcast=Times(0.002, 0.0018, 0.0025, 0.0017, 0.003), timing="direct",
                verified=True, predicted_s=0.0015, topology="star", switch="controller",
                window=(10.0, 11.5), servers=("localhost",), rank_done_s=(0.0, 0.001, 0.002),
                rank_return_s=(0.0005, 0.0011, 0.0021), rank_done_from="held",
                cpu={"wait_per_turn_s": 2e-5, "busy": 0.5},
                frames={"sent": 12.0, "data": 8.0, "acks": 4.0, "delivered": 9.0},
                late=("root", 5.0), final_phase_s=0.004, loss=0.01, loss_scope="all")
    return BcastResult(**(base | over))  # type: ignore[arg-type]


def test_the_record_has_the_old_keys_and_reads_back_the_same() -> None:
    r = result()
    d = json.loads(json.dumps(r.to_dict()))
    assert set(d) == RECORD_KEYS
    assert (d["algorithm"], d["size"], d["hosts"], d["send_order"]) == (
        "binomial", 4096, 3, "overlapped")
    assert d["t_mcast_s"] == {"median": 0.002, "p10": 0.0018, "p90": 0.0025, "min": 0.0017,
                              "max": 0.003}
    assert d["rank_done_s"] == [0.0, 0.001, 0.002] and d["late"] == ["root", 5.0]
    assert BcastResult.from_dict(d | {"fidelity": {"flags": []}}) == r
    assert r.median_s == 0.002 and r.wait_per_turn_s == 2e-5


def test_an_old_record_without_call_or_switch_reads_back() -> None:
    d = result().to_dict()
    del d["call"], d["switch"]
    back = BcastResult.from_dict(d)
    assert back.call == BcastCall("binomial", 4096) and back.switch == "controller"


def test_a_flagged_point_and_a_failed_one_reach_the_claims_as_points() -> None:
    flagged = Flagged(result(), {"flags": ["switch waited"]})
    assert flagged.ms == 2.0 and flagged.flags == ["switch waited"]
    p = claim_point("binomial 4096 B", flagged, 2, algorithm="binomial", hosts=3)
    assert (p["ms"], p["p10_ms"], p["p90_ms"], p["flags"], p["tries"]) == (
        2.0, 1.8, 2.5, ["switch waited"], 2)
    assert p["predicted_ms"] == 1.5 and p["frames_data"] == 8.0 and p["final_phase_ms"] == 4.0
    failed = Flagged(None, error="the MPI program printed no result")
    assert failed.ms is None and failed.flags == []
    q = claim_point("binomial 4096 B", failed, 1, algorithm="binomial", hosts=3)
    assert q["ms"] is None and q["error"].startswith("the MPI") and q["frames_sent"] is None
    assert set(q) == set(p)
