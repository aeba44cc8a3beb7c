"""nack and two-stage against a real reliable-multicast peer (``mcastlab bench --suite
uftp``, written to bench/uftp.md): UFTP (Debian's uftp, testbed.emulation.uftp_peer) sends the same
number of bytes from one host to 15 on the same 16-host star at the calibrated rate, at 0,
1 and 5 % loss of every packet on every host link: time, multiple of M/B, and frames the
hosts put on their links per transfer. Every point carries its fidelity flags (the
monitor watches each run)."""

from __future__ import annotations

import statistics
import time
from typing import Any

from collectives.call import BcastCall

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..emulation.uftp_peer import transfer
from ..errors import RunFailed
from ..experiments.calibration import resolve
from ..fidelity.flags import Monitor
from ..measure.options import RunOptions
from .points import flagged_bcast, wire_s

SIZES = (1 << 20, 8 << 20)
LOSSES = (0.0, 0.01, 0.05)
ALGOS = ("nack", "two-stage")
HOSTS = 16
POINT_TIMEOUT_S = 240.0


def _ours(emu: Emulation, alg: str, size: int, loss: float, iters: int) -> dict[str, Any]:
    r = flagged_bcast(emu, BcastCall(alg, size),
                      RunOptions(hosts=HOSTS, repetitions=iters, flow=False,
                                 loss=loss,
                                 frames=2, timeout=POINT_TIMEOUT_S))
    head = {"who": alg, "size": size, "loss": loss, "ms": r.ms, "flags": r.flags}
    if r.result is None:
        return head | {"error": (r.error or "")[:200], "frames": None, "all_correct": True}
    return head | {"frames": (r.result.frames or {}).get("sent"),
                   "all_correct": r.result.verified}


def _uftp(emu: Emulation, size: int, loss: float, mbit: float, reps: int) -> dict[str, Any]:
    runs, flags = [], []
    try:
        if loss:
            emu.set_loss(loss)
        for _ in range(reps):
            with Monitor(emu.topo) as mon:
                t0 = time.time()
                runs.append(transfer(emu, size, mbit, hosts=HOSTS, timeout=POINT_TIMEOUT_S))
                t1 = time.time()
            flags += mon.window(t0, t1)["flags"]
    except RunFailed as exc:
        return {"who": "uftp", "size": size, "loss": loss, "ms": None, "flags": [],
                "error": str(exc).splitlines()[0][:200], "frames": None, "all_correct": True}
    finally:
        if loss:
            emu.set_loss(0)
    return {"who": "uftp", "size": size, "loss": loss,
            "ms": statistics.median(r["seconds"] for r in runs) * 1e3,
            "flags": sorted(set(flags)),
            "frames": statistics.median(r["frames"]["sent"] for r in runs),
            "complete": [r["complete"] for r in runs], "receivers": runs[0]["receivers"],
            "all_correct": all(r["all_correct"] for r in runs)}


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    topo, rate = resolve(f"star:hosts={HOSTS}", progress)
    assert rate.mbit is not None  # a spec without bw is calibrated: a rate
    sizes = SIZES[:1] if quick else SIZES
    reps = 1 if quick else 3
    out: dict[str, Any] = {"mbit": rate.mbit, "link_rate": rate.to_dict(), "points": []}
    with Emulation(topo, caps=caps) as emu:
        for loss in LOSSES:
            for size in sizes:
                progress(f"bench uftp: uftp {size} B to {HOSTS - 1} hosts, {loss:.0%} loss")
                out["points"].append(_uftp(emu, size, loss, rate.mbit, reps))
                for alg in ALGOS:
                    progress(f"bench uftp: {alg} {size} B on {HOSTS} hosts, {loss:.0%} loss")
                    out["points"].append(_ours(emu, alg, size, loss, reps))
    return out


def _cell(p: dict[str, Any], wire_ms: float) -> str:
    if p["ms"] is None:
        return f"failed ({p.get('error', '')[:60]})"
    short = [c for c in p.get("complete", []) if c < p["receivers"]]
    dropped = f", receivers done per run {'/'.join(map(str, p['complete']))} of " \
              f"{p['receivers']}" if short else ""
    return f"{p['ms']:.0f}{'!' if p['flags'] else ''} ({p['ms'] / wire_ms:.2f} x{dropped})"


def markdown(res: dict[str, Any]) -> list[str]:
    mbit, pts = res["mbit"], res["points"]
    who = ("uftp", *ALGOS)
    out = ["", f"{HOSTS}-host star at {mbit:g} Mbit/s ({res['link_rate'].get('source', '')}), "
           f"one sender, {HOSTS - 1} receivers; medians in ms (multiple of M/B); ! = flagged "
           "by the fidelity monitor (no result). Frames: what the hosts put on their links "
           "per transfer (uftp: announce and registration included). A uftp run that "
           "dropped a receiver says how many got the file; its time is theirs, and it gets "
           "no ratio.", "",
           "| size | loss | " + " | ".join(who) + " | frames uftp / nack | nack / uftp |",
           "|---" * (len(who) + 4) + "|"]
    for size in dict.fromkeys(p["size"] for p in pts):
        wire = wire_s(size, mbit) * 1e3
        for loss in dict.fromkeys(p["loss"] for p in pts):
            at = {p["who"]: p for p in pts if p["size"] == size and p["loss"] == loss}
            u, n = at["uftp"], at["nack"]
            frames = "-" if u["frames"] is None or n["frames"] is None else \
                f"{u['frames']:.0f} / {n['frames']:.0f}"
            whole = all(c == u.get("receivers") for c in u.get("complete", []))
            ratio = "-" if u["ms"] is None or n["ms"] is None or u["flags"] or n["flags"] \
                or not whole else f"{n['ms'] / u['ms']:.2f}"
            out.append(f"| {size} | {loss:.0%} | "
                       + " | ".join(_cell(at[w], wire) for w in who if w in at)
                       + f" | {frames} | {ratio} |")
    wrong = [p for p in pts if not p["all_correct"]]
    out += ["", "Every receiver's bytes checked: "
            + (f"wrong copies in {wrong}" if wrong else "no wrong copy") + ".",
            "", "Measured with `sudo .venv/bin/mcastlab bench --suite uftp`."]
    return out
