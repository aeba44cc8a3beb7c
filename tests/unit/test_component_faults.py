"""A run's components failing under it, without a network: a controller process that dies is
named once it has (how it ended, its log's last line) and ends the MPI job being watched; a
rank killed by a signal is told apart from one that raised; `mcastlab experiment` stops on a
dead controller as on a full disk: every point written kept, config.json marked
interrupted, no report, one message with the `--resume` command. End to end:
tests/integration/test_durable.py."""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from testbed.cli import experiments as cli
from testbed.emulation import mpi
from testbed.emulation.controller_proc import ControllerProcess
from testbed.errors import ComponentDied, ended_text, signal_text
from testbed.experiments.run import opened

from .testbed.experiments.test_run import VERSIONS, spec_of


def test_how_a_process_ended_is_said_in_words() -> None:
    assert ended_text(-9) == "killed by signal 9 (SIGKILL)"
    assert ended_text(3) == "exit code 3" and ended_text(0) == "exit code 0"
    assert signal_text(15) == "killed by signal 15 (SIGTERM)"
    assert signal_text(77) == "killed by signal 77"  # none Python names


def test_a_dead_controller_is_named_with_how_it_ended(tmp_path: Path) -> None:
    """A live process passes; once it is killed (SIGKILL, as the integration test does to
    the real one) check_alive raises ComponentDied naming the pid, the signal and the last
    line of its log; one that exits with an error says its code."""
    log = tmp_path / "controller.log"
    log.write_text("switch s1 connected\nprogramming s1\n")
    ctl = ControllerProcess(tmp_path / "topology.json", log)
    ctl.check_alive()  # never launched: nothing to watch
    with subprocess.Popen(["sleep", "30"]) as proc:
        ctl.proc = proc  # type: ignore[assignment]  # a process of bytes, as launch() makes
        ctl.check_alive()
        proc.kill()
        proc.wait()
        with pytest.raises(ComponentDied) as died:
            ctl.check_alive()
    said = str(died.value)
    assert said == (f"the controller (pid {proc.pid}) died during the run, killed by signal "
                    "9 (SIGKILL) (its log's last line: programming s1)"), said
    with subprocess.Popen(["sh", "-c", "exit 3"]) as proc:
        ctl.proc = proc  # type: ignore[assignment]
        proc.wait()
        log.write_text("")
        with pytest.raises(ComponentDied, match=r"died during the run, exit code 3$"):
            ctl.check_alive()
    assert ComponentDied.exit_code == 4
    assert not issubclass(ComponentDied, mpi.RunFailed)  # a failed point goes on; this ends


def test_the_watch_of_a_job_ends_when_the_controller_dies(tmp_path: Path) -> None:
    """`alive` is asked at every poll: what it raises ends the wait at once (run_mpi then
    kills the job in its finally), not at the job's timeout."""
    calls: list[float] = []

    def alive() -> None:
        calls.append(time.monotonic())
        if len(calls) == 3:
            raise ComponentDied("the controller (pid 1) died during the run")

    with subprocess.Popen(["sleep", "30"]) as proc:
        try:
            t0 = time.monotonic()
            with pytest.raises(ComponentDied):
                mpi._watch(proc, tmp_path, 20, alive=alive)
            assert len(calls) == 3 and time.monotonic() - t0 < 5
            assert proc.poll() is None  # run_mpi's finally kills it, not the watch
        finally:
            proc.kill()


def test_a_rank_killed_first_is_the_cause_not_what_the_others_raised(tmp_path: Path) -> None:
    """(rank, 137) with no traceback anywhere yet: killed first (its stackless death is
    named, with the others' stacks). A traceback already printed, a SIGABRT (the stack
    request's own signal), an exit code of a program, a timeout, a stall or a job done:
    not."""
    (tmp_path / "rank-0.err").write_text("waiting\n")
    (tmp_path / "rank-1.err").write_text(f"{mpi.EXIT_SAID}137\n")
    assert mpi._killed_first((1, 128 + signal.SIGKILL), tmp_path, 2)
    assert mpi._killed_first((1, 128 + signal.SIGSEGV), tmp_path, 2)
    for failed in [(1, 128 + signal.SIGABRT), (1, 1), (1, 128), None, mpi.STALLED,
                   mpi.RANKS_DONE, ()]:
        assert not mpi._killed_first(failed, tmp_path, 2), failed
    (tmp_path / "rank-0.err").write_text("Traceback (most recent call last):\n")
    assert not mpi._killed_first((1, 137), tmp_path, 2)


def test_of_ranks_failed_in_one_poll_the_first_is_the_jobs_failure(tmp_path: Path) -> None:
    """Rank 1 killed, then rank 0 taken down with it, both said before the watch looked:
    the failure is rank 1's, whose exit was said first."""
    import os

    for rank, at in ((0, 2_000_000_000), (1, 1_000_000_000), (2, 3_000_000_000)):
        err = tmp_path / f"rank-{rank}.err"
        err.write_text(f"{mpi.EXIT_SAID}137\n" if rank < 2 else "running\n")
        os.utime(err, ns=(at, at))
    with subprocess.Popen(["sleep", "30"]) as proc:
        try:
            assert mpi._watch(proc, tmp_path, 10, np=3) == (1, 137)
        finally:
            proc.kill()


def _args(spec: str, out: Path) -> argparse.Namespace:
    return argparse.Namespace(list=None, spec=spec, resume=None, out=str(out), reprobe=False)


def test_a_dead_controller_stops_the_experiment_like_a_full_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point written before the controller died stays; config.json says interrupted
    (not finished), no report is written, and the one message says how many points are
    kept and the command that finishes the run."""
    spec = spec_of()
    run = opened(spec, tmp_path, {"versions": VERSIONS}, lambda _m: None)
    points = spec.points()

    def measure(r: Any, _bar: Any, reprobe: bool = False) -> None:
        r.add_record({"key": points[0].key, "index": 0})
        raise ComponentDied("the controller (pid 7) died during the run, killed by signal 9 "
                            "(SIGKILL)")

    monkeypatch.setattr(cli, "prepare", lambda *_a, **_k: run)
    monkeypatch.setattr(cli, "execute_at_operating_point", measure)
    with pytest.raises(ComponentDied) as died:
        cli.run_spec(_args("spec.toml", tmp_path), lambda _m: None)
    assert str(died.value) == (
        "the controller (pid 7) died during the run, killed by signal 9 (SIGKILL); 1 of "
        f"{len(points)} points measured and kept, the network torn down; finish with: "
        f"mcastlab experiment --resume {tmp_path}")
    config = json.loads((tmp_path / "config.json").read_text())
    assert config.get("interrupted") and not config.get("finished")
    assert [json.loads(ln)["key"] for ln in
            (tmp_path / "records.jsonl").read_text().splitlines()] == [points[0].key]
    assert not (tmp_path / "summary.txt").exists()
