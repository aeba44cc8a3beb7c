"""Allgather against its floor (``mcastlab bench --suite allgather``, bench/allgather.md):
every registry Allgather with blocks of 1 KiB, 16 KiB and 256 KiB per rank on a 16-host star
and on a 16-host 4-ary 2-tree whose switch links run at half the host rate (2:1
oversubscribed), both at this machine's calibrated rate for 16 hosts, lossless and at 1 %
and 5 % loss of every packet on every host link. Times in multiples of the floor (p - 1) m / B
(collectives.exchanges.model), each point with its fidelity flags (a flagged point feeds no
ratio and no "fastest").

Issue 39's aims: a multicast Allgather within 1.3 x the floor at 256 KiB lossless, and within
2 x its own lossless time at 5 % loss; and the block size from which a multicast Allgather is
the fastest (or that it is not, with why).
"""

from __future__ import annotations

from typing import Any

from collectives.algorithms import ALLGATHERS
from collectives.call import AllgatherCall
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..errors import RunFailed
from ..experiments.calibration import resolve
from ..measure.allgather import model_sizes, run_allgather
from ..measure.options import RunOptions
from ..measure.params import model_params

BLOCKS = (1024, 16384, 262144)
LOSSES = (0.0, 0.01, 0.05)
FLOOR_GOAL, LOSS_GOAL = 1.3, 2.0
GOAL_BLOCK = 262144
JOB_TIMEOUT_S = 900.0


def networks(mbit: float, quick: bool) -> list[tuple[str, str]]:
    """(label, spec) of the networks measured, at `mbit` on the host links."""
    star = ("star", f"star:hosts={8 if quick else 16},bw={mbit:g}")
    if quick:
        return [star]
    return [star, ("fat tree 2:1", f"fattree:k=4,n=2,bw={mbit:g},core_bw={mbit / 2:g}")]


def _rows(emu: Emulation, label: str, call: AllgatherCall, blocks: tuple[int, ...],
          loss: float, repetitions: int, params: dict[str, Any] | None
          ) -> list[dict[str, Any]]:
    head = {"network": label, "topology": emu.topo.name, "algorithm": call.algorithm,
            "loss": loss, "family": call.record.family}
    try:
        results = run_allgather(emu, call, blocks,
                                RunOptions(repetitions=repetitions, params=params, loss=loss,
                                           timeout=JOB_TIMEOUT_S))
    except RunFailed as exc:
        return [head | {"block": b, "ms": None, "error": str(exc)[-500:]} for b in blocks]
    return [head | {"block": r.block, "ms": r.t.median * 1e3, "p10_ms": r.t.p10 * 1e3,
                    "p90_ms": r.t.p90 * 1e3, "per_floor": r.per_floor,
                    "floor_ms": None if r.floor_s is None else r.floor_s * 1e3,
                    "predicted_ms": None if r.predicted_s is None else r.predicted_s * 1e3,
                    "verified": r.verified, "flags": r.fidelity.get("flags") or []}
            for r in results]


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    _star, rate = resolve("star:hosts=8" if quick else "star:hosts=16", progress)
    assert rate.mbit is not None  # a shape without bw is calibrated: a rate
    blocks = BLOCKS[:2] if quick else BLOCKS
    losses = (0.0, 0.05) if quick else LOSSES
    out: dict[str, Any] = {"mbit": rate.mbit, "link_rate": rate.to_dict(), "blocks": blocks,
                           "rows": []}
    for label, spec in networks(rate.mbit, quick):
        with Emulation(parse_spec(spec), caps=caps) as emu:
            progress(f"bench allgather: t_end on {emu.topo.name} for the model")
            params = model_params(emu, *model_sizes(blocks, len(emu.topo.hosts)))
            for loss in losses:
                for algorithm in ALLGATHERS:
                    progress(f"bench allgather: {algorithm} on {label}, loss {loss:.0%}")
                    out["rows"] += _rows(emu, label, AllgatherCall(algorithm), blocks, loss,
                                         (3 if quick else 5) if loss else
                                         (5 if quick else 10), params)
    return out


# ---- markdown -----------------------------------------------------------------------------
def is_result(row: dict[str, Any] | None) -> bool:
    return row is not None and row["ms"] is not None and not row["flags"] and row["verified"]


def _cell(row: dict[str, Any] | None, best: bool) -> str:
    if row is None:
        return "-"
    if row["ms"] is None:
        return "failed"
    text = f"{row['per_floor']:.2f}" if row.get("per_floor") else f"{row['ms']:.1f} ms"
    return f"**{text}**" if best else text + ("!" if row["flags"] else "")


def crossover(rows: list[dict[str, Any]]) -> str:
    """From which block a multicast Allgather is the fastest unflagged one, per network and
    loss, or that it never is at these blocks."""
    lines = []
    for net in dict.fromkeys(r["network"] for r in rows):
        for loss in dict.fromkeys(r["loss"] for r in rows):
            wins = []
            for block in sorted({r["block"] for r in rows}):
                at = [r for r in rows if (r["network"], r["loss"], r["block"]) ==
                      (net, loss, block) and is_result(r)]
                if at and min(at, key=lambda r: r["ms"])["family"] == "multicast":
                    wins.append(block)
            lines.append(f"- {net}, loss {loss:.0%}: " + (
                f"a multicast Allgather is fastest from {wins[0]} B" if wins else
                "no multicast Allgather is the fastest at any block measured"))
    return "\n".join(lines)


def goals(rows: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rows:
        if r["family"] != "multicast" or r["block"] != GOAL_BLOCK:
            continue
        if r["loss"] == 0.0 and r["network"] == "star":
            met = "met" if is_result(r) and r["per_floor"] <= FLOOR_GOAL else "not met"
            state = f"{r['per_floor']:.2f} x floor: {met}" if is_result(r) else "-"
            out.append(f"- {r['algorithm']}, star, lossless, 256 KiB (goal <= {FLOOR_GOAL} x "
                       f"floor): {state}")
        if r["loss"] == 0.05:
            base = next((b for b in rows if (b["network"], b["algorithm"], b["block"],
                                             b["loss"]) == (r["network"], r["algorithm"],
                                                            r["block"], 0.0)), None)
            ok = is_result(r) and is_result(base)
            ratio = r["ms"] / base["ms"] if ok and base else None
            out.append(f"- {r['algorithm']}, {r['network']}, 5 % loss / lossless, 256 KiB "
                       f"(goal <= {LOSS_GOAL}): " + ("-" if ratio is None else
                       f"{ratio:.2f}: {'met' if ratio <= LOSS_GOAL else 'not met'}"))
    return out or [f"- no multicast Allgather measured at {GOAL_BLOCK} B: nothing to judge"]


def markdown(res: dict[str, Any]) -> list[str]:
    rows = res["rows"]
    algos = list(dict.fromkeys(r["algorithm"] for r in rows))
    out = ["", f"Host links at {res['mbit']:g} Mbit/s ({res['link_rate'].get('source', '')});"
           " each cell the median in multiples of the floor (p-1)m/B (bold: fastest "
           "unflagged; ! flagged by the fidelity monitor: no result); 10 runs lossless, 5 "
           "under loss."]
    for net in dict.fromkeys(r["network"] for r in rows):
        for loss in dict.fromkeys(r["loss"] for r in rows):
            out += ["", f"## {net} ({next(r['topology'] for r in rows if r['network'] == net)})"
                    f", loss {loss:.0%}", "",
                    "| block | floor ms | " + " | ".join(algos) + " |",
                    "|---" * (len(algos) + 2) + "|"]
            for block in sorted({r["block"] for r in rows}):
                at = {r["algorithm"]: r for r in rows if (r["network"], r["loss"],
                                                          r["block"]) == (net, loss, block)}
                good = [r for r in at.values() if is_result(r)]
                best = min(good, key=lambda r: r["ms"]) if good else None
                floor = next((r["floor_ms"] for r in at.values() if r.get("floor_ms")), None)
                out.append(f"| {block} | {'-' if floor is None else f'{floor:.2f}'} | "
                           + " | ".join(_cell(at.get(a), at.get(a) is best) for a in algos)
                           + " |")
    failed = [r for r in rows if r["ms"] is None]
    wrong = [r for r in rows if r["ms"] is not None and not r["verified"]]
    out += ["", "## Where multicast wins", "", crossover(rows), "", "## Goals", "",
            *goals(rows)]
    if failed:
        out += ["", "Points without a result:",
                *(f"- {r['algorithm']} {r['block']} B on {r['network']}, loss "
                  f"{r['loss']:.0%}: {r.get('error', '')}" for r in failed)]
    out += ["", f"Every rank's blocks checked: {wrong or 'all correct'}.",
            "", "Measured with `sudo .venv/bin/mcastlab bench --suite allgather`."]
    return out
