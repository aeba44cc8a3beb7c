"""testbed.bench.osu: the report puts sizes side by side, marks a flagged row and keeps it out
of the ratio, and gives each run's OSU text verbatim with its command."""

from __future__ import annotations

from testbed.bench import osu


def _row(size: int, avg: float, flags: list[str] | None = None) -> dict:
    return {"size": size, "avg_us": avg, "fidelity": {"flags": flags or []}}


def _run(algo: str, rows: list[dict]) -> dict:
    return {"hosts": 16, "osu_version": "7.4", "algorithm": algo,
            "lines": ["", "# OSU MPI Broadcast Latency Test v7.4", f"# {algo}"], "rows": rows}


def test_the_table_puts_the_runs_side_by_side_and_flagged_rows_feed_no_ratio():
    res = {"mbit": 30.0, "link_rate": {"source": "calibration cache"}, "runs": {
        "mpich": _run("mpich", [_row(1, 1000.0), _row(1048576, 1_000_000.0)]),
        "nack": _run("nack", [_row(1, 2000.0, ["hosts waited"]), _row(1048576, 300_000.0)]),
        "mpich-spin": _run("mpich", [_row(1, 700.0), _row(1048576, 900_000.0)])}}
    md = "\n".join(osu.markdown(res))
    assert "| Size | MPI_Bcast | nack | MPI_Bcast, spinning | nack / MPI_Bcast | M/B (us) |" in md
    assert "| 1 | 1000.00 | 2000.00! | 700.00 | - | 0.3 |" in md
    assert "| 1048576 | 1000000.00 | 300000.00 | 900000.00 | 0.30 | 279620.3 |" in md
    assert "`mcastlab osu bcast --algo mpich --wait spin -f --topo star:hosts=16`" in md
    assert "# nack" in md and "- 1 B: hosts waited" in md
