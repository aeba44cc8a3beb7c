"""IP-multicast collectives benchmark (``mcastlab bench --suite ipmc``), on stars at 100 Mbit/s:

- Chen2000's experiment: 3, 4, 6, 9 hosts, 100 B to 8 KiB, the multicast algorithms against
  MPICH's MPI_Bcast and binomial; frames per broadcast against the paper's formulas;
- Siebert2006's headline: 64 KiB on 2 to 32 hosts, T(32)/T(2) per algorithm;
- 1 MiB on 16 hosts, each algorithm's time over M/B (the physical limit);
- a loss sweep on 16 hosts at 64 KiB: time and repaired fragments per algorithm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from collectives.algorithms import names
from collectives.call import BcastCall
from collectives.ipmc import scout_frames, tree_frames
from collectives.programs import barrier_bench
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..measure.bcast import run_bcast
from ..measure.options import RunOptions
from ..report.figures import pyplot, save_figure
from .files import caption

BW = 100e6
FRAME = 1500  # the paper's T: the largest frame's payload, in its frame formulas
CHEN2000_HOSTS = (3, 4, 6, 9)
CHEN2000_SIZES = (100, 1000, 1500, 3000, 8192)
CHEN2000_ALGOS = ("mpich", "binomial", "scout-linear", "scout-binary", "two-stage", "nack")
SCALE_HOSTS = (2, 4, 8, 16, 32)
SCALE_ALGOS = ("mpich", "binomial", "two-stage", "nack")
BIG_ALGOS = ("mpich", "binomial", "chain", "fragmented-chain", "scout-linear", "scout-binary",
             "two-stage", "nack")
LOSSES = (0.0, 0.01, 0.05, 0.10, 0.30)
LOSS_ALGOS = ("binomial", "scout-binary", "two-stage", "nack")
# MPI_Barrier against Chen2000's multicast barrier: the registry's barriers of these families
BARRIERS = names("mpi", "multicast", collective="barrier")
MPI_BARRIER, MCAST_BARRIER = BARRIERS


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"bw_mbit": BW / 1e6}
    hosts4 = (3, 4) if quick else CHEN2000_HOSTS
    sizes4 = (100, 3000) if quick else CHEN2000_SIZES
    with Emulation(parse_spec(f"star:hosts={max(hosts4)},bw=100"), caps=caps) as emu:
        rows = []
        for n in hosts4:
            for size in sizes4:
                for alg in CHEN2000_ALGOS:
                    progress(f"bench: Chen2000, {alg} {size} B on {n} hosts")
                    rows.append(_one(emu, alg, size, n, iters=20))
        out["chen2000"] = rows
        out["barrier"] = []
        for n in hosts4:
            progress(f"bench: barriers on {n} hosts")
            res = run_mpi(emu, barrier_bench.argv(algorithms=BARRIERS), hosts=list(range(n)),
                          timeout=300)
            out["barrier"] += json.loads(res.rank_output[0].strip().splitlines()[-1])["rows"]
    scale = (2, 8) if quick else SCALE_HOSTS
    with Emulation(parse_spec(f"star:hosts={max(scale)},bw=100"), caps=caps) as emu:
        rows = []
        for n in scale:
            for alg in SCALE_ALGOS:
                progress(f"bench: 64 KiB, {alg} on {n} hosts")
                rows.append(_one(emu, alg, 65536, n, iters=10))
        out["scaling"] = rows
        big_hosts = min(16, max(scale))
        rows = []
        for alg in BIG_ALGOS:
            progress(f"bench: 1 MiB, {alg} on {big_hosts} hosts")
            rows.append(_one(emu, alg, 1 << 20, big_hosts, iters=5, frames=2))
        out["big"] = rows
        rows = []
        for loss in (0.0, 0.05) if quick else LOSSES:
            for alg in LOSS_ALGOS:
                progress(f"bench: 64 KiB, {alg} on {big_hosts} hosts, {loss:.0%} multicast loss")
                rows.append(_one(emu, alg, 65536, big_hosts, iters=10, loss=loss))
        out["loss"] = rows
    return out


def _one(emu: Emulation, alg: str, size: int, hosts: int, iters: int, frames: int = 10,
         loss: float = 0.0) -> dict[str, Any]:
    return run_bcast(emu, BcastCall(alg, size),
                     RunOptions(hosts=hosts, repetitions=iters, flow=False,
                                frames=frames, loss=loss, loss_scope="multicast")).to_dict()


def _ms(r: dict[str, Any]) -> float:
    return r["t_mcast_s"]["median"] * 1e3


def _frames(r: dict[str, Any]) -> str:
    return f"{r['frames']['sent']:.1f}" if r.get("frames") else "-"


def markdown(res: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    rows = res["chen2000"]
    algos = list(dict.fromkeys(r["algorithm"] for r in rows))
    lines += ["", "Chen2000's experiment on a star at 100 Mbit/s: median t_mcast in ms, and "
              "frames sent by hosts per broadcast (measured on the switch ports; seed formula "
              "in brackets: (M/T+1)(N-1) for a tree, (N-1)+M/T+1 with scouts, T = 1500):", "",
              "| hosts | bytes | " + " | ".join(algos) + " |", "|---" * (len(algos) + 2) + "|"]
    by = {(r["hosts"], r["size"], r["algorithm"]): r for r in rows}
    for n, size in dict.fromkeys((r["hosts"], r["size"]) for r in rows):
        cells = []
        for a in algos:
            r = by[(n, size, a)]
            formula = (scout_frames(size, FRAME, n) if a.startswith("scout")
                       else tree_frames(size, FRAME, n) if a == "binomial" else None)
            f = _frames(r) + (f" [{formula}]" if formula is not None else "")
            cells.append(f"{_ms(r):.2f} / {f}")
        lines.append(f"| {n} | {size} | " + " | ".join(cells) + " |")
    lines += ["", *_crossovers(rows)]

    if res.get("barrier"):
        lines += ["", "Barriers (last entry to last exit, median us; p10-p90), and how many "
                  "ranks were released by the point-to-point safety net instead of the "
                  "multicast:", "", "| hosts | mpich | mcast | p2p releases |",
                  "|---|---|---|---|"]
        by_n: dict[int, dict[str, Any]] = {}
        for r in res["barrier"]:
            by_n.setdefault(r["ranks"], {})[r["algorithm"]] = r

        def us(r: dict[str, Any]) -> str:
            t = r["t_barrier_s"]
            return f"{t['median'] * 1e6:.0f} ({t['p10'] * 1e6:.0f}-{t['p90'] * 1e6:.0f})"

        for n, pair in by_n.items():
            m = pair[MCAST_BARRIER]
            lines.append(f"| {n} | {us(pair[MPI_BARRIER])} | {us(m)} | "
                         f"{m['p2p_releases']} of {m['iterations'] * (n - 1)} |")

    rows = res["scaling"]
    lines += ["", "64 KiB from 2 to 32 hosts (Siebert2006's headline), median ms:", "",
              "| algorithm | " + " | ".join(f"{n} hosts" for n in
                                              dict.fromkeys(r["hosts"] for r in rows))
              + " | T(max)/T(2) |", "|---" * (len({r["hosts"] for r in rows}) + 2) + "|"]
    for a in dict.fromkeys(r["algorithm"] for r in rows):
        mine = [r for r in rows if r["algorithm"] == a]
        ratio = _ms(mine[-1]) / _ms(mine[0])
        lines.append(f"| {a} | " + " | ".join(f"{_ms(r):.1f}" for r in mine)
                     + f" | {ratio:.2f} |")

    rows = res["big"]
    limit = 8 * (1 << 20) / BW * 1e3
    lines += ["", f"1 MiB on {rows[0]['hosts']} hosts: time over M/B = {limit:.1f} ms "
              "(the physical limit), frames sent per broadcast:", "",
              "| algorithm | median ms | / (M/B) | frames |", "|---|---|---|---|"]
    lines += [f"| {r['algorithm']} | {_ms(r):.1f} | {_ms(r) / limit:.2f} | {_frames(r)} |"
              for r in rows]

    rows = res["loss"]
    losses = list(dict.fromkeys(r["loss"] for r in rows))
    lines += ["", f"Loss sweep, 64 KiB on {rows[0]['hosts']} hosts, multicast datagrams "
              "dropped each way on every host link: median ms / fragments repaired per "
              "broadcast (all ranks):", "",
              "| algorithm | " + " | ".join(f"{x:.0%}" for x in losses) + " |",
              "|---" * (len(losses) + 1) + "|"]
    for a in dict.fromkeys(r["algorithm"] for r in rows):
        cells = []
        for x in losses:
            r = next(r for r in rows if r["algorithm"] == a and r["loss"] == x)
            rep = (r.get("datagrams") or {}).get("per_broadcast", {}).get("repaired")
            cells.append(f"{_ms(r):.1f} / {rep:.1f}" if rep is not None else f"{_ms(r):.1f}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    wrong = [r for part in ("chen2000", "scaling", "big", "loss") for r in res[part]
             if not r["verified"]]
    verdict = "all correct" if not wrong else f"{len(wrong)} runs WRONG"
    lines += ["", f"Every rank's bytes checked in every run: {verdict}."]
    return lines


def _crossovers(rows: list[dict[str, Any]]) -> list[str]:
    """Per host count: the smallest size from which each multicast algorithm beats both
    MPI_Bcast and binomial."""
    out = []
    for n in dict.fromkeys(r["hosts"] for r in rows):
        mine = [r for r in rows if r["hosts"] == n]
        parts = []
        for a in ("scout-linear", "scout-binary", "two-stage", "nack"):
            wins = [r["size"] for r in mine if r["algorithm"] == a and _ms(r) < min(
                _ms(x) for x in mine if x["size"] == r["size"]
                and x["algorithm"] in ("mpich", "binomial"))]
            parts.append(f"{a} from {min(wins)} B" if wins else f"{a} never")
        out.append(f"{n} hosts: beats MPI_Bcast and binomial: " + "; ".join(parts) + ".")
    return out


def _line(ax: Any, rows: list[dict[str, Any]], x: str, scale: float = 1.0) -> None:
    """One line per algorithm: medians with p10-p90 whiskers."""
    for a in dict.fromkeys(r["algorithm"] for r in rows):
        mine = [r for r in rows if r["algorithm"] == a]
        ys = [_ms(r) for r in mine]
        err = [[max(0.0, y - r["t_mcast_s"].get("p10", r["t_mcast_s"]["median"]) * 1e3)
                for y, r in zip(ys, mine, strict=True)],
               [max(0.0, r["t_mcast_s"].get("p90", r["t_mcast_s"]["median"]) * 1e3 - y)
                for y, r in zip(ys, mine, strict=True)]]
        ax.errorbar([r[x] * scale for r in mine], ys, yerr=err, marker="o", capsize=2,
                    label=a)


def plot(res: dict[str, Any], path: Path) -> None:
    plt = pyplot()

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    rows = [r for r in res["chen2000"] if r["hosts"] == max(r["hosts"] for r in res["chen2000"])]
    _line(axes[0], rows, "size")
    axes[0].set(xlabel="bytes", ylabel="t_mcast (ms)", xscale="log",
                title=f"Chen2000: {rows[0]['hosts']} hosts")
    _line(axes[1], res["scaling"], "hosts")
    axes[1].set(xlabel="hosts", ylabel="t_mcast (ms)", xscale="log", yscale="log",
                title="64 KiB")
    ns = sorted({r["hosts"] for r in res["scaling"]})
    axes[1].set_xticks(ns, [str(n) for n in ns])
    axes[1].minorticks_off()
    _line(axes[2], res["loss"], "loss", 100)
    axes[2].set(xlabel="multicast loss per link direction (%)", ylabel="t_mcast (ms)",
                title="64 KiB, 16 hosts")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(plt, fig, path, caption(res))
