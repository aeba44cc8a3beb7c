"""nack at the physical limit (``mcastlab bench --suite nack``, written to bench/nack.md), on a
16-host star at this machine's calibrated rate (bw=auto), each point with its fidelity flags:

- lossless: nack at 1 KiB, 64 KiB and 1 MiB on 2 and 16 hosts, as multiples of M/B, and
  T(16)/T(2) (goals: at most 1.3 x M/B at 64 KiB and 1 MiB, T(16)/T(2) at most 1.1);
- loss of every packet on every host link (1, 5, 10 %): nack against the point-to-point
  broadcasts (binomial, MPI_Bcast) and two-stage on 16 hosts (goals: nack within 2 x its
  lossless median, and within 1.5 x the best point-to-point tree under the same loss)."""

from __future__ import annotations

from typing import Any

from collectives.call import BcastCall

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..experiments.calibration import resolve
from ..measure.options import RunOptions
from .points import flagged_bcast, is_result, ratio, wire_s

SIZES = (1024, 65536, 1 << 20)
LOSSES = (0.0, 0.01, 0.05, 0.10)
TREES = ("binomial", "mpich")  # the point-to-point broadcasts nack is held against
ALGOS = ("nack", "two-stage", *TREES)
LOSSLESS_GOAL, SCALING_GOAL, LOSS_GOAL, TREE_GOAL = 1.3, 1.1, 2.0, 1.5
POINT_TIMEOUT_S = 240.0


def _point(emu: Emulation, alg: str, size: int, hosts: int, iters: int,
           loss: float = 0.0) -> dict[str, Any]:
    """One point; one that does not finish within POINT_TIMEOUT_S is recorded as such (under
    heavy loss of every packet, TCP's retransmission timeouts can make a point-to-point
    broadcast take minutes: two-stage's chain of 64 KiB at 10 % took over 9 minutes)."""
    r = flagged_bcast(emu, BcastCall(alg, size),
                      RunOptions(hosts=hosts, repetitions=iters, flow=False,
                                 loss=loss,
                                 timeout=POINT_TIMEOUT_S))
    head = {"algorithm": alg, "size": size, "hosts": hosts, "loss": loss}
    res = r.result
    if res is None:
        msg = r.error or ""  # its end says what TCP did meanwhile: keep it
        return head | {"ms": None, "flags": [], "repaired": None, "all_correct": True,
                       "tcp_timeouts": None,
                       "error": msg if len(msg) <= 700 else f"{msg[:400]} ... {msg[-300:]}"}
    return head | {"ms": r.ms, "p90_ms": res.t_mcast.p90 * 1e3, "flags": r.flags,
                   "repaired": (res.datagrams or {}).get("per_broadcast", {})
                   .get("repaired"), "all_correct": res.verified,
                   "tcp_timeouts": (res.tcp or {}).get("timeouts")}


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    topo, rate = resolve("star:hosts=16", progress)
    sizes = SIZES[:2] if quick else SIZES
    losses = (0.0, 0.05) if quick else LOSSES
    iters = 5 if quick else 10
    # under loss the trees' TCP timeouts make every broadcast long: 5 of theirs; the multicast
    # ones as many as lossless (a median of 5 samples of a bimodal time is either mode)
    lossy_iters = {alg: 5 if alg in TREES else iters for alg in ALGOS}
    out: dict[str, Any] = {"mbit": rate.mbit, "link_rate": rate.to_dict(), "lossless": [],
                           "loss": []}
    with Emulation(topo, caps=caps) as emu:
        for size in sizes:
            for hosts in (2, 16):
                progress(f"bench nack: {size} B on {hosts} hosts, lossless")
                out["lossless"].append(_point(emu, "nack", size, hosts, iters))
        for loss in losses:
            for size in sizes:
                for alg in ALGOS:
                    progress(f"bench nack: {alg} {size} B on 16 hosts, {loss:.0%} loss")
                    out["loss"].append(_point(emu, alg, size, 16,
                                              lossy_iters[alg] if loss else iters, loss))
    return out


# ---- markdown -----------------------------------------------------------------------------
def _cell(p: dict[str, Any] | None) -> str:
    if p is None:
        return "-"
    if p["ms"] is None:
        return f"> {POINT_TIMEOUT_S:g} s" if "timeout" in p.get("error", "timeout") else "failed"
    return f"{p['ms']:.1f}{'!' if p['flags'] else ''}"


def markdown(res: dict[str, Any]) -> list[str]:
    mbit = res["mbit"]
    out = ["", f"16-host star at {mbit:g} Mbit/s ({res['link_rate'].get('source', '')}); "
           "medians in ms of 10 broadcasts (5 for binomial and mpich under loss, whose TCP "
           "timeouts make them long); ! = flagged by the fidelity monitor (no result: it "
           "feeds no ratio).",
           "",
           "## Lossless: nack against M/B (goal: at most "
           f"{LOSSLESS_GOAL} x at 64 KiB and 1 MiB; T(16)/T(2) at most {SCALING_GOAL})", "",
           "| size | M/B ms | 2 hosts | 16 hosts | 16 hosts / (M/B) | T(16)/T(2) |",
           "|---|---|---|---|---|---|"]
    for size in dict.fromkeys(p["size"] for p in res["lossless"]):
        two, sixteen = (next(p for p in res["lossless"] if p["size"] == size and
                             p["hosts"] == h) for h in (2, 16))
        wire = wire_s(size, mbit) * 1e3
        of_wire = f"{sixteen['ms'] / wire:.2f}" if is_result(sixteen) else "-"
        out.append(f"| {size} | {wire:.2f} | {_cell(two)} | {_cell(sixteen)} | "
                   f"{of_wire} | {ratio(sixteen, two)} |")
    rows = res["loss"]
    out += ["", "## Loss of every packet on every host link (16 hosts)", "",
            f"nack / lossless: goal at most {LOSS_GOAL}; nack / best tree: the best of "
            f"{', '.join(TREES)} under the same loss, goal at most {TREE_GOAL}. Repaired: "
            "fragments per broadcast.", "",
            "| size | loss | " + " | ".join(ALGOS) + " | nack repaired | nack / lossless | "
            "nack / best tree |", "|---" * (len(ALGOS) + 5) + "|"]
    tcp = ["", "TCP retransmission timeouts on the hosts during each lossy point (MPI's "
           "messages, the benchmark's own included, go over TCP; each timeout of the same "
           "segment doubles the next wait, from 200 ms):", "",
           "| size | loss | " + " | ".join(ALGOS) + " |", "|---" * (len(ALGOS) + 2) + "|"]
    for size in dict.fromkeys(p["size"] for p in rows):
        base = next(p for p in rows if p["size"] == size and p["loss"] == 0.0
                    and p["algorithm"] == "nack")
        for loss in dict.fromkeys(p["loss"] for p in rows):
            at = {p["algorithm"]: p for p in rows if p["size"] == size and p["loss"] == loss}
            nack = at["nack"]
            trees = [at[t] for t in TREES if is_result(at.get(t))]
            best = min(trees, key=lambda p: p["ms"]) if trees else None
            repaired = "-" if nack["repaired"] is None else f"{nack['repaired']:g}"
            out.append(f"| {size} | {loss:.0%} | "
                       + " | ".join(_cell(at.get(a)) for a in ALGOS)
                       + f" | {repaired} | {ratio(nack, base)} | {ratio(nack, best)} |")
            if loss:
                timeouts = [(at.get(a) or {}).get("tcp_timeouts") for a in ALGOS]
                tcp.append(f"| {size} | {loss:.0%} | "
                           + " | ".join("-" if n is None else str(n) for n in timeouts) + " |")
    out += tcp
    wrong = [p for p in res["lossless"] + rows if not p["all_correct"]]
    failed = [p for p in res["lossless"] + rows if p["ms"] is None]
    if failed:
        out += ["", "Points without a result:"]
        out += [f"- {p['algorithm']} {p['size']} B, {p['loss']:.0%} loss: {p.get('error', '')}"
                for p in failed]
    out += ["", f"Every rank's bytes checked: {wrong or 'all correct'}.",
            "", "Measured with `sudo .venv/bin/mcastlab bench --suite nack`."]
    return out
