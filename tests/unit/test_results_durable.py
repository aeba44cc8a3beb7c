"""Results survive a crash and stay root's: records fsynced line by line, a torn last line
cut off on resume (not a refusal), a resumed run's jobs numbered on, rewritten files
replaced atomically and never through a link, and no output path through another user's
folder or link when running as root."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.experiments import results
from testbed.experiments.run import _done_keys, _opened
from testbed.outputs import output_dir, output_file

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
    run = _opened(None, tmp_path, {"spec_name": "s"}, lambda _m: None)  # type: ignore[arg-type]
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
    results.write_json(link, {"b": 1})  # replaces the link itself, not what it names
    assert elsewhere.read_text() == "keep" and not link.is_symlink()


def test_root_writes_through_no_other_users_folder_or_link(tmp_path: Path,
                                                           monkeypatch) -> None:
    """As root (make test runs as root): the check is root's."""
    monkeypatch.delenv("SUDO_UID", raising=False)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, NOBODY, NOBODY)
    with pytest.raises(UsageError, match=f"belongs to another user \\(uid {NOBODY}\\)"):
        output_dir("--out", str(theirs / "r"))
    with pytest.raises(UsageError, match="belongs to another user"):
        output_file("--out", str(theirs / "x.json"))
    link = tmp_path / "r"  # a link of theirs where a results folder would be
    link.symlink_to(tmp_path / "mine")
    os.lchown(link, NOBODY, NOBODY)
    with pytest.raises(UsageError, match="belongs to another user"):
        output_dir("--out", str(link))
    ours = tmp_path / "ours"  # root's link into their folder: refused where it resolves
    ours.symlink_to(theirs)
    with pytest.raises(UsageError, match=str(theirs)):
        output_dir("--out", str(ours / "r"))
    assert output_dir("--out", str(tmp_path / "mine" / "r")) == tmp_path / "mine" / "r"
    monkeypatch.setenv("SUDO_UID", str(NOBODY))  # the user who ran sudo: their own folder
    assert output_dir("--out", str(theirs / "r")) == theirs / "r"
