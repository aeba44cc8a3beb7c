"""The suites (``make bench``, ``mcastlab bench --suite NAME``) and the one that measures the
testbed itself (``testbed``: network start time, TCP throughput against the configured link
rate, MPI ping-pong latency). Figures go to bench/ with the machine they came from; speed
targets live in the suites, never in timed tests.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any, NamedTuple

from collectives.programs import pingpong
from topologies import parse_spec

from .. import results
from ..emulation.environment import detected
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..report.figures import formats as figure_formats
from ..safepath import make_folder
from . import (
    allgather,
    bcast,
    cluster,
    contention,
    fidelity,
    files,
    forwarding,
    groups,
    ipmc,
    labs,
    multinode,
    nack,
    osu,
    range_trees,
    scale,
    snooping_diff,
    uftp,
)
from .tcp import iperf


def _start_stop(spec: str, caps: Any) -> dict[str, float]:
    topo = parse_spec(spec)
    t0 = time.perf_counter()
    with Emulation(topo, caps=caps) as emu:
        up = time.perf_counter() - t0
        timings = dict(emu.timings)
        t1 = time.perf_counter()
    return {"start_s": up, "stop_s": time.perf_counter() - t1, **timings}


def _iperf(caps: Any, seconds: int) -> dict[str, float]:
    with Emulation(parse_spec("star:hosts=2,bw=100"), caps=caps) as emu:
        rate = iperf(emu.host(0), emu.host(1), seconds)["mbit"]
    return {"configured_mbit": 100.0, "measured_mbit": rate, "fraction": rate / 100.0}


def _pingpong(caps: Any, reps: int) -> dict[str, Any]:
    topo = parse_spec("star:hosts=2,bw=100")
    out: dict[str, Any] = {}
    with Emulation(topo, caps=caps) as emu:
        for size in (1, 65536):
            rec = emu.run_dir / f"pp-{size}.jsonl"
            run_mpi(emu, pingpong.argv(out=rec, lat_bytes=size, reps=reps, bw_bytes=1 << 20))
            out[f"{size}B"] = results.read_jsonl(rec)[0]["latency_us"]
    return out


class Suite(NamedTuple):
    name: str        # --suite NAME, and the stem of the files it writes
    module: Any      # run, markdown, optional plot (the package docstring)
    title: str


SUITES = (Suite("forwarding", forwarding, "multicast forwarding"),
          Suite("groups", groups, "thousands of groups"),
          Suite("snooping", snooping_diff, "snooping differences"),
          Suite("bcast", bcast, "broadcast"),
          Suite("ipmc", ipmc, "IP-multicast collectives"),
          Suite("range", range_trees, "hardware range-multicast trees"),
          Suite("contention", contention, "contention-aware trees"),
          Suite("multinode", multinode, "multi-node multicast"),
          Suite("allgather", allgather, "Allgather"),
          Suite("fidelity", fidelity, "fidelity"),
          Suite("nack", nack, "nack at the physical limit"),
          Suite("uftp", uftp, "nack against UFTP"),
          Suite("osu", osu, "OSU micro-benchmarks"),
          Suite("cluster", cluster, "across servers"),
          Suite("labs", labs, "teaching labs' measurements"),
          Suite("scale", scale, "what limits the host count"))


TESTBED = "testbed"  # the suite of results.md, run before the SUITES


def planned(suite: str = "all") -> list[str]:
    """The suites `run` measures for `suite`, in order (the testbed suite first)."""
    return ([TESTBED] if suite in ("all", TESTBED) else []) + [
        name for name, _, _ in SUITES if suite in ("all", name)]


def run(out_dir: Path, *, quick: bool = False, progress: Progress = print,
        suite: str = "all", step: Progress | None = None) -> Path:
    """Run the benchmarks and write results.md (testbed suite), forwarding.md (multicast
    forwarding), bcast.md (point-to-point broadcasts), ipmc.md (IP-multicast collectives) and
    range.md (range-multicast trees around failed nodes), contention.md (contention-aware
    trees on the mesh and BMIN), multinode.md (partitioned multi-node multicast) and
    fidelity.md (idle ranks, forwarding cost, the keep-up envelope) and nack.md (nack against
    M/B and under loss). `step(name)` is called as each suite (of `planned`) begins."""
    caps = detected()
    caps.require()
    make_folder("results folder", out_dir)
    if suite in ("all", TESTBED):
        if step is not None:
            step(TESTBED)
        _testbed_suite(out_dir, caps, quick, progress)
    for name, module, title in SUITES:
        if suite not in ("all", name):
            continue
        if step is not None:
            step(name)
        res = {"date": time.strftime("%Y-%m-%d %H:%M"), "versions": results.versions(),
               "datapath": caps.datapath, "quick": quick,
               **module.run(caps, progress, quick=quick)}
        (out_dir / f"{name}.json").write_text(json.dumps(res, indent=1) + "\n")
        write_suite(out_dir, Suite(name, module, title), res, _machine_line(caps))
    return write_index(out_dir)


def write_suite(out_dir: Path, suite: Suite, res: dict[str, Any], machine: str) -> Path:
    """SUITE.md, SUITE.csv and the figure (PNG, SVG, PDF) from the suite's result `res`; the
    page links the formats written ($MCASTLAB_FIGURE_FORMATS may leave SVG and PDF out)."""
    name, module = suite.name, suite.module
    body = module.markdown(res)  # first: a result it cannot read changes no file
    lines = [f"# mcastlab {suite.title} bench, {res.get('date') or 'date not recorded'}",
             machine, *body]
    if files.write_csv(res, out_dir / f"{name}.csv"):
        lines += ["", f"Every row: [{name}.csv]({name}.csv)."]
    if hasattr(module, "plot"):
        module.plot(res, out_dir / f"{name}.png")
        also = [f"[{fmt.upper()}]({name}.{fmt})" for fmt in figure_formats() if fmt != "png"]
        lines += ["", f"![{name}]({name}.png)" + (f" (also {', '.join(also)})" if also else "")]
    md = out_dir / f"{name}.md"
    md.write_text("\n".join(lines) + "\n")
    return md


def render(out_dir: Path) -> tuple[list[str], dict[str, str]]:
    """Write every suite's page, CSV and figure again from the SUITE.json a benchmark folder
    holds (no network, nothing measured), then index.md. Returns the suites rendered and,
    for each suite this version cannot read back (a result of an older shape), why: its
    files stay as they were. A result of a run before results carried their date and
    machine keeps what its page said of them."""
    done, left = [], {}
    if (out_dir / "results.json").is_file():
        report = json.loads((out_dir / "results.json").read_text())
        write_testbed_page(out_dir, report, _said(out_dir / "results.md", report)[1])
        done.append("testbed")
    for suite in SUITES:
        path = out_dir / f"{suite.name}.json"
        if not path.is_file():
            continue
        try:
            res = json.loads(path.read_text())
            date, machine = _said(out_dir / f"{suite.name}.md", res)
            write_suite(out_dir, suite, {**res, "date": date}, machine)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            left[suite.name] = f"{type(exc).__name__}: {exc}"
            continue
        done.append(suite.name)
    write_index(out_dir)
    return done, left


def _said(page: Path, res: dict[str, Any]) -> tuple[str | None, str]:
    """The date and machine line its page's head gave a result (a page says when it was
    written, its result when the run began), else the result's own."""
    head = page.read_text().splitlines()[:2] if page.is_file() else []
    date = head[0].rsplit(", ", 1)[1] if head and ", " in head[0] else res.get("date")
    machine = head[1] if len(head) > 1 and head[1].startswith("machine:") else _machine_of(res)
    return date, machine


def write_index(out_dir: Path) -> Path:
    """index.md: every suite's report the folder holds, in the suites' order (a curated
    folder keeps the suites not run this time: one suite's run must not make index.md a
    copy of its own report)."""
    pages = [out_dir / "results.md", *(out_dir / f"{s.name}.md" for s in SUITES)]
    index = out_dir / "index.md"
    index.write_text("\n\n".join(p.read_text() for p in pages if p.exists()))
    return index


def _machine_line(caps: Any) -> str:
    return _machine_of({"versions": results.versions(), "datapath": caps.datapath})


def _machine_of(res: dict[str, Any]) -> str:
    v = res.get("versions") or {}
    if not v.get("machine"):
        return "machine: not recorded"
    return (f"machine: {v['machine']}, {v.get('cpus')} x {v.get('cpu_model')}, kernel "
            f"{v.get('kernel')}, OVS datapath {res.get('datapath')}")


def _testbed_suite(out_dir: Path, caps: Any, quick: bool, progress: Progress) -> Path:
    repeats = 1 if quick else 3
    sizes = ["star:hosts=8", "star:hosts=16"] + ([] if quick else
                                                 ["star:hosts=64", "mesh:rows=8,cols=8"])
    report: dict[str, Any] = {"versions": results.versions(), "datapath": caps.datapath,
                              "date": time.strftime("%Y-%m-%d %H:%M"), "start": {}}
    for spec in sizes:
        runs = []
        for i in range(repeats):
            progress(f"bench: start/stop {spec} ({i + 1}/{repeats})")
            runs.append(_start_stop(spec, caps))
        report["start"][spec] = {
            "start_s_median": statistics.median(r["start_s"] for r in runs),
            "stop_s_median": statistics.median(r["stop_s"] for r in runs),
            "runs": runs}
    progress("bench: iperf3 TCP over 100 Mbit/s links")
    report["iperf3"] = [_iperf(caps, 3 if quick else 10) for _ in range(repeats)]
    progress("bench: MPI ping-pong 1 B and 64 KiB")
    report["pingpong"] = _pingpong(caps, 50 if quick else 200)

    results.write_json(out_dir / "results.json", report)
    return write_testbed_page(out_dir, report, _machine_line(caps))


def write_testbed_page(out_dir: Path, report: dict[str, Any], machine: str) -> Path:
    """results.md and results.csv of the testbed suite from its result."""
    files.write_csv(report, out_dir / "results.csv")
    lines = [f"# mcastlab bench, {report['date']}", machine, "",
             "| network | start (median s) | stop (median s) |", "|---|---|---|"]
    lines += [f"| {k} | {r['start_s_median']:.2f} | {r['stop_s_median']:.2f} |"
              for k, r in report["start"].items()]
    fr = statistics.median(r["fraction"] for r in report["iperf3"])
    mb = statistics.median(r["measured_mbit"] for r in report["iperf3"])
    lines += ["", f"iperf3 TCP, one flow, 100 Mbit/s links: {mb:.1f} Mbit/s = {fr:.0%} of "
              "the configured rate (median)", ""]
    for size, lat in report["pingpong"].items():
        lines.append(f"MPI ping-pong {size}: one-way latency median {lat['median']:.0f} us "
                     f"(p10 {lat['p10']:.0f}, p90 {lat['p90']:.0f})")
    md = out_dir / "results.md"
    md.write_text("\n".join(lines) + "\n")
    return md
