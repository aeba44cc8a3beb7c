"""Results survive a crash and stay root's: records fsynced line by line, each point's as
soon as it is measured, a torn last line cut off on resume (not a refusal), a resumed run's
jobs numbered on, rewritten files replaced atomically and never through or over a link, a full disk
leaving whole lines and one message, and no output path through another user's folder or
link when running as root."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from collectives.stats import summarize
from testbed import results
from testbed.cluster.spread import Spread
from testbed.errors import DiskFull, UsageError
from testbed.experiments.kinds import load
from testbed.experiments.run import _Arrivals, opened
from testbed.experiments.run_folder import _done_keys
from testbed.fidelity.flags import Monitor
from testbed.safepath import make_folder, output_file
from testbed.specs.cluster import LOCAL
from topologies import parse_spec

NOBODY = 65534


def test_a_torn_last_record_is_cut_off_and_measured_again(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text('{"key": "a"}\n{"key": "b"}\n{"key": "c", "t_mc')
    said: list[str] = []
    assert _done_keys(records, said.append) == {"a", "b"}
    assert records.read_text() == '{"key": "a"}\n{"key": "b"}\n'
    assert len(said) == 1 and "torn line" in said[0]
    results.append_line(records, json.dumps({"key": "c"}))
    assert _done_keys(records, said.append) == {"a", "b", "c"} and len(said) == 1
    whole = tmp_path / "whole.jsonl"  # the record whole, its newline never written
    whole.write_text('{"key": "a"}')
    assert _done_keys(whole, said.append) == {"a"}
    results.append_line(whole, '{"key": "b"}')
    assert _done_keys(whole, said.append) == {"a", "b"}


def test_a_resumed_run_numbers_its_jobs_on(tmp_path: Path) -> None:
    (tmp_path / "raw").mkdir()
    for n in (1, 2, 7):
        (tmp_path / "raw" / f"points-{n}.json").write_text("[]")
    (tmp_path / "raw" / "points-x.json").write_text("[]")
    run = opened(None, tmp_path, {"spec_name": "s"}, lambda _m: None)  # type: ignore[arg-type]
    assert run.jobs == 7
    assert json.loads((tmp_path / "config.json").read_text()) == {"spec_name": "s"}


def test_files_are_replaced_atomically_and_never_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "config.json"
    results.write_json(target, {"a": 1})
    results.write_json(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]  # no temporary left
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    link = tmp_path / "records.jsonl"
    link.symlink_to(elsewhere)
    with pytest.raises(OSError):
        results.append_line(link, "{}")
    assert elsewhere.read_text() == "keep"
    with pytest.raises(UsageError, match="is a link"):  # never through it, nor over it
        results.write_json(link, {"b": 1})
    assert elsewhere.read_text() == "keep" and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "elsewhere",
                                                          "records.jsonl"]


def test_root_writes_through_no_other_users_folder_or_link(tmp_path: Path,
                                                           monkeypatch) -> None:
    """As root (make test runs as root): the check is root's."""
    monkeypatch.delenv("SUDO_UID", raising=False)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(UsageError, match=f"belongs to another user \\(uid {NOBODY}\\)"):
        make_folder("--out", str(theirs / "r"))
    with pytest.raises(UsageError, match="belongs to another user"):
        output_file("--out", str(theirs / "x.json"))
    link = tmp_path / "r"  # a link of theirs where a results folder would be
    link.symlink_to(tmp_path / "mine")
    os.lchown(link, NOBODY, NOBODY)
    with pytest.raises(UsageError, match="belongs to another user"):
        make_folder("--out", str(link))
    ours = tmp_path / "ours"  # root's link into their folder: refused where it resolves
    ours.symlink_to(theirs)
    with pytest.raises(UsageError, match=str(theirs)):
        make_folder("--out", str(ours / "r"))
    assert make_folder("--out", str(tmp_path / "mine" / "r")) == tmp_path / "mine" / "r"
    monkeypatch.setenv("SUDO_UID", str(NOBODY))  # the user who ran sudo: their own folder
    assert make_folder("--out", str(theirs / "r")) == theirs / "r"


def test_a_full_disk_leaves_whole_lines_and_says_so(tmp_path: Path, monkeypatch) -> None:
    """A write that fills the disk part-way is cut off again: the file keeps whole lines, a
    line appended once there is room does not land on a torn one, and the error names the
    file (one message, no traceback); an atomic rewrite leaves the old file and no temp."""
    records = tmp_path / "records.jsonl"
    results.append_line(records, '{"key": "a"}')
    real_write = os.write

    def fills(fd: int, data: bytes) -> int:
        real_write(fd, data[:5])  # what fit, then nothing more does
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", fills)
    with pytest.raises(DiskFull, match=f"no space left on the device of {records}"):
        results.append_line(records, '{"key": "b", "samples_s": [1, 2, 3]}')
    assert records.read_text() == '{"key": "a"}\n'
    monkeypatch.setattr(os, "write", real_write)
    results.append_line(records, '{"key": "c"}')
    assert _done_keys(records, print) == {"a", "c"}

    config = tmp_path / "config.json"
    results.write_json(config, {"v": 1})

    def no_room(*_args: object, **_kw: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_room)
    with pytest.raises(DiskFull, match="config.json"):
        results.write_json(config, {"v": 2})
    assert json.loads(config.read_text()) == {"v": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "records.jsonl"]


def test_an_interrupt_after_a_whole_line_keeps_it(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C while a whole record waits for its fsync (seen by a fresh-clone run: the
    record was visible, then gone after the interrupt): the point stays, made durable; a
    line the disk refused at fsync is still taken back."""
    records = tmp_path / "records.jsonl"
    real_fsync = os.fsync
    calls = []

    def interrupted(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 1:
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        results.append_line(records, '{"key": "a"}')
    assert records.read_text() == '{"key": "a"}\n' and len(calls) == 2  # kept, then synced

    def refused(_fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", refused)
    with pytest.raises(OSError):
        results.append_line(records, '{"key": "b"}')
    assert records.read_text() == '{"key": "a"}\n'


SPEC = """
name = "arrivals"
repetitions = 2
warmup = 0
[network]
topology = "star:hosts=4,bw=100"
[sweep]
algorithms = ["binomial", "chain"]
sizes = [1024]
hosts = [2]
groups = [2]
"""


def _raw(key: str, group: int, end: float) -> dict[str, Any]:
    """A raw record as collectives.programs.sweep_bench says it."""
    samples = [0.001, 0.002]
    return {"key": key, "label": str(group), "samples_s": samples, "verified": True,
            "t_mcast_s": summarize(samples), "start": end - 0.01, "end": end,
            "cpu": {"wait_per_turn_s": 0.0}}


def test_a_point_is_written_as_soon_as_every_group_measured_it(tmp_path: Path) -> None:
    """No network: the records of a condition of two groups, as their raw records arrive.
    A point is written once, the moment its second group's record is in, judged by the
    monitor over its own window (a reading at or after its end taken then); one whose end
    the monitor cannot be past yet (a clock ahead) waits, counted in `pending`, and is
    written when the condition ends; a report after that is not taken."""
    (tmp_path / "s.toml").write_text(SPEC)
    spec = load(tmp_path / "s.toml")
    (out := tmp_path / "res").mkdir()
    run = opened(spec, out, {"versions": {}}, lambda _m: None)
    run.emu = SimpleNamespace(spread=Spread(spec.topology))
    points = spec.points()
    monitor = Monitor(spec.topology)
    arrivals = _Arrivals(run, points, 2, monitor, None, {})
    arrivals.job = 3
    a, b = points[0].key, points[1].key
    with monitor:
        now = time.time()
        arrivals.got(0, _raw(a, 0, now))
        assert not run.records_file.exists() and not run.done
        readings = len(monitor.samples[LOCAL])
        arrivals.got(1, _raw(a, 1, now))
        arrivals.got(1, _raw(a, 1, now))  # a line read twice: not a second record
        [rec] = [json.loads(ln) for ln in run.records_file.read_text().splitlines()]
        assert rec["key"] == a and rec["job"] == 3 and rec["status"] == "ok"
        assert len(rec["samples_s"]) == 4 and run.done == {a} and run.pending == 0
        assert len(monitor.samples[LOCAL]) > readings  # the reading after its end, taken
        assert rec["fidelity"] == monitor.window(now - 0.01, now, {}, host_wait_s=0.0)
        later = now + 3600  # a server clock an hour ahead: no reading is past its end yet
        arrivals.got(0, _raw(b, 0, later))
        arrivals.got(1, _raw(b, 1, later))
        assert run.done == {a} and run.pending == 1
    arrivals.close()
    assert run.done == {a, b} and run.pending == 0
    arrivals.got(0, _raw("late", 0, now))
    assert len(run.records_file.read_text().splitlines()) == 2


def test_the_monitor_judges_a_window_as_soon_as_it_has_a_reading_past_it() -> None:
    """`through(t)`: a reading at or after t taken at once where the last is older, none
    where one is in; the window judged then is the one judged later, after more readings."""
    topo = parse_spec("star:hosts=3,bw=100")
    mon = Monitor(topo)
    mon._sample()
    t0 = time.time()
    time.sleep(0.02)
    t1 = time.time()
    assert mon.through(t1) and len(mon.samples[LOCAL]) == 2
    assert mon.through(t1) and len(mon.samples[LOCAL]) == 2
    early = mon.window(t0, t1)
    mon._sample()
    mon._sample()
    assert mon.window(t0, t1) == early
    assert not mon.through(time.time() + 3600)
