"""The kinds of experiment a spec can ask for, one record each, as emulation.switching's
SWITCHES is the table of switch kinds: how a spec of the kind is read, how its points are
laid out, how they are measured, what a point's record says of its configuration, how
`--list` shows them and the report of its results folder. Adding a kind is one entry of
KINDS; nothing else chooses by kind.

- bcast: broadcasts of a [sweep] (``collective = "bcast"``, the default);
- allgather: Allgathers of a [sweep] (``collective = "allgather"``);
- multinode: Tseng2001's multi-node multicast, a [multinode] table in place of [sweep].

A spec names its kind by its `collective` key, or by the kind's own table ([multinode]).
`load` and `from_dict` read a spec with its kind's reader (the spec then carries the kind's
record: the run, the listing and the probe of the operating point ask it);
`write_report` writes a results folder's report with the kind its config.json's spec names.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..report import BROADCAST, read_run
from ..report import allgather as allgather_report
from ..report import multinode as multinode_report
from ..report.text_report import RunReport
from . import listing
from . import spec as specs
from . import spec_values as sv
from .allgather import point_config as allgather_config
from .multinode_run import point_config as multinode_config
from .run import Run, point_config, run_allgathers, run_broadcasts, run_multinode
from .spec import ExperimentSpec, Point
from .spec_values import SpecError

Reader = Callable[[dict[str, Any], Path | None, "ExperimentKind"], ExperimentSpec]
Runner = Callable[[Run, list[Point], Any, Any], None]  # (run, points to do, progress, task)


@dataclass(frozen=True)
class ExperimentKind:
    name: str
    help: str
    read: Reader  # the spec, every key checked (SpecError naming the key)
    points: Callable[[ExperimentSpec], list[Point]]  # its points, in the order they run
    run: Runner  # measures the points on run.emu, writing each point's record
    record: Callable[[ExperimentSpec, Point], dict[str, Any]]  # a record's `config`
    listing: Callable[[ExperimentSpec], list[str]]  # what --list says of the points
    report: RunReport  # the results folder's summary, CSV, figures and report.html
    table: str | None = None  # the spec's table that names it; None: `collective = name`
    probed: bool = True  # bw=auto: the heaviest points are probed for the operating point


KINDS: dict[str, ExperimentKind] = {k.name: k for k in (
    ExperimentKind("bcast", "broadcasts of a [sweep] (the default)", specs.read_bcast,
                   specs.sweep_points, run_broadcasts, point_config, listing.broadcasts,
                   BROADCAST),
    ExperimentKind("allgather", "Allgathers of a [sweep]", specs.read_allgather,
                   specs.sweep_points, run_allgathers, allgather_config, listing.allgathers,
                   allgather_report.REPORT),
    ExperimentKind("multinode", "Tseng2001's multi-node multicast, a [multinode] table",
                   specs.read_multinode, specs.multinode_points, run_multinode,
                   multinode_config, listing.multinode, multinode_report.REPORT,
                   table="multinode", probed=False),
)}
DEFAULT = "bcast"


def choices() -> str:
    """The kinds as a spec names them: "bcast, allgather, or a [multinode] table"."""
    words = [k.name for k in KINDS.values() if k.table is None]
    tables = [f"a [{k.table}] table" for k in KINDS.values() if k.table is not None]
    return ", ".join(words) + "".join(f", or {t}" for t in tables)


def kind_of(raw: dict[str, Any]) -> ExperimentKind:
    """The kind a spec (its TOML as a dict) names: by its own table, else by `collective`
    (default bcast); any other word is a SpecError naming the kinds."""
    for kind in KINDS.values():
        if kind.table is not None and kind.table in raw:
            return kind
    name = sv.string(raw, "collective", DEFAULT, "")
    named = KINDS.get(name)
    if named is None or named.table is not None:
        raise SpecError(f"collective: unknown '{name}' (one of {choices()})")
    return named


def from_dict(raw: dict[str, Any], path: Path | None = None) -> ExperimentSpec:
    """The spec `raw` (from `path`, if any: topology files are found beside it), read by its
    kind's reader."""
    kind = kind_of(raw)
    return kind.read(raw, path, kind)


def load(path: str | Path) -> ExperimentSpec:
    """The spec in the TOML file `path`."""
    p = Path(path)
    if not p.is_file():
        raise SpecError(f"no spec file {p}")
    try:
        raw = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{p} is not valid TOML: {exc}") from None
    return from_dict(raw, path=p)


def write_report(run_dir: Path) -> str:
    """Write the report of the results folder `run_dir` (summary.csv, plots/, summary.txt,
    report.html) with the kind its config.json's spec names (a broadcast's where it names
    none); return the text of summary.txt (the headline)."""
    run_dir = Path(run_dir)
    config, records, title = read_run(run_dir)
    raw = config.get("spec")
    kind = kind_of(raw if isinstance(raw, dict) else {})
    return kind.report.write(run_dir, config, records, title)
