"""`mcastlab osu bcast` for MPI_Bcast and nack side by side on one 16-host star at the
calibrated rate (--quick: 8 hosts, up to 64 KiB, 100 rounds a size): the OSU table a user
compares with the numbers they have, every row with its fidelity flags (a flagged row is
no result: it feeds no ratio). MPI_Bcast runs twice: with the ranks waiting asleep, as
every algorithm here waits, and spinning in MPICH's own waits, as OSU's C programs do."""

from __future__ import annotations

from typing import Any

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..experiments.calibration import resolve
from ..experiments.osu import run_osu
from .points import wire_s

RUNS = {"mpich": ("mpich", None), "nack": ("nack", None), "mpich-spin": ("mpich", "spin")}
LABELS = {"mpich": "MPI_Bcast", "nack": "nack", "mpich-spin": "MPI_Bcast, spinning"}


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    topo, rate = resolve("star:hosts=8" if quick else "star:hosts=16", progress)
    sizes, iters = ((1, 65536), 100) if quick else ((1, 1 << 20), None)
    out: dict[str, Any] = {"mbit": rate.mbit, "link_rate": rate.to_dict(),
                           "topology": topo.name, "runs": {}}
    with Emulation(topo, caps=caps) as emu:
        for key, (algo, wait) in RUNS.items():
            progress(f"bench osu: osu_bcast with {LABELS[key]}")
            out["runs"][key] = run_osu(emu, "bcast", algo, sizes=sizes, repetitions=iters,
                                       full=True, wait=wait, progress=progress).to_dict()
    return out


def _cell(row: dict[str, Any]) -> str:
    return f"{row['avg_us']:.2f}{'!' if row['fidelity']['flags'] else ''}"


def markdown(res: dict[str, Any]) -> list[str]:
    runs, mbit = res["runs"], res["mbit"]
    hosts = runs["mpich"]["hosts"]
    out = ["", f"`osu_bcast` (OSU micro-benchmarks {runs['mpich']['osu_version']}: its "
           f"layout and method) on a {hosts}-host star at {mbit:g} Mbit/s "
           f"({res['link_rate'].get('source', '')}); Avg Latency(us) per size; ! = flagged "
           "by the fidelity monitor (no result: it feeds no ratio). M/B: the message's time "
           "on one link.", "",
           "| Size | " + " | ".join(LABELS[a] for a in runs) + " | nack / MPI_Bcast | M/B (us) |",
           "|---" * (len(runs) + 3) + "|"]
    rows = {a: r["rows"] for a, r in runs.items()}
    for i, mine in enumerate(rows["nack"]):
        base = rows["mpich"][i]
        clean = not mine["fidelity"]["flags"] and not base["fidelity"]["flags"]
        ratio = f"{mine['avg_us'] / base['avg_us']:.2f}" if clean else "-"
        out.append(f"| {mine['size']} | " + " | ".join(_cell(rows[a][i]) for a in runs)
                   + f" | {ratio} | {wire_s(mine['size'], mbit) * 1e6:.1f} |")
    for a, (algo, wait) in RUNS.items():
        flagged = [f"{r['size']} B: {'; '.join(r['fidelity']['flags'])}" for r in rows[a]
                   if r["fidelity"]["flags"]]
        spin = f" --wait {wait}" if wait else ""
        out += ["", f"### {LABELS[a]}: `mcastlab osu bcast --algo {algo}{spin} -f --topo "
                f"star:hosts={hosts}`", "", "```", *runs[a]["lines"], "```"]
        if flagged:
            out += ["", "Flagged rows (no result):", "", *(f"- {f}" for f in flagged)]
    out += ["", "Measured with `sudo .venv/bin/mcastlab bench --suite osu`."]
    return out
