"""testbed.emulation.run_records: run records on disk and processes found by their environment mark.

STATE_DIR is redirected to a temporary folder; the processes are real children of this test,
marked under names of this test process's (processes.py: no real run's cleanup sees them).
"""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from testbed.emulation import run_records
from testbed.emulation.run_records import RunRecord
from testbed.errors import McastlabError

from .processes import JOB_MARK, RUN_MARK, dead_pid, environment, sleeper, spawn

pytestmark = pytest.mark.usefixtures("marks")


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state"
    monkeypatch.setattr(run_records, "STATE_DIR", path)
    return path


def _record(run_id: str, pid: int, **extra: object) -> RunRecord:
    return RunRecord(id=run_id, pid=pid, started=time.time(), run_dir=f"/tmp/{run_id}", **extra)


# ---- records ----------------------------------------------------------------------------
def test_save_and_records_round_trip(state_dir: Path) -> None:
    rec = _record("20250101-000000-1", 1, topology="mesh-2x2", bridges=["s1", "s2"],
                  interfaces=["s1-eth1", "s2-eth1"], controller_pid=42, ofp_port=6653,
                  api_socket="/run/mcastlab/x/api.sock")
    rec.save()
    assert rec.path == state_dir / "20250101-000000-1.json"
    assert json.loads(rec.path.read_text())["bridges"] == ["s1", "s2"]
    assert list(state_dir.iterdir()) == [rec.path]  # no temporary file left behind
    assert run_records.records() == [rec]
    rec.remove()
    assert run_records.records() == []
    rec.remove()  # removing twice is harmless


def test_records_are_sorted_and_saving_again_overwrites() -> None:
    second, first = _record("b-run", 2), _record("a-run", 3)
    second.save()
    first.save()
    second.controller_pid = 99
    second.save()
    assert [r.id for r in run_records.records()] == ["a-run", "b-run"]
    assert run_records.records()[1].controller_pid == 99


def test_a_record_of_an_older_version_is_kept(state_dir: Path) -> None:
    """A field no longer kept (api_port, before the API moved to a Unix socket) is
    ignored: the record still names what its cleanup removes."""
    state_dir.mkdir(mode=0o700)
    (state_dir / "old.json").write_text('{"id": "old", "pid": 1, "started": 0, "run_dir": "",'
                                        ' "bridges": ["s1"], "api_port": 8080}')
    (old,) = run_records.records()
    assert old.id == "old" and old.bridges == ["s1"] and old.api_socket is None


def test_records_without_a_state_dir_is_empty(state_dir: Path) -> None:
    assert not state_dir.exists()
    assert run_records.records() == []


@pytest.mark.parametrize("content", ['{"id": "x", "pid"', '{"id": "x"}', '["not a record"]'])
def test_unreadable_records_are_dropped(state_dir: Path, content: str) -> None:
    good = _record("good", 1)
    good.save()
    broken = state_dir / "broken.json"
    broken.write_text(content)
    assert run_records.records() == [good]
    assert not broken.exists()


# ---- one run at a time ------------------------------------------------------------------
def test_active_run_ignores_dead_pids_and_this_process(
        children: list[subprocess.Popen]) -> None:
    _record("dead", dead_pid()).save()
    _record("me", os.getpid()).save()
    assert run_records.active_run() is None
    live = sleeper(children)
    _record("live", live.pid).save()
    active = run_records.active_run()
    assert active is not None and (active.id, active.pid) == ("live", live.pid)
    assert active.alive()


def test_new_run_registers_this_process(state_dir: Path) -> None:
    rec = run_records.new_run("/tmp/results", "star-8")
    assert rec.pid == os.getpid()
    assert rec.id.endswith(f"-{os.getpid()}")
    assert (rec.run_dir, rec.topology) == ("/tmp/results", "star-8")
    assert run_records.records() == [rec]
    assert rec.path.parent == state_dir
    assert run_records.active_run() is None  # this process's own run does not count


def test_new_run_refuses_while_another_run_is_alive(
        children: list[subprocess.Popen]) -> None:
    other = sleeper(children)
    _record("other-run", other.pid).save()
    with pytest.raises(McastlabError) as err:
        run_records.new_run("/tmp/results", "star-8")
    assert "other-run" in str(err.value) and str(other.pid) in str(err.value)
    assert [r.id for r in run_records.records()] == ["other-run"]

    other.kill()
    other.wait(timeout=5)
    rec = run_records.new_run("/tmp/results", "star-8")
    assert rec.pid == os.getpid()


def test_new_run_ignores_stale_records_of_dead_runs() -> None:
    _record("crashed", dead_pid()).save()
    rec = run_records.new_run("/tmp/r", "mesh-2x2")
    assert {r.id for r in run_records.records()} == {"crashed", rec.id}


def test_a_killed_run_whose_network_is_still_here_is_named(
        children: list[subprocess.Popen]) -> None:
    """A new network would run into the names of a killed run's (Emulation.start refuses
    it, naming `mcastlab cleanup`); a dead run whose names are gone, or a live one, is not
    one (the loopback interface stands for a name still here)."""
    from testbed.emulation.cleanup import killed_runs

    _record("killed", dead_pid(), interfaces=["lo"]).save()
    _record("gone", dead_pid(), interfaces=["no-such-eth0"], bridges=["no-such-br"]).save()
    _record("live", sleeper(children).pid, interfaces=["lo"]).save()
    assert [r.id for r in killed_runs()] == ["killed"]


def test_pid_alive() -> None:
    assert run_records.pid_alive(os.getpid())
    assert not run_records.pid_alive(dead_pid())


# ---- marked processes -------------------------------------------------------------------
def test_marked_processes_finds_a_run_by_its_id(children: list[subprocess.Popen]) -> None:
    run_id = f"unit-{uuid.uuid4().hex}"
    marked = sleeper(children, **{RUN_MARK: run_id})
    unmarked = sleeper(children)
    other_run = sleeper(children, **{RUN_MARK: run_id + "-other"})

    assert run_records.marked_processes(run_id) == [marked.pid]
    anyone = run_records.marked_processes()
    assert marked.pid in anyone and other_run.pid in anyone
    assert unmarked.pid not in anyone
    assert os.getpid() not in anyone


def test_marked_processes_leaves_another_pid_namespace_alone(
        children: list[subprocess.Popen]) -> None:
    """A second server of a cluster on this kernel (the rig) runs in a PID namespace of its
    own: its processes are its cleanup's, not this machine's."""
    run_id = f"unit-{uuid.uuid4().hex}"
    here = sleeper(children, **{RUN_MARK: run_id})
    there = spawn(children, ["unshare", "--pid", "--fork", "--kill-child", "sh", "-c",
                              "echo up; exec sleep 30"], **{RUN_MARK: run_id})
    assert there.stdout is not None and there.stdout.readline() == b"up\n"
    found = run_records.marked_processes(run_id)
    assert here.pid in found and there.pid in found  # unshare itself stays in ours
    sleeping = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                and p.name != str(there.pid) and _parent(int(p.name)) == there.pid]
    assert sleeping and not set(sleeping) & set(found)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def test_marked_processes_finds_a_job(children: list[subprocess.Popen]) -> None:
    run_id, job_id = f"unit-{uuid.uuid4().hex}", f"job-{uuid.uuid4().hex}"
    in_job = sleeper(children, **{RUN_MARK: run_id, JOB_MARK: job_id})
    not_in_job = sleeper(children, **{RUN_MARK: run_id})
    assert run_records.marked_processes(job_id=job_id) == [in_job.pid]
    assert run_records.marked_processes(run_id) == sorted([in_job.pid, not_in_job.pid])
    assert run_records.job_of(in_job.pid) == job_id
    assert run_records.job_of(not_in_job.pid) is None
    assert run_records.job_of(dead_pid()) is None


def test_marked_processes_skips_the_caller_and_its_ancestors(
        children: list[subprocess.Popen]) -> None:
    """A marked process (say, cleanup run from a marked shell) never finds itself."""
    run_id = f"unit-{uuid.uuid4().hex}"
    code = ("import sys\n"
            "from testbed.emulation import run_records\n"
            "run_records.ENV_RUN = sys.argv[2]  # the test's mark\n"
            "print(run_records.marked_processes(sys.argv[1]), flush=True)\n"
            "sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", code, run_id, RUN_MARK],
                            env=environment(**{RUN_MARK: run_id}), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True,
                            cwd=Path(run_records.__file__).parents[1])
    children.append(proc)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline() == "[]\n"
    assert run_records.marked_processes(run_id) == [proc.pid]
    proc.stdin.close()
    assert proc.wait(timeout=5) == 0


def test_kill_marked_terminates_a_marked_process(children: list[subprocess.Popen]) -> None:
    run_id = f"unit-{uuid.uuid4().hex}"
    proc = sleeper(children, **{RUN_MARK: run_id})
    other = sleeper(children, **{RUN_MARK: run_id + "-other"})
    assert run_records.marked_processes(run_id) == [proc.pid]
    run_records.kill_marked(run_id)
    assert proc.wait(timeout=5) == -signal.SIGTERM
    assert run_records.marked_processes(run_id) == [] and other.poll() is None


def test_kill_marked_reads_the_mark_again_once_the_process_is_pinned(
        children: list[subprocess.Popen], monkeypatch: pytest.MonkeyPatch) -> None:
    """A PID whose process ended after the scan and went to another (here: the mark reads
    differently the second time, through the pinned pidfd) is not signalled."""
    run_id = f"unit-{uuid.uuid4().hex}"
    proc = sleeper(children, **{RUN_MARK: run_id})
    reads: list[int] = []
    real = run_records._environ

    def environ(pid: int) -> dict[str, str]:
        reads.append(pid)
        return real(pid) if reads.count(pid) == 1 else {}  # the PID's new process: no mark

    monkeypatch.setattr(run_records, "_environ", environ)
    run_records.kill_marked(run_id, where=lambda pid: pid == proc.pid)
    assert reads.count(proc.pid) == 2 and proc.poll() is None


def test_a_record_whose_pid_went_to_another_process_is_not_alive() -> None:
    rec = run_records.new_run("/tmp/r", "star")
    assert rec.pid_start == run_records.start_time(os.getpid()) and rec.alive()
    rec.pid_start += 1  # the same PID, another process
    assert not rec.alive() and run_records.active_run() is None
    assert run_records.start_time(dead_pid()) is None


def test_kill_marked_uses_sigkill_after_the_grace_time(
        children: list[subprocess.Popen]) -> None:
    run_id = f"unit-{uuid.uuid4().hex}"
    code = ("import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(30)\n")
    stubborn = spawn(children, [sys.executable, "-c", code], **{RUN_MARK: run_id})
    assert stubborn.stdout is not None
    assert stubborn.stdout.readline() == b"ready\n"
    polite = sleeper(children, **{RUN_MARK: run_id})

    start = time.monotonic()
    run_records.kill_marked(run_id, grace=0.3)
    assert stubborn.wait(timeout=5) == -signal.SIGKILL
    assert polite.wait(timeout=5) == -signal.SIGTERM
    assert 0.25 <= time.monotonic() - start < 5


def test_kill_marked_does_not_wait_for_zombies(children: list[subprocess.Popen]) -> None:
    job_id = f"job-{uuid.uuid4().hex}"
    proc = spawn(children, ["true"], **{JOB_MARK: job_id})
    deadline = time.monotonic() + 5
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "true did not exit"
        time.sleep(0.005)
    start = time.monotonic()
    run_records.kill_marked(job_id=job_id, grace=3)
    assert time.monotonic() - start < 1
    assert proc.wait(timeout=5) == 0
    run_records.kill_marked(job_id="no-such-job", grace=3)


def test_the_switch_priority_note_is_not_taken_for_a_run_record(state_dir: Path) -> None:
    from testbed.emulation import priority

    state_dir.mkdir()
    note = state_dir / priority.NOTE
    note.write_text('{"pid": 1, "nice": {"1": -10}}')
    assert run_records.records() == []
    assert note.exists()  # records() drops unreadable *.json records; the note is kept
