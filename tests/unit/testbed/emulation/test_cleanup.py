"""testbed.emulation.cleanup: a run's Linux kernel bridges are told apart from other runs' and
other bridges by their alias."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from testbed.emulation import cleanup, run_records
from testbed.emulation.run_records import RunRecord

from .processes import dead_pid, sleeper


def _netdev(root: Path, name: str, alias: str | None = None, bridge: bool = True) -> None:
    (root / name).mkdir()
    if bridge:
        (root / name / "bridge").mkdir()
    if alias is not None:
        (root / name / "ifalias").write_text(alias + "\n")


def test_kernel_bridges_are_told_apart_by_their_alias(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _netdev(tmp_path, "s1", f"{cleanup.BRIDGE_MARK}=run-a")      # run-a's
    _netdev(tmp_path, "s2", "")                                  # unmarked (killed early)
    _netdev(tmp_path, "s3", f"{cleanup.BRIDGE_MARK}=run-b")      # another run's
    _netdev(tmp_path, "docker0")                                 # no alias file: not ours
    _netdev(tmp_path, "br-lab", "someone else's bridge")
    _netdev(tmp_path, "s1-eth1", bridge=False)                   # a port, not a bridge
    _netdev(tmp_path, "s9", bridge=False)                        # an OVS internal port
    monkeypatch.setattr(cleanup, "SYS_NET", tmp_path)
    assert cleanup.kernel_bridges() == {"s1": "run-a", "s2": "", "s3": "run-b",
                                        "docker0": "", "br-lab": ""}
    rec = RunRecord(id="run-a", pid=1, started=0.0, run_dir="", bridges=["s1", "s2", "s3"])
    assert cleanup.run_kernel_bridges(rec) == ["s1", "s2"]
    other = RunRecord(id="run-c", pid=1, started=0.0, run_dir="", bridges=["s1", "s9"])
    assert cleanup.run_kernel_bridges(other) == []


# ---- a run that starts while cleanup runs ---------------------------------------------------
def test_a_run_started_while_cleanup_runs_keeps_what_it_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marks: tuple[str, str],
        children: list[subprocess.Popen]) -> None:
    """Cleanup does not hold the run lock: a run may start while it removes an ended one
    (here: right after the ended run's teardown). Whether a run is alive is read after what
    is removed was found, so the new run's processes, folders and bridges stay; an orphan
    (a mark of no recorded run), the ended run's folder and its bridge go.

    The processes carry this test's own mark (processes.py): the sweep sees no other."""
    run_mark, _job = marks
    state, ovs = tmp_path / "state", tmp_path / "ovs"
    monkeypatch.setattr(run_records, "STATE_DIR", state)
    monkeypatch.setattr(run_records, "OVS_RUNDIR", ovs)
    monkeypatch.setenv("MCASTLAB_GROUP_DIR", str(state / "groups"))
    bridges = {"s9": "ended"}  # the switch's bridges: name -> run mark

    def remove_network(names: list[str], _interfaces: list[str]) -> None:
        for name in names:
            bridges.pop(name, None)  # as ovs-vsctl --if-exists del-br

    monkeypatch.setattr(cleanup, "ovs_bridges", lambda: dict(bridges))
    monkeypatch.setattr(cleanup, "kernel_bridges", dict)
    monkeypatch.setattr(cleanup, "nft_tables", list)
    monkeypatch.setattr(cleanup, "remove_network", remove_network)
    monkeypatch.setattr(cleanup, "clear_ovs_ssl", lambda _run_id: None)
    monkeypatch.setattr(cleanup.priority, "note_exists", lambda: False)

    ended = RunRecord(id="ended", pid=dead_pid(), started=0.0, run_dir="")
    ended.save()
    (state / "ended").mkdir()
    orphan = sleeper(children, **{run_mark: "never-recorded"})
    started: list[subprocess.Popen] = []
    teardown = cleanup.cleanup_run

    def cleanup_run(rec: RunRecord, by_name: bool = True) -> None:
        teardown(rec, by_name)
        if not started:  # a run starts: its record first, then what carries its id
            testbed = sleeper(children)
            RunRecord(id="new", pid=testbed.pid, started=0.0, run_dir="",
                      pid_start=run_records.start_time(testbed.pid)).save()
            started.append(sleeper(children, **{run_mark: "new"}))
            (state / "new").mkdir()
            run_records.sockets_dir("new").mkdir(parents=True)
            bridges["s1"] = "new"

    monkeypatch.setattr(cleanup, "cleanup_run", cleanup_run)
    done = cleanup.cleanup_stale()
    assert orphan.wait(timeout=5) == -signal.SIGTERM
    (host,) = started
    assert host.poll() is None, done
    assert (state / "new").is_dir() and run_records.sockets_dir("new").is_dir()
    assert not (state / "ended").exists()
    assert bridges == {"s1": "new"}
    assert [r.id for r in run_records.records()] == ["new"]
    assert "killed 1 orphaned process(es)" in done
