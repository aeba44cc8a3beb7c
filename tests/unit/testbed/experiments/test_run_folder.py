"""testbed.experiments.run_folder without a network: the results folder as it is made,
reopened and refused (a corrupt record or config, another spec), a torn last record cut off,
and a spec this machine cannot run leaving no folder. Real specs and folders; the machine's
capabilities are given."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from testbed import results
from testbed.errors import UsageError
from testbed.experiments import run_folder
from testbed.experiments.run_folder import _done_keys, _reopen, prepare
from testbed.experiments.spec import SpecError

from ..emulation.machines import caps
from .test_run import BASE, TOML


def test_records_that_cannot_be_read_whole_are_refused_not_skipped(tmp_path: Path) -> None:
    f = tmp_path / "records.jsonl"
    said: list[str] = []
    assert _done_keys(f, said.append) == set()  # no file: nothing done
    f.write_text('{"key": "a"}\n\n{"key": "b"}\n')
    assert _done_keys(f, said.append) == {"a", "b"}
    cases = [('{"key": "a"}\n{"key": \n{"key": "c"}\n', "line 2: not JSON"),
             ('["a"]\n', "line 1: not a JSON object"),
             ('{"key": "a"}\n{"index": 3}\n', "line 2: a record without its point's key"),
             ('{"key": 7}\n', "line 1: a record without its point's key"),
             ('{"key": "a"}\n{"key": "b"\n', "line 2: not JSON")]  # its newline written
    for text, why in cases:
        f.write_text(text)
        with pytest.raises(UsageError, match=f"is corrupt \\({why}.*cannot be resumed"):
            _done_keys(f, said.append)
        assert f.read_text() == text  # refused as it is, nothing cut
    f.write_bytes(b'\xff\xfe{"key": "a"}\n{"key": "b"}\n')
    with pytest.raises(UsageError, match=r"\(line 1: not text\)"):
        _done_keys(f, said.append)
    assert not said
    f.write_bytes(b'{"key": "a"}\n{"key": "b", "x": "\xe2\x82')  # torn inside a character
    assert _done_keys(f, said.append) == {"a"}
    assert f.read_bytes() == b'{"key": "a"}\n' and len(said) == 1 and "torn line" in said[0]


def test_a_folder_is_reopened_only_with_its_own_spec_and_readable_files(
        tmp_path: Path) -> None:
    folder = tmp_path / "res"
    folder.mkdir()
    with pytest.raises(UsageError, match="is not a results folder of `mcastlab experiment`"):
        _reopen(folder, None, print)
    (folder / "spec.toml").write_text(TOML)
    (folder / "config.json").write_text('{"spec_name": "unit"}')
    (folder / "records.jsonl").write_text('{"key": "k1"}\n')
    spec, config, done = _reopen(folder, None, print)
    assert spec.raw == BASE and config == {"spec_name": "unit"}
    assert done == {"k1"}
    same, other = tmp_path / "same.toml", tmp_path / "other.toml"
    same.write_text("# the same spec, written otherwise\n" + TOML)
    assert _reopen(folder, same, print)[2] == {"k1"}
    other.write_text(TOML.replace("repetitions = 2", "repetitions = 3"))
    with pytest.raises(UsageError, match="other.toml differs from the spec .*res was started"):
        _reopen(folder, other, print)
    for text, why in (("{", "not JSON"), ("[1]", "not a JSON object")):
        (folder / "config.json").write_text(text)
        with pytest.raises(UsageError, match=f"config.json is corrupt \\({why}"):
            _reopen(folder, None, print)


def test_prepare_makes_a_folder_and_a_resume_goes_on_where_it_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine = caps()
    monkeypatch.setattr(run_folder, "detected", lambda: machine)
    spec_path, root = tmp_path / "unit.toml", tmp_path / "results"
    spec_path.write_text(TOML)
    with pytest.raises(UsageError, match="give a spec file"):
        prepare(None, None, root, print)

    run = prepare(spec_path, None, root, print)
    assert run.out.parent == root and run.out.name.endswith("-exp-unit")
    assert (run.out / "spec.toml").read_text() == TOML and (run.out / "raw").is_dir()
    config = json.loads((run.out / "config.json").read_text())
    assert config["points"] == 2 and config["spec"] == run.spec.raw
    assert config["link_rate"] == {"nominal_mbit": 100.0, "mbit": 100.0, "auto": False,
                                   "source": "given", "dilation": 1.0}
    assert config["cluster"] is None and config["finished"] is None
    assert config["capabilities"] == machine.to_dict() and run.caps is machine
    assert run.done == set() and run.jobs == 0

    # killed after one point and part of the next: calibrated at 50 Mbit/s when it began
    first, second = run.spec.points()
    run.add_record({"key": first.key})
    with open(run.records_file, "a") as f:
        f.write(json.dumps({"key": second.key})[:9])
    (run.out / "raw" / "points-2.json").write_text("[]")
    config["link_rate"] = {"nominal_mbit": 100.0, "mbit": 50.0, "auto": True,
                           "source": "calibrated now", "dilation": 2.0}
    results.write_json(run.out / "config.json", config)
    said: list[str] = []
    again = prepare(None, run.out, root, said.append)
    assert again.done == {first.key} and again.jobs == 2 and again.spec.cluster is None
    assert again.spec.topology.host_rate() == 50.0  # the rate it began with, not bw=100
    assert len(said) == 1 and "torn line" in said[0]
    assert [p.name for p in root.iterdir()] == [run.out.name]  # no second folder
    with pytest.raises(UsageError, match="--servers: a resumed run goes on where it began"):
        prepare(None, run.out, root, print, cluster=SimpleNamespace())  # type: ignore[arg-type]


def test_a_spec_this_machine_cannot_run_leaves_no_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_folder, "detected", lambda: caps(netfilter_statistic=False))
    spec_path, root = tmp_path / "lossy.toml", tmp_path / "results"
    spec_path.write_text(TOML + "loss = [0.0, 0.05]\n")
    with pytest.raises(SpecError, match="sweep.loss: run-time loss needs"):
        prepare(spec_path, None, root, print)
    assert not root.exists()
