"""Chen2000's claims the testbed measures on an emulated network: scouts plus one multicast
overtaking MPICH's tree, frames per broadcast against the paper's formulas, the hub against
the switch. Every point carries its fidelity flags (testbed.reproduce.verdict); the paper's
numbers are copied here (R: read, I: inferred). The paper ran 4 to 9 processes: so do these."""

from __future__ import annotations

from typing import Any

from collectives.ipmc.plans import scout_frames, tree_frames

from .claims import Claim, Context, PaperFigure
from .series import NAMES, TREES
from .verdict import DIFFERS, NO_RESULT, NOT_APPLICABLE, REPRODUCED, Outcome, is_result, no_result

# ---- Chen2000: scouts + one multicast overtake the trees -------------------------------
CHEN_SIZES = (1000, 3000, 8192)
SCOUTS = ("scout-linear", "scout-binary")


def chen_crossover(ctx: Context) -> Outcome:
    """At every host count, the smallest size at which a scout algorithm beats both trees;
    reproduced if there is one on every host count ("for a large enough message", on the
    switch: figures 8-10)."""
    net = ctx.network
    hosts = (4, 6, 9)  # the paper's
    algs = (*SCOUTS, *TREES)
    by = {(a, h, s): net.point(a, s, h) for a in algs for h in hosts for s in CHEN_SIZES}
    points = list(by.values())
    first: dict[int, int | None] = {}
    for h in hosts:
        wins = [s for s in CHEN_SIZES if min(by[(a, h, s)]["ms"] or float("inf") for a in
                                             SCOUTS) <
                min(by[(t, h, s)]["ms"] or float("inf") for t in TREES)]
        first[h] = min(wins) if wins else None
    text = "; ".join(f"{h} hosts: " + (f"from {first[h]} B" if first[h] else "never")
                     for h in hosts)
    values = {"from_bytes": first}
    bad = no_result(points, text)
    if bad is not None:
        bad.values = values
        return bad
    if all(first[h] is not None for h in hosts):
        return Outcome(REPRODUCED, text, values=values, points=points)
    never = [h for h in hosts if first[h] is None]
    return Outcome(DIFFERS, text, "no scout algorithm beats both trees at any size up to "
                   f"{CHEN_SIZES[-1]} B on {', '.join(map(str, never))} hosts", values=values,
                   points=points)


# ---- Chen2000: frames per broadcast against the formulas --------------------------------
FRAME = 1500
FRAMES_HOSTS = (4, 9)


def chen_frames(ctx: Context) -> Outcome:
    """Frames the hosts sent per broadcast (the switch's counters) against the paper's
    formulas; reproduced if the multicast sends fewer wherever the formulas say so (TCP's
    acknowledgements add frames to the tree's count the formula leaves out)."""
    net = ctx.network
    rows, points = [], []
    for h in FRAMES_HOSTS:
        for s in CHEN_SIZES:
            tree = net.point("binomial", s, h, frames=10)
            scout = net.point("scout-linear", s, h, frames=10)
            points += [tree, scout]
            rows.append({"hosts": h, "size": s, "tree": tree["frames_sent"],
                         "scout": scout["frames_sent"], "tree_formula": tree_frames(s, FRAME, h),
                         "scout_formula": scout_frames(s, FRAME, h)})
    text = "; ".join(f"{r['hosts']} hosts {r['size']} B: tree {_f(r['tree'])} "
                     f"({r['tree_formula']}), scouts {_f(r['scout'])} ({r['scout_formula']})"
                     for r in rows)
    bad = no_result(points, text)
    if bad is not None or any(r["tree"] is None or r["scout"] is None for r in rows):
        return bad or Outcome(NO_RESULT, text, "the switch's frame counters were not read",
                              values={"rows": rows}, points=points)
    wrong = [r for r in rows if r["scout_formula"] < r["tree_formula"]
             and not r["scout"] < r["tree"]]
    if not wrong:
        return Outcome(REPRODUCED, text, values={"rows": rows}, points=points)
    return Outcome(DIFFERS, text, "the multicast does not send fewer frames at " + ", ".join(
        f"{r['hosts']} hosts {r['size']} B" for r in wrong) + ": the testbed's scout "
        "broadcasts end with every receiver's 'complete' (three datagram copies and one over "
        "MPI, nack's repair), which Chen2000's did not have (it assumed lossless hardware) "
        "and its formula leaves out", values={"rows": rows}, points=points)


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.0f}"


# ---- Chen2000: the hub against the switch ------------------------------------------------
HUB, SWITCH = "star9-hub", "star9"  # testbed.reproduce.networks: one star, two bridges
HUB_SIZES = (1024, 4096, 16384, 65536)  # below one frame, then 3 to 44 frames
HUB_ALGS = ("scout-linear", "mpich")  # the paper's multicast and MPICH's MPI_Bcast
HUB_WHY = ("an emulated hub is a switch that floods every multicast frame to every port; "
           "it has no shared half-duplex medium, so no collisions (the paper's reason for "
           "MPICH's tree being slower on the hub above 3000 B), and every frame is "
           "serialized onto the host's link and again onto the receiver's as on the "
           "switch, so no cut-through either (the hub's lower latency, which made "
           "multicast faster there); the ratios show what flooding alone costs")


def _hub_hosts(quick: bool) -> tuple[int, ...]:
    return (4,) if quick else (4, 9)  # figure 11's 4 processes; figure 12's 9 in full


def hub_switch_points(ctx: Context) -> dict[tuple[str, int, int], dict[str, Any]]:
    """scout-linear and MPI_Bcast at HUB_SIZES on ctx.network: measured on the switch
    first (Claim.before), then on the hub, where the switch's are read back."""
    return {(a, h, s): ctx.network.point(a, s, h) for h in _hub_hosts(ctx.quick)
            for a in HUB_ALGS for s in HUB_SIZES}


def _beats_from(by: dict[tuple[str, int, int], dict[str, Any]], h: int) -> int | None:
    """The smallest size from which scout-linear beats MPI_Bcast at every larger size."""
    ms = {s: (by[("scout-linear", h, s)]["ms"], by[("mpich", h, s)]["ms"])
          for s in HUB_SIZES}
    return next((s for s in HUB_SIZES if all(m is not None and t is not None and m < t
                                             for z, (m, t) in ms.items() if z >= s)), None)


def hub_switch(ctx: Context) -> Outcome:
    """The hub's time over the switch's for each algorithm, size and host count, and from
    which size multicast beats MPI_Bcast on each; not applicable (HUB_WHY), shown."""
    hub = hub_switch_points(ctx)
    got = {"hub": hub}
    if SWITCH in ctx.earlier:
        got["switch"] = hub_switch_points(Context(ctx.quick, ctx.progress,
                                                  ctx.earlier[SWITCH]))
    points = [{**p, "label": f"{p['label']} ({side})"} for side, by in got.items()
              for p in by.values()]
    if "switch" not in got:
        return Outcome(NO_RESULT, "-", f"the switch's points (network {SWITCH}) were not "
                       "measured", points=points)
    hosts = _hub_hosts(ctx.quick)
    ratio = {NAMES[a]: {h: {s: hub[k]["ms"] / got["switch"][k]["ms"] if is_result(hub[k])
                            and is_result(got["switch"][k]) else None
                            for s in HUB_SIZES for k in [(a, h, s)]} for h in hosts}
             for a in HUB_ALGS}
    beats = {side: {h: _beats_from(by, h) for h in hosts} for side, by in got.items()}
    sizes = ", ".join(f"{s // 1024}" for s in HUB_SIZES)
    text = "hub/switch time at " + sizes + " KiB: " + "; ".join(
        f"{h} hosts " + ", ".join(f"{a} " + " ".join("-" if r is None else f"{r:.2f}"
                                                     for r in by_h[h].values())
                                  for a, by_h in ratio.items()) for h in hosts)
    text += "; scout-linear beats MPI_Bcast from: " + "; ".join(
        f"{side} " + ", ".join(f"{b} B" if b else "never" for b in bs.values())
        for side, bs in beats.items()) + (" (" + ", ".join(map(str, hosts)) + " hosts)")
    series = {f"{NAMES[a]} {side}" + (f", {h} hosts" if len(hosts) > 1 else ""):
              [(s, by[(a, h, s)]["ms"]) for s in HUB_SIZES if by[(a, h, s)]["ms"] is not None]
              for h in hosts for a in HUB_ALGS for side, by in got.items()}
    values = {"ratio": ratio, "beats_from": beats,
              "plot": {"xlabel": "message size, bytes", "ylabel": "broadcast, ms",
                       "series": series, "logx": True, "logy": True}}
    bad = no_result(points, text)
    why = HUB_WHY + ("" if bad is None else f"; {bad.why} (no ratio from them)")
    return Outcome(NOT_APPLICABLE, text, why, values=values, points=points)


C = "Chen2000"
CLAIMS = (
    Claim("chen.crossover", C, "Scouts plus one multicast beat MPICH's tree for messages "
          "larger than an Ethernet frame", PaperFigure(
              "section 4, figures 7-10", "multicast beats MPICH for messages > 1000 bytes (4 "
              "processes, hub) and for a large enough message on the switch (4, 6, 9 "
              "processes)", {"bytes": 1000}),
          "on every host count, a scout algorithm beats MPI_Bcast and binomial at some size "
          "up to 8 KiB",
          chen_crossover, network="star16"),
    Claim("chen.frames", C, "Frames per broadcast: (M/T + 1)(N - 1) for a tree, (N - 1) + "
          "M/T + 1 with scouts and one multicast",
          PaperFigure("section 3.1", "tree (M/T + 1)(N - 1), scouts (N - 1) + M/T + 1 "
                      "(T = 1500 B)", {"frame": FRAME}),
          "fewer frames for the multicast wherever the formulas say so", chen_frames,
          network="star16"),
    Claim("chen.hub-switch", C, "With multicast the hub beats the switch at every size; "
          "MPICH's tree is slower on the hub above 3000 bytes",
          PaperFigure("section 4, figures 11-12", "4 processes: with multicast the hub is "
                      "better than the switch at every measured size; MPICH's tree on the "
                      "hub becomes worse than on the switch above 3000 bytes; scales well up "
                      "to 9 processes", {"processes": 4, "mpich_hub_worse_above_bytes": 3000}),
          "none: not applicable (no shared medium, no cut-through); the hub/switch ratios "
          "are shown", hub_switch, network=HUB, before=(SWITCH,), measure=hub_switch_points),
)
