"""Experiments and benchmarks: `mcastlab experiment SPEC.toml` and `mcastlab testbed` (a
progress bar while the experiment runs, the report's headline at the end, and on Ctrl-C, a
full disk or a dead controller a folder that `--resume` finishes), `mcastlab bench`,
`mcastlab reproduce`."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..bench import suites as bench
from ..bench.suites import SUITES
from ..emulation.environment import detected
from ..errors import ComponentDied, DiskFull, UsageError
from ..experiments.kinds import load, write_report
from ..experiments.operating_point import execute_at_operating_point, listing
from ..experiments.run import Log, Run
from ..experiments.run_folder import prepare
from ..live.spec_view import SpecView
from ..results import DEFAULT_ROOT, new_results_dir
from ..safepath import make_folder, planned_folder, tree_of_ours
from .arguments import add_cluster_choice, cluster_spec, progress, refused
from .network import add_web_options, check_web
from .steps import Steps, progress_bar

DEFAULT_SPEC = Path(__file__).resolve().parents[2] / "experiments" / "default.toml"
CURATED_BENCH = Path(__file__).resolve().parents[2] / "bench"  # the checkout's, tracked by git


def list_points(spec_path: str) -> int:
    """A spec's points as its kind lists them, then the operating point's probe."""
    spec = load(spec_path)
    for line in [*spec.kind.listing(spec), *listing(spec)]:
        print(line)
    return 0


def run_spec(args: argparse.Namespace, log: Log) -> int:
    web = getattr(args, "web", False)
    if web and args.list:
        raise UsageError("--web shows a run as it measures: --list runs nothing")
    if hasattr(args, "web"):
        check_web(args)
    if args.list:
        if not args.spec:
            raise UsageError("--list lists a spec's points: mcastlab experiment SPEC.toml --list")
        return list_points(args.spec)
    # a new run's results root is checked before the network (or a calibration) comes up
    cluster = cluster_spec(args)
    out_root = Path(args.out) if args.resume else planned_folder("--out", args.out)
    resume = tree_of_ours("--resume", args.resume) if args.resume else None
    run = prepare(Path(args.spec) if args.spec else None, resume, out_root, log, cluster)
    log(f"{run.spec.name}: {len(run.spec.points())} points "
        f"({len(run.done)} already done), results in {run.out}")
    try:
        with _live(run, web, getattr(args, "web_port", None) or 0, log):
            return _measure(run, reprobe=getattr(args, "reprobe", False),
                            as_json=getattr(args, "json", False))
    except (DiskFull, ComponentDied) as exc:  # every point written so far is whole, and stays
        then = "make room, then " if isinstance(exc, DiskFull) else ""
        raise type(exc)(f"{exc}; {len(run.done)} of {len(run.spec.points())} points measured "
                        f"and kept, the network torn down; {then}finish with: mcastlab "
                        f"experiment --resume {run.out}") from None


@contextlib.contextmanager
def _live(run: Run, web: bool, port: int, log: Log) -> Iterator[None]:
    """With `web`, the run's live view (testbed.live.spec_view) while the block runs: its URL
    said once, the network followed as the run brings one up, the run's lines its status."""
    if not web:
        yield
        return
    spec = run.spec
    with SpecView(spec.name, spec.topology, len(spec.points()), len(run.done), run.out,
                  port, spec.traffic) as view:
        log(f"live view: {view.url} (this machine only; the token is the key)")
        run.live, run.log = view, view.logged(run.log)
        try:
            yield
        finally:
            run.live, run.log = None, log


def _measure(run: Run, *, reprobe: bool = False, as_json: bool = False) -> int:
    """Measure what `run` has left (at the operating point of its work, where its rate is
    automatic: testbed.experiments.operating_point), then write its report (a full disk or a
    dead controller: no report, config.json saved where it can be, the folder left for
    --resume). `reprobe`: probe again where the cache answers; `as_json`: the report's
    headline said as `folder_said` says it."""
    interrupted = False
    stopped: DiskFull | ComponentDied | None = None
    try:
        with progress_bar() as bar:
            execute_at_operating_point(run, bar, reprobe=reprobe)
    except KeyboardInterrupt:
        interrupted = True
    except (DiskFull, ComponentDied) as exc:
        stopped = exc
    finally:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        run.config["interrupted" if interrupted or stopped else "finished"] = stamp
        if stopped is None:
            run.save_config()
            headline = write_report(run.out)
        else:  # no report: config.json stays whole, the old one or the new
            with contextlib.suppress(DiskFull):
                run.save_config()
    if stopped is not None:
        raise stopped
    print(folder_said(run.out, "experiment", headline) if as_json else headline)
    if interrupted:
        print(f"interrupted: {len(run.done)} of {len(run.spec.points())} points measured; "
              f"finish with: mcastlab experiment --resume {run.out}", file=sys.stderr)
        return 130
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    return run_spec(args, progress)


def cmd_testbed(args: argparse.Namespace) -> int:
    args.spec = args.spec or str(DEFAULT_SPEC)
    args.resume = args.list = None
    return cmd_experiment(args)


def run_folder(args: argparse.Namespace, name: str, curated: Path) -> Path:
    """Where bench or reproduce writes: a new dated folder under --out (a results root, as
    every command's --out is), or with --publish the curated folder of this checkout, which
    is updated only when asked."""
    if args.publish:
        if args.out is not None:
            raise UsageError("--publish writes the curated folder; --out a dated one: "
                             "give one of them")
        if not curated.parent.is_dir():
            raise UsageError(f"--publish updates the curated {curated.name}/ of a checkout; "
                             f"{curated.parent} is not there")
        return make_folder("--publish", curated)
    root = planned_folder("--out", args.out or DEFAULT_ROOT)
    return new_results_dir(name, root)


def cmd_bench(args: argparse.Namespace) -> int:
    out = run_folder(args, "bench" if args.suite == "all" else f"bench-{args.suite}",
                     CURATED_BENCH)
    with Steps(len(bench.planned(args.suite))) as step:
        index = bench.run(out, quick=args.quick, progress=progress, suite=args.suite,
                          step=step)
    if args.json:
        print(folder_said(out, "bench", index.read_text()))
        return 0
    print(index.read_text())
    print(f"written in {out}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..reproduce.all_claims import select

    claims = select(args.only, args.quick, args.scale)
    if args.list:
        if args.scale:
            print(scale_header())
        width = max((len(c.key) for c in claims), default=0)
        for c in claims:
            where = f"{c.network}: " if args.scale else ""
            print(f"{c.key:<{width}} {c.paper:<13} {c.kind:<9} {where}{c.figure.where}: "
                  f"{c.statement}")
        if args.scale:
            print(scale_footer())
        return 0
    name = "reproduce" + ("-scale" if args.scale else "")
    out = run_folder(args, name + ("-quick" if args.quick else ""), CURATED_BENCH / name)
    caps = None
    if any(c.network is not None for c in claims):
        caps = detected()
        caps.require()
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..reproduce.run import run

    command = " ".join(["mcastlab reproduce", *sys.argv[2:]])
    with Steps(len(claims)) as step:
        doc = run(out, quick=args.quick, only=args.only, progress=progress, command=command,
                  caps=caps, scale=args.scale, step=step)
    lines = [f"{c['verdict']:<15} {c['key']}: {c['testbed_figure']['text']}"
             + (f" ({c['why']})" if c["why"] else "")
             for c in doc["claims"] if c["verdict"] != "skipped"]
    lines.append(f"report: {out / 'report.html'}")
    if args.json:
        print(folder_said(out, "reproduce", "\n".join(lines),
                          claims={c["key"]: c["verdict"] for c in doc["claims"]
                                  if c["verdict"] != "skipped"}))
        return 0
    print("\n".join(lines))
    return 0


def scale_header() -> str:
    """What `reproduce --scale --list` says before the tier's claims: what it is and its
    budget."""
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..reproduce.scale_tier import BUDGET

    return ("the scale tier: the claims about growth with the number of nodes, judged again "
            "on 64 hosts (32 where the paper's figure stops there), each on a star of its "
            f"host count at the rate calibrated for it; {BUDGET}")


def scale_footer() -> str:
    """What `reproduce --scale --list` says after them: the growth claims left out, why."""
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..reproduce.scale_tier import LEFT_OUT

    return "\n".join(["not in the tier:", *(f"  {k}: {why}" for k, why in LEFT_OUT.items())])


def cmd_report(args: argparse.Namespace) -> int:
    """Write a results folder's report again from what it holds: nothing is measured."""
    folder = tree_of_ours("FOLDER", args.folder)
    try:
        text = _render(folder)
        print(folder_said(folder, _kind(folder), text) if args.json else text)
    except (ValueError, KeyError, TypeError) as exc:  # a file cut short, or of another shape
        raise UsageError(f"{folder}: its results cannot be read back ({type(exc).__name__}: "
                         f"{exc})") from None
    return 0


def folder_said(folder: Path, kind: str, summary: str, **more: Any) -> str:
    """A results folder as --json says it (experiment, testbed, bench, reproduce, report):
    the folder, its kind, the summary the text would print, its files (and `more`)."""
    return json.dumps({"folder": str(folder), "kind": kind, "summary": summary,
                       "files": sorted(p.name for p in folder.iterdir() if p.is_file()),
                       **more})


def _kind(folder: Path) -> str:
    """What a results folder holds, as _render tells it (experiment, reproduce or bench)."""
    if (folder / "records.jsonl").is_file() and (folder / "config.json").is_file():
        return "experiment"
    return "reproduce" if (folder / "reproduce.json").is_file() else "bench"


def _render(folder: Path) -> str:
    if (folder / "records.jsonl").is_file() and (folder / "config.json").is_file():
        return write_report(folder)
    if (folder / "reproduce.json").is_file():
        # loaded when the command runs: keeps the start of `mcastlab` quick
        from ..reproduce.report import write

        write(folder, json.loads((folder / "reproduce.json").read_text()))
        return f"report: {folder / 'report.html'}"
    suites, left = bench.render(folder)
    if not suites and not left:
        raise UsageError(f"{folder} holds no results: no records.jsonl and config.json (an "
                         "experiment), reproduce.json (reproduce) or SUITE.json (bench)")
    lines = [f"rendered {', '.join(suites) or 'nothing'}: {folder / 'index.md'}"]
    lines += [f"  {name}.json kept as it was: this version cannot read it back ({why})"
              for name, why in left.items()]
    return "\n".join(lines)


def _experiment_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Run an experiment spec: expand its sweep, measure every point, write a "
                     "results folder with records, CSV, plots and an HTML report.")
    p.add_argument("spec", nargs="?", help="experiment spec (TOML), e.g. experiments/default.toml")
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.add_argument("--resume", metavar="FOLDER", help="measure what an interrupted run left")
    p.add_argument("--list", action="store_true",
                   help="check the spec and list its points; run nothing (no root needed)")
    p.add_argument("--reprobe", action="store_true",
                   help="bw=auto: probe the heaviest points again for the operating point, "
                        "where the cache of an earlier probe would answer")
    _results_options(p, SPEC_LOSS, SPEC_LINK)
    add_cluster_choice(p)
    add_web_options(p)
    p.set_defaults(func=cmd_experiment)


# where a spec-driven command takes its loss from (it has no --loss: docs/cli.md "Loss")
SPEC_LOSS = ("the spec's sweep.loss = [0.05] sets the loss (or a fault's action = \"loss\"), "
             "kept with the results in the folder's spec.toml, which --resume reads back")
SPEC_LINK = ("the spec's network.topology sets the links (bw=, delay_ms= of its shape, or "
             "a topology file), and its sweep.loss the loss")
FIXED_LOSS = ("{command} measures at the conditions {what} fix; a lossy broadcast is "
              "mcastlab bcast --loss P, a sweep of losses an experiment spec's sweep.loss")


def _results_options(p: argparse.ArgumentParser, loss_from: str,
                     link_from: str | None = None) -> None:
    """--json of a command that writes a results folder (the folder said as report --json
    says it), and --loss/--link refused with where its loss comes from."""
    p.add_argument("--json", action="store_true",
                   help="print the results folder as JSON: the folder, its kind, the summary "
                        "and its files")
    refused(p, "--loss", loss_from)
    refused(p, "--link", link_from or loss_from)


def add_commands(sub: argparse._SubParsersAction) -> None:
    _experiment_arguments(sub.add_parser(
        "experiment", help="run an experiment spec (TOML): every point measured, a results "
                           "folder with an HTML report ('mcastlab run SPEC.toml' before)"))

    p = sub.add_parser("testbed", help="run the default experiment (experiments/default.toml) "
                                       "and print where its report is")
    p.add_argument("--spec", help="another experiment spec instead of the default")
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    _results_options(p, SPEC_LOSS, SPEC_LINK)
    add_cluster_choice(p)
    add_web_options(p)
    p.set_defaults(func=cmd_testbed)

    p = sub.add_parser("bench", help="the benchmark suites: figures with their machine, in a "
                                     "dated folder under results/ (--suite picks one)")
    p.add_argument("--out", help=f"results root: a dated folder is made in it (default "
                                 f"{DEFAULT_ROOT})")
    p.add_argument("--publish", action="store_true",
                   help=f"update the curated {CURATED_BENCH.name}/ of this checkout instead "
                        "(the suites run replace their own files; index.md lists them all)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer repetitions")
    p.add_argument("--suite", choices=("all", "testbed", *(suite.name for suite in SUITES)),
                   default="all", help="which benchmarks (default all)")
    _results_options(p, FIXED_LOSS.format(command="bench", what="its suites"))
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("report", help="write a results folder's report, tables and figures "
                                      "again from its records (experiment, bench or "
                                      "reproduce); nothing is measured, no root needed")
    p.add_argument("folder", metavar="FOLDER",
                   help="a results folder (results/<date>-exp-NAME, a bench or reproduce "
                        "folder, or the curated bench/)")
    p.add_argument("--json", action="store_true",
                   help="print what was written as JSON: the folder, its kind, the summary "
                        "and its files")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("reproduce", help="the papers' headline claims, paper beside testbed, "
                                         "each with a verdict, in a dated folder under "
                                         "results/")
    p.add_argument("--quick", action="store_true",
                   help="a subset at small scale (about 9 minutes on 2 cores; with --scale "
                        "about 7)")
    p.add_argument("--scale", action="store_true",
                   help="instead of the ordinary claims, the scale tier: the claims about "
                        "growth with the number of nodes judged again on 64 hosts (32 where "
                        "the paper stops there), each at its host count's calibrated rate "
                        "(about 31 minutes on 2 cores; 10-14 more a host count not yet "
                        "calibrated); --list names them and the growth claims left out; "
                        "--publish writes bench/reproduce-scale")
    p.add_argument("--only", nargs="+", metavar="KEY",
                   help="these claims (keys, or a paper: nupairoj, coll, siebert, tseng, chen; "
                        "with --scale a variant's key CLAIM@HOSTS, its claim's key or a paper)")
    p.add_argument("--out", help=f"results root: a dated folder is made in it (default "
                                 f"{DEFAULT_ROOT})")
    p.add_argument("--publish", action="store_true",
                   help=f"write the curated report in {CURATED_BENCH.name}/reproduce of this "
                        "checkout instead")
    p.add_argument("--list", action="store_true", help="list the claims; run nothing")
    _results_options(p, FIXED_LOSS.format(command="reproduce", what="the papers' claims"))
    p.set_defaults(func=cmd_reproduce)
