"""`mcastlab experiment SPEC.toml` and `mcastlab testbed`: a progress bar while the experiment runs,
the report's headline at the end, and on Ctrl-C a folder that `--resume` finishes."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .errors import UsageError
from .experiment import Log, execute, point_config, prepare
from .outputs import output_dir
from .results import size_text
from .spec import load

DEFAULT_SPEC = Path(__file__).resolve().parents[1] / "experiments" / "default.toml"


def list_points(spec_path: str) -> int:
    spec = load(spec_path)
    print(f"{spec.name}: {len(spec.points())} points on {spec.topology.name} "
          f"({len(spec.topology.hosts)} hosts), {spec.repetitions} broadcasts each")
    for p in spec.points():
        c = point_config(spec, p)
        extra = [f"{k}={c[k]}" for k in ("traffic", "fault") if c[k] != "none"]
        extra += [f"loss={c['loss']:g}"] if c["loss"] else []
        extra += [f"groups={c['groups']}"] if c["groups"] > 1 else []
        extra += [f"interval={c['interval_s']:g}s"] if c["interval_s"] else []
        print(f"  {p.index:4d}  {p.algorithm:<17} {size_text(p.size):>8}  "
              f"{p.hosts} hosts  {' '.join(extra)}")
    return 0


def _progress_bar() -> Any:
    import rich.progress as rp
    from rich.console import Console

    return rp.Progress(rp.TextColumn("[bold]{task.description}"), rp.BarColumn(),
                       rp.MofNCompleteColumn(), rp.TimeElapsedColumn(), rp.TextColumn("left"),
                       rp.TimeRemainingColumn(), console=Console(stderr=True))


def run_spec(args: argparse.Namespace, log: Log) -> int:
    from .report import write_report

    if args.list:
        if not args.spec:
            raise UsageError("--list lists a spec's points: mcastlab experiment SPEC.toml --list")
        return list_points(args.spec)
    # a new run's results root is checked before the network (or a calibration) comes up
    out_root = Path(args.out) if args.resume else output_dir("--out", args.out)
    run = prepare(Path(args.spec) if args.spec else None,
                  Path(args.resume) if args.resume else None, out_root, log)
    log(f"{run.spec.name}: {len(run.spec.points())} points "
        f"({len(run.done)} already done), results in {run.out}")
    interrupted = False
    try:
        with _progress_bar() as bar:
            execute(run, bar)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        run.config["interrupted" if interrupted else "finished"] = stamp
        run.save_config()
        headline = write_report(run.out)
    print(headline)
    if interrupted:
        print(f"interrupted: {len(run.done)} of {len(run.spec.points())} points measured; "
              f"finish with: mcastlab experiment --resume {run.out}", file=sys.stderr)
        return 130
    return 0
