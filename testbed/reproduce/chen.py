"""Chen2000's claims the testbed measures on an emulated network: the scouts plus one
multicast against MPICH's MPI_Bcast on the hub and the switch (chen_hub), frames per
broadcast and per barrier against the paper's formulas (chen_frames, chen_barrier), the
barriers on the hub (chen_barrier), and here what one more process costs (figure 12).
Every point carries its fidelity flags (testbed.reproduce.verdict); the paper's numbers
are copied here and in those modules (R: read, I: inferred). The paper ran 3 to 9
processes: so do these."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .chen_barrier import (
    BARRIER_FRAMES,
    BARRIER_MARGIN,
    HUB_BARRIER_HOSTS,
    HUB_BARRIER_TIMED,
    chen_barrier_messages,
    hub_barrier,
)
from .chen_frames import (
    FRAME,
    FRAMES_ITERS,
    FRAMES_MARGIN,
    THIRD_HOSTS,
    THIRD_JUDGED,
    THIRD_MARGIN,
    chen_frames,
    hub_frames,
    one_third,
)
from .chen_hub import (
    ABOVE,
    ABOVE_SIZES,
    BELOW_SIZES,
    CROSS,
    HUB,
    JUDGED,
    SLOWER,
    SWITCH,
    chen_crossover,
    hub_mpich,
    hub_multicast,
    hub_switch_points,
)
from .chen_points import flat, measured
from .claims import Claim, Context, PaperFigure
from .jobs import job_ms, medians, takes
from .series import NAMES
from .verdict import Outcome, Part, judged_outcome, no_result

# ---- Chen2000, figure 12: what one more process costs ---------------------------------------
SCALE_HOSTS = (4, 9)  # figure 12's 3, 6 and 9 processes: the ends of the crossover's range
SCALE_SIZES = (1000, 8192)  # the crossover's smallest and largest
SCALE_ALGS = ("scout-linear", "mpich")
SCALE_SHARE = 0.5  # linear's growth in the cost of a process at most this x MPICH's


def _per_process(a: str, s: int) -> Callable[[Mapping[Any, float]], float]:
    lo, hi = SCALE_HOSTS
    return lambda m: (m[(a, hi, s)] - m[(a, lo, s)]) / (hi - lo)


def _growth(a: str) -> Callable[[Mapping[Any, float]], float]:
    """How much the cost of one more process grows from 1000 B to 8 KiB, ms."""
    big, small = _per_process(a, SCALE_SIZES[1]), _per_process(a, SCALE_SIZES[0])
    return lambda m: big(m) - small(m)


def _growth_share(m: Mapping[Any, float]) -> float:
    return _growth("scout-linear")(m) / _growth("mpich")(m)


def chen_scaling(ctx: Context) -> Outcome:
    """The cost of one more process, (t(9) - t(4)) / 5, for scout-linear (completion none)
    and MPI_Bcast at 1000 B and 8 KiB, takes() jobs each (a host count's points in one job
    a take). For the linear multicast one more process is one more scout whatever the size;
    for MPICH's tree one more copy of the message on some path. Judged: how much the linear
    multicast's cost grows from 1000 B to 8 KiB over how much MPICH's does, by its interval
    over the jobs (at most SCALE_SHARE). The ratio of one algorithm's two costs is not
    judged: the linear one's is a fraction of a millisecond at 1000 B, and 3 jobs put its
    ratio anywhere from 1 to 5 (2026-11-26)."""
    n = takes(ctx.quick)
    by = measured(ctx.network, [(a, h, s) for h in SCALE_HOSTS for a in SCALE_ALGS
                                for s in SCALE_SIZES], n)
    points = flat(by)
    med = medians(by)
    per = {(a, s): _per_process(a, s)(med) for a in SCALE_ALGS for s in SCALE_SIZES
           if all((a, h, s) in med for h in SCALE_HOSTS)}
    text = f"ms per added process (median of {n} jobs): " + "; ".join(
        f"{NAMES[a]} " + ", ".join(f"{per[(a, s)]:.2f} at {s} B" for s in SCALE_SIZES
                                   if (a, s) in per) for a in SCALE_ALGS)
    values: dict[str, Any] = {"per_process_ms": {f"{a} {s}": v for (a, s), v in per.items()},
                              "plot": {"xlabel": "hosts", "ylabel": "broadcast, ms",
                                       "series": {f"{NAMES[a]} {s} B": [
                                           (h, med[(a, h, s)]) for h in SCALE_HOSTS
                                           if (a, h, s) in med]
                                           for a in SCALE_ALGS for s in SCALE_SIZES}}}
    if (bad := no_result(points, text, values)) is not None:
        return bad
    growth = {a: _growth(a)(med) for a in SCALE_ALGS}
    text += "; growth from 1000 B to 8 KiB " + ", ".join(f"{NAMES[a]} {g:.2f}"
                                                        for a, g in growth.items())
    # paired: a take's points on a host count run in one job, so each growth's two sizes
    # on it cancel that job's pace; the take's 4- and 9-host jobs run back to back
    judged = [Part("scout-linear's growth / MPI_Bcast's", _growth_share, hi=SCALE_SHARE,
                   paired=True)]
    return judged_outcome(job_ms(by), judged, text, values=values, points=points,
                          differs=": a process's cost here is its software's on two shared "
                          "cores as much as its frames")


C = "Chen2000"
CLAIMS = (
    Claim("chen.crossover", C, "On the hub, scouts plus one multicast beat MPICH's tree "
          "for messages larger than 1000 bytes, and lose to it below",
          PaperFigure("section 4, figures 7-10", "4 processes on the hub (figure 7): the "
                      "linear and the binary multicast better than MPICH for message sizes "
                      "greater than 1000 bytes; with small messages the scouts make them "
                      "worse; on the switch (figures 8-10, 4, 6, 9 processes) better for a "
                      "large enough message",
                      {"processes": 4, "bytes": CROSS}),
          f"on the hub, 4 hosts: the interval over {takes(False)} jobs ({takes(True)} with "
          "--quick) of each scout broadcast (no positive completion) over MPI_Bcast at least "
          f"1 at {', '.join(str(s) for s in JUDGED if s <= CROSS)} B and at most 1 at "
          f"{', '.join(str(s) for s in JUDGED if s > CROSS)} B; larger sizes, binomial and "
          "the switch (4 and 9 hosts: from which size the scouts win) shown",
          chen_crossover, network=HUB, before=(SWITCH,), measure=hub_switch_points),
    Claim("chen.frames", C, "Frames per broadcast: (M/T + 1)(N - 1) for a tree, (N - 1) + "
          "M/T + 1 with scouts and one multicast",
          PaperFigure("section 3.1", "tree (M/T + 1)(N - 1), scouts (N - 1) + M/T + 1 "
                      "(T = 1500 B): data frames, no acknowledgement and no completion",
                      {"frame": FRAME}),
          f"data frames per broadcast (TCP's pure ACKs apart) within {FRAMES_MARGIN} of the "
          "formula's for MPICH's tree (binomial) and Chen2000's scout broadcast (scout-linear, "
          "completion none), on 4 and 9 hosts at every size, by the interval over "
          f"{takes(False)} jobs of {FRAMES_ITERS} broadcasts ({takes(True)} with --quick); "
          "the repaired scout broadcast shown beside them", chen_frames, network="star16"),
    Claim("chen.one-third", C, "With 7 nodes the multicast needs one-third of the data "
          "frames of MPICH's tree",
          PaperFigure("section 3.1", "\"With 7 nodes, the multicast implementation only "
                      "requires one-third of actual data frames compared to current MPICH "
                      "implementation\" (the root's: figure 2's root sends 3 copies, the "
                      "multicast root one (I); over the whole broadcast the section's "
                      "formulas give a sixth)", {"nodes": THIRD_HOSTS, "share": 1 / 3}),
          f"on {THIRD_HOSTS} hosts, from {THIRD_JUDGED} B on: the bytes a broadcast puts on "
          "the root's link, Chen's scouts (completion none) over MPICH's tree (binomial), "
          f"the interval over {takes(False)} jobs of {FRAMES_ITERS} broadcasts "
          f"({takes(True)} with --quick) within {THIRD_MARGIN} of one-third; the data "
          "frames of the whole broadcast shown", one_third, network="star16"),
    Claim("chen.hub-frames", C, "Frames per broadcast on the hub: (M/T + 1)(N - 1) for a "
          "tree, (N - 1) + M/T + 1 with scouts and one multicast",
          PaperFigure("section 3.1, section 4 (the hub)", "the same counts; on a hub every "
                      "frame occupies the one shared medium", {"frame": FRAME}),
          f"as chen.frames, on the hub's shared medium (4 and 9 hosts; 4 with --quick): data "
          f"frames within {FRAMES_MARGIN} of the formula's; the frames across the medium shown "
          "beside the frames the hosts sent", hub_frames, network=HUB),
    Claim("chen.barrier-messages", C, "MPICH's barrier sends 2(N - K) + K log2 K messages, "
          "the multicast barrier N",
          PaperFigure("section 3.2", "MPICH's barrier in three phases (the ranks beyond the "
                      "largest power of two K pair in, pairwise exchanges among the first K, "
                      "release): 2(N - K) + K log2 K messages, 14 for N = 7 and 26 for N = 9; "
                      "the multicast barrier: N - 1 messages up a binary tree to rank 0, then "
                      "one zero-data multicast",
                      {"mpich_messages": {7: 14, 9: 26}, "mcast_messages": "N"}),
          f"data frames per barrier (TCP's pure ACKs apart, {BARRIER_FRAMES} back to back, "
          f"{takes(False)} jobs, {takes(True)} with --quick) within {BARRIER_MARGIN} of the "
          "count (interval over the jobs) on 4, 7 and 9 hosts for MPICH 1's barrier "
          "(pairwise) and Chen2000's multicast barrier (mcast, release multicast); the safe "
          "multicast barrier (2N - 1) and MPICH 4's MPI_Barrier shown beside",
          chen_barrier_messages, network="star16"),
    Claim("chen.hub-barrier", C, "On the hub the multicast barrier beats MPICH's, the more "
          "so the more processes",
          PaperFigure("section 4, figure 13", "MPI_Barrier over the hub: IP multicast "
                      "performs better on the average than the original MPICH "
                      "implementation; the improvement increases as the size gets bigger "
                      "(a barrier has no message: the communicator's size, the number of "
                      "processes (I))", {"processes": list(HUB_BARRIER_HOSTS)}),
          f"not applicable: the emulated hub neither collides nor charges a zero-byte frame "
          f"more than its time on the medium, so the barriers' times are the hosts' software "
          f"on two cores and follow the machine's load; measured and shown: on the hub, "
          f"{HUB_BARRIER_TIMED} timed barriers a job, {takes(False)} jobs a host count "
          f"({takes(True)} with --quick, 3 and 9 hosts only), the interval of MPICH 1's "
          "barrier (pairwise) over Chen's multicast barrier (release multicast) on 9 hosts, "
          "and of the milliseconds Chen's saves on 9 hosts less on 3, each drawn by job (a "
          "job's two barriers together); the ratio on 3 and 6 hosts", hub_barrier,
          network=HUB),
    Claim("chen.scaling", C, "With the linear multicast one more process costs about the "
          "same at every size; with MPICH's tree it costs more as messages grow",
          PaperFigure("section 4, figure 12", "3, 6 and 9 processes on the switch: linear "
                      "multicast scales well up to 9 processes and better than MPICH; its "
                      "extra cost per added process is nearly constant with respect to "
                      "message size, MPICH's is not", {"processes": [3, 6, 9]}),
          f"the cost of a process, (t(9) - t(4)) / 5, at 8 KiB less at 1000 B: scout-linear's "
          f"over MPI_Bcast's, {takes(False)} jobs a point, its interval at most "
          f"{SCALE_SHARE}; full run only", chen_scaling, network="star16", in_quick=False),
    Claim("chen.hub-mpich", C, "MPICH's tree falls behind on the hub as messages grow: "
          "slower than on the switch above 3000 bytes",
          PaperFigure("section 4, figure 11", "4 processes: MPICH's tree on the hub better "
                      "than on the switch for small messages, worse above 3000 bytes (it "
                      "loads the network more, so the switch's bandwidth outweighs its extra "
                      "latency)", {"processes": 4, "mpich_hub_worse_above_bytes": ABOVE}),
          f"MPI_Bcast's hub/switch time on 4 hosts, {takes(False)} jobs a point "
          f"({takes(True)} with --quick): the interval of its median over the sizes above "
          f"{ABOVE} B ({', '.join(map(str, ABOVE_SIZES))} B, those measured) at least "
          f"{SLOWER}; its growth, that over the median below ({', '.join(map(str, BELOW_SIZES))}"
          " B), shown, not judged: below 3000 B the emulated hub has no cut-through, and the "
          "emulated switch passes a lone frame without its wire time in some jobs, not in "
          "others; 9 hosts shown", hub_mpich,
          network=HUB,
          before=(SWITCH,), measure=hub_switch_points),
    Claim("chen.hub-multicast", C, "With multicast the hub beats the switch at every size",
          PaperFigure("section 4, figures 11-12", "4 processes: with multicast the hub is "
                      "better than the switch at every measured size; scales well up to 9 "
                      "processes", {"processes": 4}),
          "none: not applicable (no cut-through); scout-linear's hub/switch ratios shown",
          hub_multicast, network=HUB, before=(SWITCH,), measure=hub_switch_points),
)
