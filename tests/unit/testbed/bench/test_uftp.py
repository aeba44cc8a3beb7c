"""testbed.bench.uftp: the table in multiples of M/B, the nack / uftp ratio only from unflagged
points, failures named."""

from testbed.bench.uftp import markdown


def point(who, size, loss, ms, flags=(), frames=800.0, complete=(15, 15, 15)):
    return {"who": who, "size": size, "loss": loss, "ms": ms, "flags": list(flags),
            "frames": frames, "all_correct": True, "complete": list(complete),
            "receivers": 15}


def test_table_ratios_and_flags():
    res = {"mbit": 30.0, "link_rate": {"source": "calibration cache"},
           "points": [point("uftp", 1 << 20, 0.0, 300.0), point("nack", 1 << 20, 0.0, 310.0),
                      point("two-stage", 1 << 20, 0.0, 800.0),
                      point("uftp", 1 << 20, 0.05, 530.0),
                      point("nack", 1 << 20, 0.05, 500.0, flags=["switch starved"]),
                      {**point("two-stage", 1 << 20, 0.05, None), "error": "timed out"}]}
    text = "\n".join(markdown(res))
    lossless = next(ln for ln in text.splitlines() if ln.startswith("| 1048576 | 0% |"))
    assert "300 (1.07 x)" in lossless and lossless.endswith("| 800 / 800 | 1.03 |")
    lossy = next(ln for ln in text.splitlines() if ln.startswith("| 1048576 | 5% |"))
    assert "500! (" in lossy and lossy.endswith("| - |")  # flagged: no ratio
    assert "failed (timed out)" in lossy
    res["points"][0]["complete"] = [15, 14, 15]  # uftp dropped a receiver once: no ratio
    lossless = next(ln for ln in "\n".join(markdown(res)).splitlines()
                    if ln.startswith("| 1048576 | 0% |"))
    assert "receivers done per run 15/14/15 of 15" in lossless and lossless.endswith("| - |")
