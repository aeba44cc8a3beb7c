"""Chen2000's frame counts (section 3.1) measured: data frames per broadcast of MPICH's tree
and of the scouts plus one multicast against the paper's formulas, on the switch and on the
hub, and "one-third of actual data frames" at 7 nodes. Each job's broadcasts are counted by
the frame counter (testbed.emulation.frame_count) over FRAMES_ITERS back-to-back ones."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from collectives.ipmc import scout_frames, tree_frames

from ..bench.points import Flagged
from .chen_points import Spec, counted, fmt, measured, options, ratio
from .claims import Context
from .jobs import takes
from .networks import Ask
from .verdict import NO_RESULT, TRANSFER, Outcome, Part, judged_outcome, no_result, read

FRAME = 1500
CHEN_SIZES = (1000, 3000, 8192)
FRAMES_HOSTS = (4, 9)
# back-to-back broadcasts a job's count is taken over: a bracket's own noise, a few frames
# either way (measured on 4 hosts), is a tenth of a frame per broadcast over 40; a count
# is judged over takes() jobs (until 2026-11-27 one job). Over 20, scout-linear at 8 KiB
# on the hub's 9 hosts was flagged in each of 3 jobs (hosts waited for a core 176-181 %
# of a frame time a turn), and the broadcasts are the cheap part of a point: 40 it stays
FRAMES_ITERS = 40
FRAMES_MARGIN = 0.5  # data frames per broadcast within this of the formula's: it rounds to it
FRAMES_DIFFERS = f"more than {FRAMES_MARGIN} data frames from the formula"
FRAMES_WHY = ("a frame carries less than T = 1500 B of the message (IP, TCP or UDP and the "
              "datagram's own headers), which the formula's M/T leaves out")
TREE, CHEN = "binomial", "scout-linear"  # MPICH 1's tree (MPICH's bit order), Chen's scouts


def hub_hosts(quick: bool) -> tuple[int, ...]:
    return (4,) if quick else FRAMES_HOSTS  # figure 11's 4 processes; figure 12's 9 in full


def chen_frames(ctx: Context) -> Outcome:
    """Data frames per broadcast (every frame the hosts sent, the switch's counters, less
    TCP's pure ACKs, the hosts' own counters: testbed.emulation.frame_count) against the
    paper's formulas: MPICH's tree (binomial) against (M/T + 1)(N - 1), Chen2000's scout
    broadcast as it ran (scout-linear, completion "none": no receiver speaks unless it
    detects a gap) against (N - 1) + M/T + 1, over takes() jobs; reproduced if the interval
    over the jobs of each lies within FRAMES_MARGIN of its formula at every host count and
    size. Shown beside them, not judged: the repaired scout broadcast (completion "report":
    every receiver's "complete"; one job) and the pure ACKs."""
    rows, points, context = frame_rows(ctx.network, FRAMES_HOSTS, takes(ctx.quick),
                                       repaired=True)
    text = "data frames per broadcast (formula), pure ACKs apart: " + "; ".join(
        f"{r['hosts']} hosts {r['size']} B: tree {fmt(r['tree'])} ({r['tree_formula']}), "
        f"scouts {fmt(r['scout'])} ({r['scout_formula']}), repaired scouts "
        f"{fmt(r['repaired'])}; ACKs {'/'.join(fmt(a) for a in r['acks'].values())}"
        for r in rows)
    values = {"rows": rows, "margin": FRAMES_MARGIN, "broadcasts": FRAMES_ITERS}
    return against_counts(rows, {"tree": "tree", "scout": "scout"}, "_formula", FRAMES_MARGIN,
                          text, values=values, points=points, context=context,
                          where=lambda r: f"{r['hosts']} hosts {r['size']} B",
                          differs=FRAMES_DIFFERS, why=FRAMES_WHY)


def frame_rows(net: Any, hosts: tuple[int, ...], n: int, repaired: bool,
               sizes: tuple[int, ...] = CHEN_SIZES
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Per host count and size, MPICH's tree and Chen's scouts over `n` jobs (and, if
    `repaired`, the repaired scouts, in the first job), each counted over FRAMES_ITERS
    broadcasts, all of a take on the same hosts in one job: rows (the medians over the
    jobs, and each judged figure's jobs under "<key>_jobs"), judged points, shown."""
    specs = [(a, h, s) for h in hosts for s in sizes for a in (TREE, CHEN)]
    fixed_asks = [Ask(CHEN, s, h, frames=FRAMES_ITERS, kwargs={"completion": "report"})
                  for h in hosts for s in sizes] if repaired else []
    if fixed_asks:  # with take 0 of the rest: one job a host count
        net.batch([*fixed_asks, *(Ask(a, s, h, frames=FRAMES_ITERS, kwargs=options(a))
                                  for a, h, s in specs)], 1)
    got = measured(net, specs, n, frames=FRAMES_ITERS)
    rows, points, context = [], [], []
    for h in hosts:
        for s in sizes:
            tree, chen = got[(TREE, h, s)], got[(CHEN, h, s)]
            fixed = (net.point(CHEN, s, h, frames=FRAMES_ITERS, completion="report")
                     if repaired else {})
            points += tree + chen
            context += [fixed] if repaired else []
            rows.append({"hosts": h, "size": s, "tree": counted(tree, "frames_data"),
                         "tree_jobs": [p["frames_data"] for p in tree],
                         "tree_formula": tree_frames(s, FRAME, h),
                         "scout": counted(chen, "frames_data"),
                         "scout_jobs": [p["frames_data"] for p in chen],
                         "scout_formula": scout_frames(s, FRAME, h),
                         "repaired": fixed.get("frames_data"),
                         "acks": {"tree": counted(tree, "frames_acks"),
                                  "scout": counted(chen, "frames_acks"),
                                  "repaired": fixed.get("frames_acks")},
                         "medium": {"tree": counted(tree, "frames_medium"),
                                    "scout": counted(chen, "frames_medium")},
                         "sent": {"tree": counted(tree, "frames_sent"),
                                  "scout": counted(chen, "frames_sent")}})
    return rows, points, context


def hub_frames(ctx: Context) -> Outcome:
    """chen.frames on the hub (testbed.emulation.hub), where the frames are the shared
    medium's: data frames per broadcast against the formulas as on the switch, and beside
    them every frame that crossed the medium (data, ACKs, IGMP), which should be the frames
    the hosts sent: each crosses once."""
    rows, points, _ = frame_rows(ctx.network, hub_hosts(ctx.quick), takes(ctx.quick),
                                 repaired=False)
    text = "on the hub, data frames per broadcast (formula); frames across the medium / " \
        "sent by the hosts: " + "; ".join(
            f"{r['hosts']} hosts {r['size']} B: tree {fmt(r['tree'])} ({r['tree_formula']}), "
            f"scouts {fmt(r['scout'])} ({r['scout_formula']}); medium "
            f"{fmt(r['medium']['tree'])}/{fmt(r['sent']['tree'])} and "
            f"{fmt(r['medium']['scout'])}/{fmt(r['sent']['scout'])}" for r in rows)
    values = {"rows": rows, "margin": FRAMES_MARGIN, "broadcasts": FRAMES_ITERS}
    return against_counts(rows, {"tree": "tree", "scout": "scout"}, "_formula", FRAMES_MARGIN,
                          text, values=values, points=points, context=[],
                          where=lambda r: f"{r['hosts']} hosts {r['size']} B",
                          differs=FRAMES_DIFFERS, why=FRAMES_WHY)


def against_counts(rows: list[dict[str, Any]], judged: Mapping[str, str], suffix: str,
                   margin: float, text: str, *, values: dict[str, Any],
                   points: list[dict[str, Any]], context: list[dict[str, Any]],
                   where: Callable[[dict[str, Any]], str], differs: str, why: str) -> Outcome:
    """Counted frames judged against the paper's counts: the interval over the jobs
    (row[key + "_jobs"]) of every row's `judged` figures (key -> name) within `margin` of
    row[key + suffix]; no result when a point is not a result or a counter was not read."""
    bad = no_result(points, text)
    if bad is not None or any(None in r[f"{k}_jobs"] for r in rows for k in judged):
        out = bad or Outcome(NO_RESULT, text, "the frame counters (the switch's, the hosts' "
                             "pure ACKs) were not read", points=points)
        out.values, out.context = values, context
        return out
    jobs = {(i, k): r[f"{k}_jobs"] for i, r in enumerate(rows) for k in judged}
    parts = [Part(f"{where(r)} {name} (count {r[k + suffix]})", read((i, k)),
                  lo=r[k + suffix] - margin, hi=r[k + suffix] + margin, keys=((i, k),))
             for i, r in enumerate(rows) for k, name in judged.items()]
    return judged_outcome(jobs, parts, text, values=values, points=points, context=context,
                          lead="; over the jobs: ", differs=f" ({differs}): {why}",
                          kind=TRANSFER)


# ---- Chen2000, section 3.1: "one-third of actual data frames" with 7 nodes ------------------
THIRD_HOSTS = 7  # the paper's
THIRD = 1 / 3
# the root's bytes stand for its frames (the counter reads frames summed over the hosts,
# bytes per link): within this of one-third. Headers weigh alike on both sides (a TCP
# segment's 66 B, a datagram's 42 + 20 B, a frame of 1.5 KB each); the one thing on the
# root's link that is not the message is its pure ACKs to the six scouts (6 x 66 B, 0.014
# of a tree root's 3 x 3000 B) and the MPI envelopes
THIRD_MARGIN = 0.05
THIRD_SIZES = (1000, 3000, 8192)  # chen.frames's: one frame, two, six
THIRD_WHY = (": the frame counter reads frames summed over the hosts and bytes link by link, "
             "so the root's share is read in bytes, where what is not the message (its pure "
             "ACKs to the scouts, the MPI envelopes) counts too")
THIRD_JUDGED = 3000  # from two frames on (at one frame the root's ACKs to the scouts weigh
# a third of a 1000 B datagram: the bytes no longer stand for the frames)


class RootLinkAsk(Ask):
    """An Ask whose point also keeps the bytes per broadcast the root put on its link
    (`root_link_bytes`: the frame counter's link_bytes, from the root's host to its
    switch; None when not counted)."""

    def point(self, r: Flagged, tries: int, take: int) -> dict[str, Any]:
        return super().point(r, tries, take) | {"root_link_bytes": root_link_bytes(r)}


def root_link_bytes(r: Flagged) -> float | None:
    res = r.result
    if res is None or not res.link_bytes:
        return None
    root = res.rank_hosts[res.call.root]
    return sum(v for k, v in res.link_bytes.items() if k.startswith(f"{root}>"))


def one_third(ctx: Context) -> Outcome:
    """Section 3.1: "With 7 nodes, the multicast implementation only requires one-third of
    actual data frames compared to current MPICH implementation." The section's own formulas
    give a sixth over the whole broadcast (M/T + 1 frames against (M/T + 1)(N - 1)); the
    one count in its figures that gives a third at every size is the root's (I): in figure
    2's tree the root sends the message three times (to 4, 2 and 1), with the multicast
    once. Measured on 7 hosts, over takes() jobs of FRAMES_ITERS broadcasts: the bytes per
    broadcast the root put on its link (the frame counter's per-link bytes), Chen's scouts
    (scout-linear, completion none) over MPICH's tree (binomial), judged from THIRD_JUDGED
    bytes on: the interval within THIRD_MARGIN of one-third; the data frames over the
    whole broadcast (all hosts, TCP's pure ACKs apart) and the formulas' shares shown."""
    n, h = takes(ctx.quick), THIRD_HOSTS
    sizes = THIRD_SIZES
    got = measured(ctx.network, [(a, h, s) for s in sizes for a in (TREE, CHEN)], n,
                   frames=FRAMES_ITERS, ask=RootLinkAsk)
    rows = [third_row(got, h, s) for s in sizes]
    text = (f"on {h} hosts, Chen's scouts over MPICH's tree: the root's bytes a broadcast; "
            "data frames of the whole broadcast (section 3.1's formulas with the scouts; "
            "without them a sixth): " + "; ".join(
                f"{r['size']} B {fmt(r['root_share'], '.3f')} "
                f"({fmt(r['root_bytes'][CHEN], '.0f')}/{fmt(r['root_bytes'][TREE], '.0f')} "
                f"B); {fmt(r['data_share'], '.3f')} ({r['formula_share']:.3f})" for r in rows))
    judged_sizes = [s for s in sizes if s >= THIRD_JUDGED]
    judged = [p for s in judged_sizes for a in (TREE, CHEN) for p in got[(a, h, s)]]
    context = [p for s in sizes if s < THIRD_JUDGED for a in (TREE, CHEN)
               for p in got[(a, h, s)]]
    values: dict[str, Any] = {"rows": rows, "margin": THIRD_MARGIN, "broadcasts": FRAMES_ITERS,
                              "plot": third_plot(rows)}
    bad = no_result(judged, text)
    if bad is not None or any(p.get("root_link_bytes") is None for p in judged):
        out = bad or Outcome(NO_RESULT, text, "the root's link was not counted", points=judged)
        out.values, out.context = values, context
        return out
    jobs = {(a, s): [p["root_link_bytes"] for p in got[(a, h, s)]]
            for s in judged_sizes for a in (TREE, CHEN)}
    parts = [Part(f"{s} B, the root's bytes, scouts / tree", ratio((CHEN, s), (TREE, s)),
                  lo=THIRD - THIRD_MARGIN,
                  hi=THIRD + THIRD_MARGIN, fmt=".3f", keys=((CHEN, s), (TREE, s)),
                  paired=True)  # a take's scouts and tree run in one job (measured)
             for s in judged_sizes]
    return judged_outcome(jobs, parts, text, values=values, points=judged, context=context,
                          lead="; over the jobs: ", differs=THIRD_WHY)


def third_row(got: Mapping[Spec, list[dict[str, Any]]], h: int, s: int) -> dict[str, Any]:
    """One size's medians over the jobs: the root's bytes and the data frames of each, and
    the scouts' share of both and by section 3.1's formulas (the scouts counted)."""
    root = {a: counted(got[(a, h, s)], "root_link_bytes") for a in (TREE, CHEN)}
    data = {a: counted(got[(a, h, s)], "frames_data") for a in (TREE, CHEN)}
    return {"size": s, "root_bytes": root, "data_frames": data,
            "root_share": share(root[CHEN], root[TREE]),
            "data_share": share(data[CHEN], data[TREE]),
            "formula_share": scout_frames(s, FRAME, h) / tree_frames(s, FRAME, h)}


def share(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def third_plot(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def line(key: str) -> list[tuple[int, float]]:
        return [(r["size"], r[key]) for r in rows if r[key] is not None]

    return {"xlabel": "message size, bytes", "ylabel": "scouts / tree",
            "series": {"the root's bytes": line("root_share"),
                       "data frames, all hosts": line("data_share"),
                       "paper: one-third": [(r["size"], THIRD) for r in rows],
                       "model: section 3.1's formulas, all frames":
                           [(r["size"], r["formula_share"]) for r in rows]},
            "logx": True}
