"""Results durable through faults, end to end with the installed `mcastlab` on real
Mininet, OVS, the controller and MPICH (the faults table of docs/security.md): a run killed
with SIGKILL in the middle of a condition (one MPI job measuring several points) keeps every
point written so far, and `--resume` measures only the rest, each point once, its own raw
files apart, into the report a run never interrupted gives; a results disk that fills
during a run ends it with one message and a folder that `--resume` finishes once there is
room; a controller killed mid-run ends the run at once with one message naming it, every
recorded point kept, nothing left; a rank killed mid-broadcast fails its point (the rank
named, where the others were) within the job's timeout and the run goes on."""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from testbed.emulation import run_records
from testbed.emulation.cleanup import leftovers

from .conftest import assert_clean

MCASTLAB = str(Path(sys.executable).with_name("mcastlab"))  # as a user runs it

# Six points in one condition, so one MPI job: a root injecting every 25 ms makes each
# point last about a quarter of a second (9 broadcasts), long enough to stop the run between
# two of them (the test looks for records every 20 ms; at 50 ms a point, as it was, the
# runs and resumes took 2-3 s longer)
SPEC = """
name = "durable"
repetitions = 8
warmup = 1
timeout = 30
[network]
topology = "star:hosts=3,bw=100"
[sweep]
algorithms = ["binomial", "chain"]
sizes = [1024, 16384, 65536]
interval = [0.025]
"""
POINTS = 6


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _start(spec: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([MCASTLAB, "experiment", str(spec), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextlib.contextmanager
def _started(spec: Path, out: Path) -> Iterator[subprocess.Popen[str]]:
    """A run of `spec` going on; killed if the test leaves it still running."""
    proc = _start(spec, out)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _until_records(proc: subprocess.Popen[str], root: Path, n: int) -> Path:
    """The run's records.jsonl once it holds `n` records (the run still going)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = list(root.glob("*/records.jsonl"))
        if found and len(_lines(found[0])) >= n:
            return found[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"no {n} points written in 120 s")


def _run(spec: Path, out: Path) -> Path:
    """A run of `spec` never interrupted: its folder."""
    done = subprocess.run([MCASTLAB, "experiment", str(spec), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return next(out.glob("*/records.jsonl")).parent


def _report_rows(folder: Path) -> list[dict[str, str]]:
    """summary.csv's rows without what differs from one measurement to the next (the
    figures, and the fidelity verdict of a busy machine) or names the attempt (its job):
    the points and their configuration, status and number of samples."""
    with (folder / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows, folder
    header = list(rows[0])
    kept = header[:header.index("median_ms")] + ["samples"]
    return [{k: r[k] for k in kept if k not in ("flagged", "job")} for r in rows]


def _resume(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCASTLAB, "experiment", "--resume", str(folder)],
                          capture_output=True, text=True, timeout=300)


def _raw(folder: Path, job: int) -> dict[str, dict]:
    """Job `job`'s raw records, by point."""
    return {r["key"]: r for r in map(json.loads, _lines(folder / "raw" /
                                                         f"job-{job}-group0.jsonl"))}


def _check_resumed(folder: Path, first: list[str], first_jobs: int) -> list[dict]:
    """Every point once; the first attempt's records as they were; the others measured by
    jobs numbered after the first attempt's, each record the samples of its own job's raw
    record (nothing the first attempt measured counted again)."""
    lines = _lines(folder / "records.jsonl")
    assert lines[:len(first)] == first
    recs = [json.loads(ln) for ln in lines]
    assert sorted(r["index"] for r in recs) == list(range(POINTS))
    assert all(r["status"] == "ok" for r in recs), [r["error"] for r in recs]
    for r in recs[:len(first)]:
        assert r["job"] <= first_jobs
    for r in recs[len(first):]:
        assert r["job"] > first_jobs
    for r in recs:
        assert r["samples_s"] == _raw(folder, r["job"])[r["key"]]["samples_s"]
    return recs


def test_kill_9_mid_condition_then_resume(caps, clean_after, tmp_path, no_run_plots):
    """SIGKILL after two of the condition's six points: both are in records.jsonl (written
    as each was measured, not when the condition ends). The kill leaves the network up; a
    resume before `mcastlab cleanup` says so in one line and changes nothing, after it
    measures the other four in a job of its own: attempt 1's raw files stay as they were,
    and the report lists the points of a run never interrupted, each as that run has it."""
    spec = tmp_path / "durable.toml"
    spec.write_text(SPEC)
    whole = _run(spec, tmp_path / "whole")
    proc = _start(spec, tmp_path / "res")
    try:
        records = _until_records(proc, tmp_path / "res", 2)
    finally:
        proc.kill()  # SIGKILL: no teardown, no last write
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    folder = records.parent
    first = _lines(records)
    assert 2 <= len(first) < POINTS, first  # stopped inside the condition
    raw_before = {p.name: p.read_bytes() for p in (folder / "raw").iterdir()}
    assert "points-1.json" in raw_before and "points-2.json" not in raw_before
    measured = set(_raw(folder, 1))  # what the job had sent when it was killed
    assert {json.loads(ln)["key"] for ln in first} <= measured

    left = leftovers()  # what a SIGKILL leaves: the network, its processes, its record
    assert left["bridges"] and left["processes"] and left["records"], left
    out = _resume(folder)
    assert out.returncode == 4 and "Traceback" not in out.stderr, out.stderr[-3000:]
    said = [ln for ln in out.stderr.splitlines() if ln.startswith("mcastlab: error:")]
    assert len(said) == 1 and "sudo mcastlab cleanup" in said[0], out.stderr[-3000:]
    assert _lines(records) == first
    out = subprocess.run([MCASTLAB, "cleanup"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "removed run" in out.stdout, out.stdout + out.stderr
    assert_clean(clean_after)

    out = _resume(folder)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"({len(first)} already done)" in out.stderr
    recs = _check_resumed(folder, first, first_jobs=1)
    assert {r["key"] for r in recs} >= measured  # the killed job's points: each once
    assert len({r["key"] for r in recs}) == POINTS
    for name, data in raw_before.items():
        assert (folder / "raw" / name).read_bytes() == data, name
    assert _report_rows(folder) == _report_rows(whole)
    assert len(_report_rows(folder)) == POINTS


def _fill(path: Path) -> None:
    """A ballast file that takes every free block of its file system."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        chunk = 1 << 20
        while chunk:
            try:
                os.write(fd, b"\0" * chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                chunk //= 2
    finally:
        os.close(fd)


def test_a_full_disk_ends_the_run_with_one_message_and_resume_finishes(
        caps, clean_after, tmp_path):
    """The results folder on a 16 MiB tmpfs, filled by a ballast file once the first point
    is written: the next record that needs a page of its own (records are about 2 KiB, the
    second or the third) no longer fits, and the run ends with exit code 7 and one message
    naming the folder to resume, no traceback, the network torn down, every record whole.
    With the ballast gone, `--resume` measures the rest."""
    spec = tmp_path / "durable.toml"
    spec.write_text(SPEC)
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs", str(disk)],
                   check=True)
    try:
        with _started(spec, disk / "res") as proc:
            records = _until_records(proc, disk / "res", 1)
            _fill(disk / "ballast")
            _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 7, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
        said = [ln for ln in err.splitlines() if "error" in ln.lower()]
        folder = records.parent
        assert len(said) == 1 and said[0].startswith(
            f"mcastlab: error: no space left on the device of {folder}/"), err[-3000:]
        assert said[0].endswith(f"make room, then finish with: mcastlab experiment --resume "
                                f"{folder}"), said[0]
        assert_clean(clean_after)
        first = _lines(records)
        assert 1 <= len(first) < POINTS
        assert all(json.loads(ln)["status"] == "ok" for ln in first)  # whole lines only
        assert records.read_bytes().endswith(b"\n")

        (disk / "ballast").unlink()
        out = _resume(folder)
        assert out.returncode == 0, out.stderr[-3000:]
        _check_resumed(folder, first, first_jobs=1)
        assert (folder / "report.html").exists()
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            subprocess.run(["umount", str(disk)], check=True)
        assert not os.path.ismount(disk), "the tmpfs is still mounted"


def _whole_records(records: Path) -> list[dict]:
    """Every line of records.jsonl a whole record, each point once."""
    data = records.read_bytes()
    assert data.endswith(b"\n"), data[-200:]
    recs = [json.loads(ln) for ln in data.decode().splitlines()]
    assert len({r["key"] for r in recs}) == len(recs), [r["key"] for r in recs]
    return recs


def test_a_controller_killed_mid_run_ends_it_with_one_message(caps, clean_after, tmp_path,
                                                              no_run_plots):
    """SIGKILL to the controller process after the first point: the running job ends at
    its next poll (`Emulation.check_alive`), the run exits with code 4 and one message
    naming the controller, its pid and the signal, the points kept and the --resume
    command; every record written before the kill is still there, whole, config.json says
    interrupted, and nothing of the network is left."""
    spec = tmp_path / "durable.toml"
    spec.write_text(SPEC)
    with _started(spec, tmp_path / "res") as proc:
        records = _until_records(proc, tmp_path / "res", 1)
        rec = run_records.active_run()
        assert rec is not None and rec.controller_pid, rec
        before = _lines(records)
        os.kill(rec.controller_pid, signal.SIGKILL)
        _out, err = proc.communicate(timeout=60)
    folder = records.parent
    assert proc.returncode == 4 and "Traceback" not in err, err[-3000:]
    said = [ln for ln in err.splitlines() if "error" in ln.lower()]
    assert len(said) == 1, err[-3000:]
    assert said[0].startswith(f"mcastlab: error: the controller (pid {rec.controller_pid}) "
                              "died during the run, killed by signal 9 (SIGKILL)"), said[0]
    after = _whole_records(records)
    assert _lines(records)[:len(before)] == before  # no recorded point lost
    assert len(before) <= len(after) < POINTS  # the run stopped there
    assert all(r["status"] == "ok" for r in after), [r["error"] for r in after]
    assert said[0].endswith(f"{len(after)} of {POINTS} points measured and kept, the network "
                            f"torn down; finish with: mcastlab experiment --resume {folder}")
    config = json.loads((folder / "config.json").read_text())
    assert config["interrupted"] and not config["finished"]


def _rank_pid(rank: int, proc: subprocess.Popen[str]) -> int:
    """The pid of rank `rank`'s Python in the running sweep_bench job (hydra gives each rank
    its number in PMI_RANK), once it runs."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                env = (entry / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"collectives.programs.sweep_bench" in argv and b"mpi4py" in argv and \
                    f"PMI_RANK={rank}".encode() in env and \
                    os.path.basename(argv[0]).startswith(b"python"):
                return int(entry.name)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"no rank {rank} running in 60 s")


def test_a_rank_killed_mid_broadcast_fails_its_point_and_the_run_goes_on(
        caps, clean_after, tmp_path, no_run_plots):
    """SIGKILL to rank 1 (h1) after the first point: within the spec's timeout its job ends
    and the point it was in is recorded as failed, naming the rank, its host and the signal
    (it has no stack of its own to give: where the others were follows); the other points
    are measured by a job of their own, every point is there once, the run exits 0 and
    nothing is left."""
    spec = tmp_path / "durable.toml"
    spec.write_text(SPEC)
    with _started(spec, tmp_path / "res") as proc:
        records = _until_records(proc, tmp_path / "res", 1)
        victim = _rank_pid(1, proc)
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        deadline = killed_at + 30  # the spec's timeout
        while '"status": "failed"' not in records.read_text():  # (a line being written too)
            assert time.monotonic() < deadline, "no failed point within the timeout"
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    recs = _whole_records(records)
    assert sorted(r["index"] for r in recs) == list(range(POINTS))
    failed = [r for r in recs if r["status"] != "ok"]
    assert len(failed) == 1, [r["error"] for r in recs]
    error = failed[0]["error"]
    assert "on 3 ranks: rank 1 (h1) was killed by signal 9 (SIGKILL):\n" in error, error
    assert "where the other ranks were" in error, error
    assert {r["job"] for r in recs if r["status"] == "ok" and r["index"] > failed[0]["index"]} \
        == {failed[0]["job"] + 1}
