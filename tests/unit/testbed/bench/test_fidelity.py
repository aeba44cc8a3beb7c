"""testbed.bench.fidelity: the scaling table marks a flagged point, which feeds no ratio, nor
the closing line's highest clean rate."""

from __future__ import annotations

from testbed.bench.fidelity import markdown


def pt(ms: float, flagged: bool = False) -> dict:
    return {"ms": ms, "flags": ["hosts waited"] if flagged else [], "host_wait_frames": 0.5}


def test_a_flagged_point_feeds_no_ratio() -> None:
    rows = [{"mbit": 10, "nack2": pt(50.0), "nack16": pt(55.0), "mpich16": pt(110.0),
             "binomial16": pt(400.0)},
            {"mbit": 30, "nack2": pt(20.0), "nack16": pt(26.0, True), "mpich16": pt(65.0),
             "binomial16": pt(180.0)}]
    spin = {"label": "MPICH", "mode": "spin", "env": {}, "results": {}}
    res = {"idle": [spin], "forwarding": [], "envelope_before": [], "envelope_after": [],
           "scaling": rows}
    text = "\n".join(markdown(res))
    assert "| 10 | 50.0 | 55.0 | 1.10 | 110.0 | 400.0 | 0.50 | 0.50 |" in text
    assert "| 30 | 20.0 | 26.0! | - | 65.0 | 180.0 | - | 0.50 |" in text
    assert "Highest rate with none of these flagged: 10 Mbit/s" in text
