"""Points written as their rows come, without a network: an Allgather or [multinode] spec
writes a point's record while its job still runs (before the job's call returns), and a job
that fails after it fails only the points it had not measured (the rows themselves:
tests/unit/testbed/measure/test_row_stream.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from testbed.errors import RunFailed
from testbed.experiments import allgather, multinode_run
from testbed.experiments.kinds import from_dict

from .test_allgather import result
from .test_multinode_run import ROW

AG = from_dict({"name": "ag", "collective": "allgather", "repetitions": 4,
                "network": {"topology": "star:hosts=5,bw=100"},
                "sweep": {"algorithms": ["ring"], "sizes": [1024, 65536]}})


def test_an_allgather_point_is_written_while_its_job_runs(monkeypatch) -> None:
    """The job measures 1024 and then fails: 1024's record was written before the job's
    call returned, as measured; 65536 is failed with the job's error."""
    written: list[dict[str, Any]] = []
    returned: list[int] = []

    def job(_emu: Any, _alg: str, blocks: list[int], _options: Any, each: Any) -> list[Any]:
        each(dataclasses.replace(result(samples=[0.1] * 4), block=blocks[0]))
        assert [r["config"]["size"] for r in written] == [1024]  # before the job ends
        returned.append(len(written))
        raise RunFailed("ring: allgather_bench measured 1 of 2 sizes (exit 137): killed")

    monkeypatch.setattr(allgather, "run_allgather", job)
    allgather.measure_points(None, AG, AG.points(), written.append,  # type: ignore[arg-type]
                             {"run": {}}, None, lambda _m: None)
    assert returned == [1]
    assert [(r["config"]["size"], r["status"]) for r in written] == \
        [(1024, "ok"), (65536, "failed")]
    assert "measured 1 of 2 sizes" in written[1]["error"]


MN = from_dict({"name": "mn", "repetitions": 2, "seed": 0,
                "network": {"topology": "torus:rows=2,cols=4,bw=100"},
                "multinode": {"sources": [3], "dests": 4, "factors": [0.5],
                              "sizes": [4096, 8192], "schemes": ["u-torus"]}})


def test_a_multinode_point_is_written_while_its_job_runs(monkeypatch) -> None:
    """The row of 4096 comes while the job runs: written then, with its job; 8192 had no
    row when the job ended: failed with the job's words."""
    from types import SimpleNamespace

    written: list[dict[str, Any]] = []

    def job(_emu: Any, *, each: Any, **_kw: Any) -> tuple[list[Any], Any]:
        each(ROW)
        assert [r["config"]["size"] for r in written] == [4096]  # before the job ends
        return [ROW], SimpleNamespace(stderr="rank 3: killed", stdout="", returncode=1)

    monkeypatch.setattr(multinode_run, "measured_rows", job)
    multinode_run.measure(None, MN, MN.points(), written.append,  # type: ignore[arg-type]
                          {"link_rate": None}, lambda _m: None)
    assert [(r["config"]["size"], r["status"], r["job"]) for r in written] == \
        [(4096, "ok", 1), (8192, "failed", 1)]
    assert "rank 3: killed" in written[1]["error"]


def test_a_row_printed_twice_is_written_once(monkeypatch) -> None:
    written: list[dict[str, Any]] = []

    def job(_emu: Any, *, each: Any, **_kw: Any) -> tuple[list[Any], Any]:
        each(ROW)
        each(ROW)
        return [ROW], None

    monkeypatch.setattr(multinode_run, "measured_rows", job)
    monkeypatch.setattr(multinode_run, "failure_text", lambda _res: "no row")
    multinode_run.measure(None, MN, MN.points(), written.append,  # type: ignore[arg-type]
                          {}, lambda _m: None)
    assert [r["config"]["size"] for r in written] == [4096, 8192]


def test_the_live_view_shows_the_point_a_job_measures_next(tmp_path, monkeypatch) -> None:
    """A job of an Allgather spec measures two sizes: the run tells the live view (here a
    list of what it was told) the first point when the job starts, the second once the
    first is written, and nothing once both are."""
    from testbed.experiments import run as runmod

    told: list[tuple[str, Any]] = []
    live = type("Live", (), {"point": lambda _s, config, cond: told.append(
        ("point", (config["size"], cond))), "record": lambda _s, rec: told.append(
        ("record", rec["config"]["size"]))})()
    run = runmod.opened(AG, tmp_path / "r", {"versions": {}, "link_rate": {"mbit": 100.0}},
                        lambda _m: None)
    run.live = live

    def job(_emu: Any, _alg: str, blocks: list[int], _options: Any, each: Any) -> list[Any]:
        for b in blocks:
            each(dataclasses.replace(result(samples=[0.1] * 4), block=b))
        return []

    monkeypatch.setattr(allgather, "run_allgather", job)
    allgather.measure_points(None, AG, AG.points(), run.add_record,  # type: ignore[arg-type]
                             {"run": {}}, None, lambda _m: None, started=run.job_started)
    line = "ring: 5 ranks, blocks of 1024, 65536 B"
    assert told == [("point", (1024, f"{line} (2 points of the job to write)")),
                    ("record", 1024),
                    ("point", (65536, f"{line} (1 point of the job to write)")),
                    ("record", 65536)]
    assert run.job == []
