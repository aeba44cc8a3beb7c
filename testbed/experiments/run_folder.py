"""A run's results folder made for a new run of a spec, or reopened to finish an
interrupted one (`prepare`, for `mcastlab experiment`): the spec read through its kind
(testbed.experiments.kinds) and checked, the machine checked, the link rate resolved (a
resumed run keeps the rate it began with), and a resumed run's finished points read back,
a torn last line of records.jsonl cut off. What runs in it is testbed.experiments.run's."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

from .. import results
from ..emulation.environment import detected
from ..errors import UsageError
from ..fidelity.link_rate import LinkRate
from ..safepath import trusted_config
from ..specs import cluster as cluster_spec
from ..specs.cluster import ClusterSpec
from .calibration import resolve
from .kinds import load
from .run import Log, Run, new_run, opened
from .spec import ExperimentSpec, across_servers, check_machine


def _link_rate(spec: ExperimentSpec, config: dict[str, Any] | None, log: Log) -> LinkRate:
    """Resolve bw=auto (the calibrated rate; a resumed run keeps the rate it began with)
    and put the topology it gives into the spec."""
    if config is not None and config.get("link_rate"):
        rate = LinkRate(**{k: v for k, v in config["link_rate"].items() if k != "dilation"})
        if rate.auto and rate.mbit is not None:
            spec.topology = spec.topology.scaled(rate.mbit / (spec.topology.host_rate() or 1))
        return rate
    if spec.auto_rate:
        spec.topology, rate = resolve(spec.topology_spec, log)
        return rate
    mbit = spec.topology.host_rate()
    return LinkRate(mbit, mbit, False, "given")



def _corrupt(path: Path, line: int | None, why: str) -> UsageError:
    at = f"line {line}: " if line else ""
    return UsageError(f"{path} is corrupt ({at}{why}); the run cannot be resumed")


def _json_object(path: Path, text: str, line: int | None = None) -> dict[str, Any]:
    """One JSON object of a results folder's file (`line` of a .jsonl), else UsageError."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise _corrupt(path, line, f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise _corrupt(path, line, "not a JSON object")
    return value


def _done_keys(records: Path, log: Log) -> set[str]:
    """The points records.jsonl holds. A torn last line (no newline: a run killed while
    writing it, or a disk that filled) is cut off with a warning: its point is measured
    again, and the next record does not land on it. A corrupt whole line is refused, not
    skipped: a point would silently go missing."""
    if not records.exists():
        return set()
    data = records.read_bytes()
    lines = data.split(b"\n")
    done = set()
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            rec = _json_object(records, raw.decode(), n)
        except (UsageError, UnicodeDecodeError) as exc:
            if n < len(lines):  # a whole line (its newline written): corrupt, refuse
                raise exc if isinstance(exc, UsageError) else \
                    _corrupt(records, n, "not text") from None
            with open(records, "r+b") as f:  # the last: cut it off
                f.truncate(len(data) - len(raw))
                os.fsync(f.fileno())
            log(f"warning: {records} ended in a torn line ({len(raw)} bytes, a run killed "
                "while writing it); cut off, its point is measured again")
            break
        if not isinstance(rec.get("key"), str):
            raise _corrupt(records, n, "a record without its point's key")
        done.add(rec["key"])
    else:
        if data and not data.endswith(b"\n"):  # whole, but its newline never written
            results.append_line(records, "")
    return done


def _reopen(folder: Path, spec_path: Path | None, log: Log
            ) -> tuple[ExperimentSpec, dict[str, Any], set[str]]:
    """An interrupted run's spec, config and finished points, all read and checked before
    anything is measured."""
    if not (folder / "spec.toml").is_file() or not (folder / "config.json").is_file():
        raise UsageError(f"{folder} is not a results folder of `mcastlab experiment` "
                         "(no spec.toml and config.json)")
    spec = load(folder / "spec.toml")
    if spec_path is not None and load(spec_path).raw != spec.raw:
        raise UsageError(f"{spec_path} differs from the spec {folder} was started with")
    config_file = folder / "config.json"
    config = _json_object(config_file, config_file.read_text())
    return spec, config, _done_keys(folder / "records.jsonl", log)


def prepare(spec_path: Path | None, resume: Path | None, out_root: Path,
            log: Log, cluster: ClusterSpec | None = None) -> Run:
    """Check the spec and the machine, then make (or reopen) the results folder. `cluster`
    (--servers) spreads the network over servers, as a spec's [cluster] table does."""
    done: set[str] = set()
    if resume is not None:
        spec, config, done = _reopen(resume, spec_path, log)
        out = resume.resolve()  # the MPI jobs write into it from other directories
        if cluster is not None:
            raise UsageError("--servers: a resumed run goes on where it began (config.json's "
                             "cluster); drop --servers")
        began = config.get("cluster")
        spec.cluster = cluster_spec.from_dict(began) if began else None
        if spec.cluster is not None and spec.cluster.ssh_config:  # its commands run as root
            trusted_config("config.json's cluster.ssh_config", spec.cluster.ssh_config)
    else:
        if spec_path is None:
            raise UsageError("give a spec file (SPEC.toml) or --resume FOLDER")
        spec = load(spec_path)
        out = None
        if cluster is not None:
            across_servers(spec, cluster, "--servers")
        if spec.cluster is not None and spec.cluster.ssh_config:  # kept for --resume
            ssh_config = trusted_config("cluster.ssh_config", spec.cluster.ssh_config)
            spec.cluster = dataclasses.replace(spec.cluster, ssh_config=str(ssh_config))
    caps = detected()
    caps.require()
    check_machine(spec, caps)
    rate = _link_rate(spec, config if resume is not None else None, log)
    if out is None:
        out = results.new_results_dir(f"exp-{spec.name}", out_root)
        assert spec.path is not None
        shutil.copyfile(spec.path, out / "spec.toml")
        run = new_run(spec, out, rate, caps, log)
    else:
        run = opened(spec, out, config, log, done)
    run.caps = caps  # the network is brought up with them: not detected a second time
    return run
