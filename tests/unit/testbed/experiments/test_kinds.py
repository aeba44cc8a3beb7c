"""testbed.experiments.kinds: the table of experiment kinds. Every kind has every part and
is chosen by what a spec names (its `collective`, or its own table); a spec read through the
table carries its kind's record, whose parts lay out, describe and list its points; a kind
no entry has is refused with one message naming the kinds, on the command line too (no
traceback); a results folder's report is written by the kind its config.json names."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from testbed.cli.main import main
from testbed.experiments.kinds import (
    DEFAULT,
    KINDS,
    ExperimentKind,
    from_dict,
    kind_of,
    load,
    write_report,
)
from testbed.experiments.spec import SpecError

SWEEP = {"network": {"topology": "star:hosts=4,bw=100"},
         "sweep": {"algorithms": ["binomial"], "sizes": [1024], "hosts": [4]}}
# a spec of each kind, the smallest that reads
SPECS: dict[str, dict[str, Any]] = {
    "bcast": {"name": "b", **SWEEP},
    "allgather": {"name": "a", "collective": "allgather", **SWEEP,
                  "sweep": {"algorithms": ["ring"], "sizes": [1024], "hosts": [4]}},
    "multinode": {"name": "m", "network": {"topology": "torus:rows=4,cols=4,bw=10"},
                  "multinode": {"schemes": ["u-torus"], "sources": [4], "sizes": [4096]}},
}
PARTS = ("read", "points", "run", "record", "listing")
UNKNOWN = r"collective: unknown 'allreduce' \(one of bcast, allgather, or a \[multinode\] table\)"


def test_every_kind_has_every_part_and_a_spec_of_it() -> None:
    assert DEFAULT in KINDS and set(KINDS) == set(SPECS)
    for name, kind in KINDS.items():
        assert isinstance(kind, ExperimentKind) and kind.name == name and kind.help
        for part in PARTS:
            assert callable(getattr(kind, part)), f"{name}.{part}"
        assert len(inspect.signature(kind.run).parameters) == 4  # run, todo, progress, task
        assert callable(kind.report.write)
    assert [k.name for k in KINDS.values() if not k.probed] == ["multinode"]


@pytest.mark.parametrize("name", list(SPECS))
def test_a_spec_is_read_by_its_kind_and_carries_its_record(name: str) -> None:
    raw = copy.deepcopy(SPECS[name])
    kind = KINDS[name]
    assert kind_of(raw) is kind
    spec = from_dict(raw)
    assert spec.kind is kind and spec.points() == kind.points(spec) != []
    for p in spec.points():
        config = kind.record(spec, p)
        assert (config["algorithm"], config["size"]) == (p.algorithm, p.size)
    lines = kind.listing(spec)
    assert lines[0].startswith(f"{spec.name}: {len(spec.points())} points on ")
    assert len(lines) == 1 + len(spec.points())


def test_the_default_kind_and_what_names_a_kind() -> None:
    assert kind_of({}) is KINDS["bcast"] is kind_of({"collective": "bcast"})
    assert kind_of({"collective": "allgather"}) is KINDS["allgather"]
    assert kind_of({"multinode": {}}) is KINDS["multinode"]
    with pytest.raises(SpecError, match=r"collective: unknown 'multinode' \(one of bcast, "
                                        r"allgather, or a \[multinode\] table\)"):
        kind_of({"collective": "multinode"})  # named by its table, not by a word
    with pytest.raises(SpecError, match="collective: must be a string"):
        kind_of({"collective": 3})


def test_an_unknown_kind_is_refused_naming_the_kinds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = copy.deepcopy(SPECS["bcast"]) | {"collective": "allreduce"}
    with pytest.raises(SpecError, match=UNKNOWN):
        from_dict(raw)
    spec = tmp_path / "allreduce.toml"
    spec.write_text('name = "x"\ncollective = "allreduce"\n[network]\n'
                    'topology = "star:hosts=4"\n[sweep]\nalgorithms = ["ring"]\nsizes = [1]\n')
    with pytest.raises(SpecError, match=UNKNOWN):
        load(spec)
    assert main(["experiment", str(spec), "--list"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.strip().splitlines() == [
        "mcastlab: error: collective: unknown 'allreduce' (one of bcast, allgather, or a "
        "[multinode] table)"]


class Said:
    """A report that says which kind's it is, and what it was handed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, run_dir: Path, config: Any, recs: Any, title: str) -> str:
        return f"{self.name}: {len(recs)} record(s), {config['points']} planned"


@pytest.mark.parametrize("name", list(SPECS))
def test_a_folders_report_is_its_kinds(tmp_path: Path, name: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for kind in list(KINDS.values()):
        monkeypatch.setitem(KINDS, kind.name, dataclasses.replace(kind, report=Said(kind.name)))
    (tmp_path / "config.json").write_text(json.dumps({"spec": SPECS[name], "points": 1}))
    (tmp_path / "records.jsonl").write_text('{"key": "k"}\n')
    assert write_report(tmp_path) == f"{name}: 1 record(s), 1 planned"
    (tmp_path / "config.json").write_text(json.dumps({"spec": {"collective": "allreduce"}}))
    with pytest.raises(SpecError, match=UNKNOWN):
        write_report(tmp_path)
