"""testbed.measure.barrier.BarrierResult: run_barriers' typed row writes the record
results folders have always held."""

from testbed.measure.barrier import BarrierResult
from testbed.measure.times import Times

# the keys run_barriers' dicts had (issue 37 made each row a dataclass)
RECORD_KEYS = {"algorithm", "options", "label", "release", "hosts", "rank_hosts", "topology",
               "wait", "iterations", "t_barrier_s", "released_early", "p2p_releases",
               "frame_iters", "frames", "fidelity", "flags", "counted_flags", "family"}


def test_a_row_and_its_record() -> None:
    summary = {"n": 5, "median": 0.001, "min": 0.0008, "max": 0.002, "p10": 0.0009,
               "p90": 0.0015, "mean": 0.0011}
    row = BarrierResult(algorithm="mcast", options={"release": "multicast"},
                        rank_hosts=("h0", "h1"), topology="star", wait="block", iterations=5,
                        t_barrier=Times.of(summary), released_early=0, p2p_releases=1,
                        family="multicast", release="multicast", frame_iters=40,
                        frames={"data": 2.0},
                        fidelity={"timed": {"flags": ["cpu busy"]}, "counted": None})
    d = row.to_dict()
    assert set(d) == RECORD_KEYS
    assert d["t_barrier_s"] == summary  # the whole summary, n and mean too
    assert (d["label"], d["hosts"], d["flags"], d["counted_flags"]) == (
        "mcast, release multicast", 2, ["cpu busy"], None)
    unmeasured = BarrierResult(algorithm="pairwise", options={}, rank_hosts=("h0", "h1"),
                               topology="star", wait="block", iterations=5, t_barrier=None,
                               released_early=0, p2p_releases=0, family="point-to-point",
                               fidelity={"timed": {"flags": []},
                                         "counted": {"flags": ["switch waited"]}})
    assert unmeasured.to_dict()["t_barrier_s"] is None
    assert unmeasured.counted_flags == ["switch waited"] and unmeasured.flags == []
