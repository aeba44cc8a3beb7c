"""Broadcast benchmark (``mcastlab bench --suite bcast``): on a 16-host star at 100 Mbit/s,
measured t_hold/t_end, then every tree and MPICH's MPI_Bcast at 1 B, 1 KiB, 64 KiB and
1 MiB, measured median against the t_hold/t_end model's prediction; a table and a plot."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from collectives.algorithms import names
from collectives.call import BcastCall
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..measure.bcast import run_bcast
from ..measure.options import RunOptions
from ..measure.params import measure_params
from ..report.figures import pyplot, save_figure
from .files import caption

SIZES = (1, 1024, 65536, 1 << 20)
FLOW_MAX = 65536  # the flow-latency benchmark (k-1 responders) only up to this size


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    hosts = 8 if quick else 16
    sizes = (1, 65536) if quick else SIZES
    spec = f"star:hosts={hosts},bw=100"
    out: dict[str, Any] = {"topology": spec, "sizes": list(sizes), "rows": []}
    with Emulation(parse_spec(spec), caps=caps) as emu:
        progress("bench: t_hold/t_end (Ping, PingPong, dummy loop)")
        params = measure_params(emu, sorted({*sizes, 16384, 262144}), repetitions=3 if quick else 5)
        out["params"] = params
        for size in sizes:
            for alg in names("mpi", "tree"):
                progress(f"bench: {alg} {size} B on {hosts} hosts")
                iters = 5 if size >= (1 << 20) else (10 if quick else 20)
                res = run_bcast(emu, BcastCall(alg, size, options={"fragment": 16384}),
                                RunOptions(repetitions=iters, flow=size <= FLOW_MAX, params=params))
                out["rows"].append(res.to_dict())
        out["scaling"] = _scaling(emu, params, progress, (2, 8) if quick else (2, 4, 8, 16))
    return out


def _scaling(emu: Emulation, params: dict[str, Any], progress: Progress,
             counts: tuple[int, ...]) -> list[dict[str, Any]]:
    """1 B chain and binomial on 2..N ranks of the same star: the model's miss against the
    number of ranks per core, and against how the waiting ranks wait (spin or sleep)."""
    rows = []
    for n in counts:
        for alg in ("chain", "binomial"):
            for wait in ("spin", "sleep") if n == counts[-1] else ("spin",):
                progress(f"bench: scaling {alg} 1 B on {n} ranks ({wait})")
                rows.append(run_bcast(emu, BcastCall(alg, 1),
                                      RunOptions(hosts=n, repetitions=20, flow=False,
                                                 params=params, wait=wait)).to_dict())
    return rows


def markdown(res: dict[str, Any]) -> list[str]:
    p = res["params"]
    lines = ["", f"Point-to-point parameters on {res['topology']} (medians, us):", "",
             "| bytes | t_hold (sustained) | send returns | t_end |", "|---|---|---|---|"]
    back = p.get("t_hold_return_s") or [None] * len(p["sizes"])
    lines += [f"| {m} | {h * 1e6:.1f} | {'-' if r is None else f'{r * 1e6:.1f}'} "
              f"| {e * 1e6:.1f} |"
              for m, h, r, e in zip(p["sizes"], p["t_hold_s"], back, p["t_end_s"], strict=True)]
    lines += ["", "Broadcast t_mcast, measured median (shared clock) / flow-latency benchmark "
              "/ t_hold-t_end model, ms:", "",
              "| algorithm | " + " | ".join(f"{s} B" for s in res["sizes"]) + " |",
              "|---" * (len(res["sizes"]) + 1) + "|"]
    by = {(r["algorithm"], r["size"]): r for r in res["rows"]}
    for alg in dict.fromkeys(r["algorithm"] for r in res["rows"]):
        cells = []
        for s in res["sizes"]:
            r = by[(alg, s)]
            flow = f"{r['flow']['t_mcast_s'] * 1e3:.2f}" if r.get("flow") else "-"
            pred = f"{r['predicted_s'] * 1e3:.2f}" if r["predicted_s"] is not None else "-"
            ok = "" if r["verified"] else " (WRONG BYTES)"
            cells.append(f"{r['t_mcast_s']['median'] * 1e3:.2f} / {flow} / {pred}{ok}")
        lines.append(f"| {alg} | " + " | ".join(cells) + " |")
    for s in res["sizes"]:
        rows = [r for r in res["rows"] if r["size"] == s]
        best = min(rows, key=lambda r: r["t_mcast_s"]["median"])
        basic = [r for r in rows if r["algorithm"] in ("sequential", "binomial", "chain",
                                                        "binary")]
        opt = next(r for r in rows if r["algorithm"] == "opt-tree")
        bb = min(basic, key=lambda r: r["t_mcast_s"]["median"])
        lines.append(f"\n{s} B: fastest {best['algorithm']}; opt-tree "
                     f"{opt['t_mcast_s']['median'] * 1e3:.2f} ms vs best basic tree "
                     f"({bb['algorithm']}) {bb['t_mcast_s']['median'] * 1e3:.2f} ms.")
    gaps = [r["flow_vs_direct"] for r in res["rows"] if r.get("flow_vs_direct") is not None]
    if gaps:
        lines.append(f"\nFlow-latency benchmark against the shared clock: median "
                     f"{statistics.median(gaps) * 100:+.0f}% (from {min(gaps) * 100:+.0f}% to "
                     f"{max(gaps) * 100:+.0f}%) over {len(gaps)} experiments.")
    if res.get("scaling"):
        lines += ["", "Where the model misses: 1 B broadcasts on 2..N ranks of the same star "
                  "(2 cores). on CPU = share of their time in the broadcast the ranks were "
                  "running; busy = the machine's busy share while measuring:", "",
                  "| algorithm | ranks | wait | measured ms | model ms | measured/model "
                  "| on CPU | busy |", "|---|---|---|---|---|---|---|---|"]
        for r in res["scaling"]:
            meas, pred, cpu = r["t_mcast_s"]["median"], r["predicted_s"], r.get("cpu") or {}
            ratio = f"{meas / pred:.1f}" if pred else "-"
            cores = f"{cpu['on_cpu']:.0%}" if cpu.get("on_cpu") is not None else "-"
            busy = f"{cpu['busy'] * 100:.0f}%" if cpu.get("busy") is not None else "-"
            lines.append(f"| {r['algorithm']} | {r['hosts']} | {r['wait']} | {meas * 1e3:.2f} "
                         f"| {pred * 1e3:.2f} | {ratio} | {cores} | {busy} |")
    return lines


def plot(res: dict[str, Any], path: Path) -> None:
    """Measured medians (whiskers p10 to p90) beside the model's prediction, per size."""
    plt = pyplot()

    sizes = res["sizes"]
    fig, axes = plt.subplots(1, len(sizes), figsize=(4 * len(sizes), 4), squeeze=False)
    for ax, s in zip(axes[0], sizes, strict=True):
        rows = [r for r in res["rows"] if r["size"] == s]
        names = [r["algorithm"] for r in rows]
        meas = [r["t_mcast_s"]["median"] * 1e3 for r in rows]
        err = [[max(0.0, m - r["t_mcast_s"].get("p10", r["t_mcast_s"]["median"]) * 1e3)
                for m, r in zip(meas, rows, strict=True)],
               [max(0.0, r["t_mcast_s"].get("p90", r["t_mcast_s"]["median"]) * 1e3 - m)
                for m, r in zip(meas, rows, strict=True)]]
        pred = [(r["predicted_s"] or 0) * 1e3 for r in rows]
        x = range(len(rows))
        ax.bar([i - 0.2 for i in x], meas, 0.4, yerr=err, capsize=2,
               label="measured (median, p10-p90)")
        ax.bar([i + 0.2 for i in x], pred, 0.4, label="model")
        ax.set_xticks(list(x), names, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"{s} B")
        ax.set_ylabel("t_mcast (ms)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"Broadcast on {res['topology']}")
    fig.tight_layout()
    save_figure(plt, fig, path, caption(res))
