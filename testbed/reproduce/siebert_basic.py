"""Siebert2006's basic point-to-point broadcasts (section 1.5) as the thesis measured them:
per node, the time from the common start until that node is done with the broadcast (its
"broadcast duration per node", the root's included: per_node), and their average, "the real
average duration per node". Two claims: the fragmented chain against the chain at 1 MiB on 8 nodes
(section 1.5.2, figures 3-4) and how the four basic algorithms grow with the nodes (figure
10). The testbed's bcast_bench has every receiver wait in the call before the root calls
(collectives.programs.bcast_bench): the thesis's simultaneous start as the receivers see it.

The paper's numbers are copied here (marker R: read in the text). Its figures' plots are not
in the text: only the numbers the prose quotes."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from collectives.trees import PointToPoint, Schedule, build, return_times

from .claims import Claim, Context, PaperFigure
from .jobs import takes
from .siebert_points import batched, wire_ms
from .verdict import (
    NO_RESULT,
    Outcome,
    Part,
    bootstrap,
    judged_outcome,
    no_result,
    undecided_because,
)

S = "Siebert2006"
WIRE = PointToPoint(0.0, 1.0, 0.0, 1.0)  # the model in bytes: t_hold = t_end = m / B


def per_node(p: dict[str, Any], schedule: Schedule) -> list[float] | None:
    """Every node's time after the root's call (ms, the root's first): its return from the
    broadcast call or, where later, the moment its last message had reached its receiver
    (that receiver's holding the whole of it: `rank_done_s`). The thesis's MPI_Send of 1 MiB
    returned only then (the chain's root, 0.090 s: one wire time of 1 MiB on Fast Ethernet);
    here a send returns once MPI has taken the message into the socket's buffer. As the
    model's return_times, where a node that still sends is busy. None where a node's
    times are missing."""
    back, done = p.get("rank_return_s"), p.get("rank_done_s")
    if not back or not done or any(t is None for t in (*back, *done)):
        return None
    kids: dict[int, set[int]] = {}
    for sender, receiver, _lo, _hi in schedule.transfers():
        kids.setdefault(sender, set()).add(receiver)
    return [max([back[r], *(done[c] for c in kids.get(r, ()))]) * 1e3
            for r in range(len(back))]


def model_per_node(algorithm: str, hosts: int, size: int, **params: Any) -> list[float]:
    """Every rank's return in the t_hold/t_end model with t_hold = t_end = m / B, in wire
    times of the whole message (sends one after the other)."""
    return [t / size for t in return_times(build(algorithm, hosts, 0, size, **params), WIRE)]


def _averages(by: Mapping[Any, list], schedules: Mapping[Any, Schedule]
              ) -> dict[Any, list[float]] | None:
    """Per point, every job's average over the nodes (ms); None if a job lacks a node."""
    out = {}
    for k, ps in by.items():
        nodes = [per_node(p, schedules[k]) for p in ps]
        if any(v is None for v in nodes):
            return None
        out[k] = [statistics.fmean(v) for v in nodes if v is not None]
    return out


def _by_rank(ps: list[dict[str, Any]], schedule: Schedule) -> list[float]:
    """Per rank, the median over the jobs of its time (ms, per_node)."""
    nodes = [v for p in ps if (v := per_node(p, schedule)) is not None]
    return [statistics.median(v[r] for v in nodes) for r in range(len(nodes[0]))] \
        if nodes else []


def _hop(times: Sequence[float]) -> float:
    """A chain's time per hop: from node 0 to node k - 2, the last that sends, over the
    k - 2 hops between (the last node only receives)."""
    return (times[-2] - times[0]) / (len(times) - 2)


def _relay(times: Sequence[float], unit: float) -> tuple[float, float]:
    """A chain's per-node times (`times`: a node's is when its child held the last piece)
    split into the first relay's hop, node 1 passing the last piece to node 2, and the
    mean of the later hops up to the last node that sends, each over `unit`."""
    return ((times[1] - times[0]) / unit,
            (times[-2] - times[1]) / (len(times) - 3) / unit)


# ---- Siebert2006: the fragmented chain 3.67 x faster than the chain, 1 MiB on 8 nodes ------
FRAGMENTS: dict[str, Any] = {"bytes": 1 << 20, "nodes": 8, "fragment": 65536,
             "chain_s": [0.090, 0.194, 0.297, 0.399, 0.503, 0.607, 0.709, 0.721],
             "fragmented_s": [0.097, 0.104, 0.110, 0.116, 0.123, 0.130, 0.136, 0.142],
             "chain_avg_s": 0.440, "fragmented_avg_s": 0.120, "ratio": 3.67,
             "wire_s": (1 << 20) * 8 / 100e6}  # 1 MiB on Fast Ethernet (the thesis's)
FRAGMENTS_BAND = 0.2  # judged: the ratio within 20 % of the thesis's 3.67
# the fragmented chain as the thesis's (its ipmc component's, taken from Open MPI's tuned
# chain, ompi_coll_tuned_bcast_intra_chain): a node posts the next fragment's receive, waits
# for the current fragment and forwards it with a blocking MPI_Send, which returns once MPI
# has taken it (send order overlapped; collectives.trees.run posts the receive ahead). With
# the model's fifo order a node handed a fragment to MPI only once the previous one had left
# its host, and the next fragment's receive only after that: 8 hosts at 20 Mbit/s, 3 jobs
# each (2026-12-06), the fifo order's average per node 604, 765, 609 ms (a fragment's hop
# 1.19-1.56 wire times of a fragment), the tuned order's 583, 592, 578 (1.26-1.34)
CHAINS: dict[str, tuple[str, dict[str, Any]]] = {"chain": ("chain", {}),
    "fragmented chain": ("fragmented-chain", {"send_order": "overlapped",
                                              "options": {"fragment": 65536}})}
# one timed broadcast a job, none untimed: the chain takes 7 wire times of 1 MiB (6 s at 10
# Mbit/s), and a pair's first message pays for its connection a few ms, under 1 % of the
# 0.84 s a hop takes; the jobs carry the spread (jobs.py). The chain goes first, so the
# fragmented chain's pairs are connected before it
FRAGMENTS_ITERS, FRAGMENTS_WARMUP = 1, 0


def fragments_1m(ctx: Context) -> Outcome:
    """The chain and the fragmented chain (64 KiB fragments) at 1 MiB on 8 hosts, takes()
    jobs each: every node's time (per_node) and their average, the chain's over the
    fragmented chain's judged against the thesis's 3.67."""
    size, hosts = FRAGMENTS["bytes"], FRAGMENTS["nodes"]
    by = batched(ctx.network, {k: (a, hosts, kw | {"warmup": FRAGMENTS_WARMUP})
                               for k, (a, kw) in CHAINS.items()}, size, FRAGMENTS_ITERS,
                 takes(ctx.quick))
    points = [p for ps in by.values() for p in ps]
    wire = wire_ms(ctx.network, size)
    scheds = {k: build(a, hosts, 0, size, **kw.get("options", {}))
              for k, (a, kw) in CHAINS.items()}
    model = {k: model_per_node(a, hosts, size, **kw.get("options", {}))
             for k, (a, kw) in CHAINS.items()}
    thesis = {"chain": FRAGMENTS["chain_s"], "fragmented chain": FRAGMENTS["fragmented_s"]}
    ranks = {k: _by_rank(ps, scheds[k]) for k, ps in by.items()}
    values: dict[str, Any] = {"per_node_ms": ranks, "model_wire_times": model, "plot": {
        "xlabel": "node (0: the root)", "ylabel": "time per node, wire times of 1 MiB (M/B)",
        "series": {
            **{f"{k}, testbed": [(r, t / wire) for r, t in enumerate(v)]
               for k, v in ranks.items() if wire},
            **{f"{k}, the thesis": [(r, t / FRAGMENTS["wire_s"]) for r, t in enumerate(v)]
               for k, v in thesis.items()},
            **{f"{k}, the model": list(enumerate(v)) for k, v in model.items()}}}}
    text = f"1 MiB on {hosts} hosts, the fragmented chain in 64 KiB fragments"
    if (bad := no_result(points, text, values)) is not None:
        return bad
    avg = _averages(by, scheds)
    if avg is None:
        return Outcome(NO_RESULT, text, "a point carries no times of some node",
                       values=values, points=points)
    med = {k: statistics.median(v) for k, v in avg.items()}
    ratio_model = statistics.fmean(model["chain"]) / statistics.fmean(model["fragmented chain"])
    text += f" (median of {takes(ctx.quick)} jobs): average per node " + ", ".join(
        f"{k} {med[k]:.0f} ms" + (f" ({med[k] / wire:.2f} wire times)" if wire else "")
        for k in CHAINS) + "; per node " + "; ".join(
        f"{k} " + ", ".join(f"{t:.0f}" for t in ranks[k]) + " ms" for k in CHAINS) + (
        f"; the thesis {FRAGMENTS['chain_avg_s']:.3f} and {FRAGMENTS['fragmented_avg_s']:.3f}"
        f" s ({FRAGMENTS['chain_avg_s'] / FRAGMENTS['wire_s']:.2f} and "
        f"{FRAGMENTS['fragmented_avg_s'] / FRAGMENTS['wire_s']:.2f} wire times at 100 Mbit/s)"
        f", the model {statistics.fmean(model['chain']):.2f} and "
        f"{statistics.fmean(model['fragmented chain']):.2f} ({ratio_model:.2f})")
    if wire:  # a hop in wire times of what it carries: the whole message, one fragment
        units = {"chain": wire, "fragmented chain": wire * FRAGMENTS["fragment"] / size}
        paper = {"chain": FRAGMENTS["wire_s"],
                 "fragmented chain": FRAGMENTS["wire_s"] * FRAGMENTS["fragment"] / size}
        hops = {k: _hop(ranks[k]) / units[k] for k in CHAINS}
        values["hop_wire_times"] = hops
        text += "; a hop " + ", ".join(
            f"{k} {hops[k]:.2f} ({_hop(thesis[k]) / paper[k]:.2f} in the thesis)"
            for k in CHAINS) + " wire times of what it carries"
        relay = {"testbed": _relay(ranks["fragmented chain"], units["fragmented chain"]),
                 "thesis": _relay(thesis["fragmented chain"], paper["fragmented chain"])}
        values["relay_wire_times"] = relay
        text += (f", of which the first relay's (node 1 to node 2) "
                 f"{relay['testbed'][0]:.2f}, each later hop's {relay['testbed'][1]:.2f} "
                 f"(the thesis's {relay['thesis'][0]:.2f} and {relay['thesis'][1]:.2f})")
    values["average_ms"] = avg
    lo, hi = (FRAGMENTS["ratio"] * (1 + s * FRAGMENTS_BAND) for s in (-1, 1))
    # paired: a take's chain and fragmented chain run in one job, and a job whose hosts ran
    # slow slows both (--quick, 2026-12-06: 2009 and 678 ms in one job of three, 1950-1952
    # and 615-617 in the others): drawn apart, that job's fragmented chain against another's
    # chain spanned 2.87-3.27, the per-job ratios 2.96-3.18
    return judged_outcome(avg, [Part("chain / fragmented chain, average per node",
                                     lambda m: m["chain"] / m["fragmented chain"], lo, hi,
                                     paired=True)],
                          text, values=values, points=points,
                          differs=": " + HOP_COST, undecided=": " + HOP_COST + _at_edge(values))


HOP_COST = ("the chain's hop costs its wire time and TCP's headers here (about 1.06 wire "
            "times), the thesis's 1.23 (its hosts' costs of a 1 MiB message, small here against "
            "links 5 x slower than its 100 Mbit/s), which alone takes the thesis's 3.67 to 3.16; "
            "and the fragmented chain's first relay falls behind: MPICH sends a 64 KiB "
            "fragment eagerly, so the root hands MPI many fragments at once and node 1, fed at "
            "the link's full rate, passes its last fragment on a few fragment times late")
# the ratio sits near its margin's lower edge (2.94, our 20 % band: the thesis gives 3.67
# alone): 3.07 [2.95, 3.12] and 3.02 [2.65, 3.17] in two runs at cc1e4ed's successors,
# fifo order; 3.11 [2.98, 3.16] with the tuned chain's order (2026-12-06, 5 jobs: the first
# relay's hop 2.5-5.1 wire times of a fragment, every later hop 1.1-1.3; the thesis's 1.34
# and 1.22). Open MPI r11682, which the thesis ran, sent a 64 KiB fragment by rendezvous
# (its TCP transport's eager limit, 64 KiB, counts the header: not checked here), holding
# the root to node 1's pace


def _at_edge(values: dict[str, Any]) -> str:
    """How far a fragment's hop is from the thesis's, for an undecided fragments-1m."""
    hop = values.get("hop_wire_times", {}).get("fragmented chain")
    relay = values.get("relay_wire_times", {}).get("testbed")
    return "" if hop is None or relay is None else (
        f" (here a fragment's hop {hop:.2f} wire times of a fragment, the thesis's 1.24: the "
        f"first relay's {relay[0]:.2f}, each later hop's {relay[1]:.2f}), which brings the "
        "ratio to its margin's edge, past it in some runs")


# ---- Siebert2006, figure 10: linear and chain grow linearly, the trees logarithmically ----
BASIC = ("sequential", "chain", "binary", "binomial")  # Listings 2-4 and 1.5.4
LINEAR_CLASS, TREE_CLASS = ("sequential", "chain"), ("binary", "binomial")
BASIC_SIZE = 65536
# figure 10's message size is not in the text (its plot is not): 64 KiB holds a link for 52
# ms at 10 Mbit/s, a wire-bound regime as figures 2-8's 1 MiB on Fast Ethernet (84 ms),
# while 16 hosts' linear and chain broadcasts (15 wire times) stay under a second
GROWTH_FROM, GROWTH_TO = 4, 16
DRAWN_ONCE = (2, 8)  # drawn from one job: on 2 hosts the four are the same single send
BASIC_ITERS, BASIC_WARMUP = 1, 1  # the jobs carry the spread; 1 untimed for the connections


def model_growth(a: str, to: int) -> float:
    """T(to)/T(GROWTH_FROM) of the average per node in the t_hold/t_end model (t_hold =
    t_end = m / B): 3.75 for the linear class to 16 hosts, 2.0 for binomial, 2.19 binary."""
    return (statistics.fmean(model_per_node(a, to, BASIC_SIZE))
            / statistics.fmean(model_per_node(a, GROWTH_FROM, BASIC_SIZE)))


def split(to: int = GROWTH_TO) -> float:
    """The margin between linear and logarithmic growth from GROWTH_FROM to `to` hosts: the
    midpoint of the model's sequential and binomial, to one decimal (2.9 to 16 hosts, 4.9
    to 32, 8.7 to 64)."""
    return round((model_growth("sequential", to) + model_growth("binomial", to)) / 2, 1)


SPLIT = split()  # 2.9


def _growth(a: str, to: int) -> Callable[[Mapping[Any, float]], float]:
    return lambda m: m[(a, to)] / m[(a, GROWTH_FROM)]


def _slope(a: str, to: int) -> Callable[[Mapping[Any, float]], float]:
    return lambda m: m[(a, to)] - m[(a, GROWTH_FROM)]


def _gradients(to: int) -> Callable[[Mapping[Any, float]], float]:
    """Linear's gradient over chain's, from GROWTH_FROM to `to` hosts."""
    return lambda m: _slope("sequential", to)(m) / _slope("chain", to)(m)


def basic_scaling(ctx: Context, to: int = GROWTH_TO,
                  drawn: tuple[int, ...] = DRAWN_ONCE) -> Outcome:
    """The four basic broadcasts at 64 KiB on 4 and `to` hosts (takes() jobs a point; the
    `drawn` counts one job, drawn; --quick: 4 and `to` only), every node's time averaged:
    judged, the linear class (sequential, chain) growing from 4 to `to` hosts by more than
    split(to), the trees by less, and binomial faster than binary on `to` hosts; shown,
    the gradients of linear and chain ("the linear algorithm usually has a better
    gradient")."""
    drawn = () if ctx.quick else drawn
    margin = split(to)
    hosts = sorted((GROWTH_FROM, to, *drawn))
    # on 2 hosts every one of the four is the root's one send: measured once, as sequential
    asks = {(a, h): (a, h, {"warmup": BASIC_WARMUP}) for a in BASIC for h in hosts
            if h != 2 or a == BASIC[0]}
    once = [k for k in asks if k[1] in drawn]
    by = batched(ctx.network, asks, BASIC_SIZE, BASIC_ITERS, takes(ctx.quick), once)
    judged = {k: v for k, v in by.items() if k not in once}
    points = [p for ps in judged.values() for p in ps]
    shown = [p for k in once for p in by[k]]
    scheds = {(a, h): build(a, h, 0, BASIC_SIZE) for a, h in asks}
    drawn_avg = {k: statistics.fmean(nodes) for k in once
                 if (nodes := per_node(by[k][0], scheds[k]))}
    model = {(a, h): statistics.fmean(model_per_node(a, h, BASIC_SIZE))
             for a in BASIC for h in hosts}
    wire = wire_ms(ctx.network, BASIC_SIZE)
    values: dict[str, Any] = {"model_wire_times": {f"{a}, {h} hosts": m
                                                   for (a, h), m in model.items()}}
    text = f"64 KiB, average time per node on {', '.join(map(str, hosts))} hosts"
    bad = no_result(points, text)
    jobs = None if bad is not None else _averages(judged, scheds)
    if bad is None and jobs is None:
        bad = Outcome(NO_RESULT, text, "a point carries no times of some node",
                      points=points)
    med = {k: statistics.median(v) for k, v in (jobs or {}).items()} | drawn_avg

    def at(a: str, h: int) -> float | None:
        return med.get((a if h != 2 else BASIC[0], h))

    values["plot"] = {"xlabel": "hosts", "ylabel": "average per node, ms", "logx": True,
                      "series": {a: [(h, v) for h in hosts if (v := at(a, h)) is not None]
                                 for a in BASIC}}
    if bad is not None or jobs is None:
        assert bad is not None
        bad.values, bad.context = values, shown
        return bad
    ratio = f"T({to})/T({GROWTH_FROM})"
    text += f" (median of {takes(ctx.quick)} jobs): " + "; ".join(
        f"{a} " + ", ".join(f"{v:.0f}" for h in hosts if (v := at(a, h)) is not None) + " ms"
        for a in BASIC) + (f" (a wire time {wire:.0f} ms)" if wire else "") + \
        f"; the model's {ratio} " + ", ".join(
            f"{a} {model[(a, to)] / model[(a, GROWTH_FROM)]:.2f}" for a in BASIC)
    gradients = _gradients(to)
    lo, hi = bootstrap(jobs, gradients)
    values["gradient_linear_over_chain"] = {"figure": gradients(med), "interval": [lo, hi]}
    text += (f"; shown: linear's gradient over chain's, {GROWTH_FROM} to {to} hosts, "
             f"{gradients(med):.2f} [{lo:.2f}, {hi:.2f}]")
    parts = [Part(f"{a} {ratio}", _growth(a, to), lo=margin) for a in LINEAR_CLASS]
    parts += [Part(f"{a} {ratio}", _growth(a, to), hi=margin) for a in TREE_CLASS]
    # paired: a take's points on `to` hosts run in one job (the growths above read two
    # jobs a take, each host count's own, and are drawn point by point)
    parts.append(Part(f"binomial / binary, {to} hosts",
                      lambda m: m[("binomial", to)] / m[("binary", to)],
                      hi=1.0, keys=(("binomial", to), ("binary", to)), paired=True))
    values["average_ms"] = {f"{a}, {h} hosts": v for (a, h), v in jobs.items()}
    out = judged_outcome(jobs, parts, text, values=values, points=points, context=shown,
                         differs=": the hosts' software on two shared cores, which each "
                                 "hop of the chain and each send of the trees pays")
    # where the jobs leave a part undecided: each job's own binomial / binary (its points
    # ran side by side in the job)
    by_job = {parts[-1].what: [b / t for b, t in zip(jobs[("binomial", to)],
                                                      jobs[("binary", to)], strict=True)]}
    return undecided_because(out, TURNS, by_job)


TURNS = (": the ranks share the 2 cores, and how they take turns moves a tree's time from job "
         "to job: the interval over 5 jobs is about their range, so one job apart from the "
         "rest holds the verdict")


def basic_margin(to: int = GROWTH_TO) -> str:
    return (f"at 64 KiB, the average time per node (as siebert.fragments-1m's) from "
            f"{GROWTH_FROM} to {to} hosts: sequential's and chain's growing by more than "
            f"{split(to)} (the model's linear {model_growth('sequential', to):.2f}), binary's "
            f"and binomial's by less (the model's {model_growth('binary', to):.2f} and "
            f"{model_growth('binomial', to):.2f}); binomial faster than binary on {to} hosts; "
            "linear's gradient against chain's shown")


CLAIMS = (
    Claim("siebert.fragments-1m", S, "Split into 64 KiB fragments, the chain broadcasts "
          "1 MiB to 8 nodes 3.67 x faster on average per node",
          PaperFigure("section 1.5.2, figures 3-4", "1 MiB to 8 nodes on Fast Ethernet, per "
                      "node: chain {0.090, 0.194, 0.297, 0.399, 0.503, 0.607, 0.709, 0.721} s, "
                      "average 0.440; fragmented chain (64 KiB fragments) {0.097, 0.104, 0.110, "
                      "0.116, 0.123, 0.130, 0.136, 0.142} s, average 0.120: \"the non-fragmented "
                      "version is therefore by a factor of 3.67 slower\"", FRAGMENTS),
          f"on 8 hosts at 1 MiB, the chain's average time per node (its return, or its last "
          f"message's arrival where later) over the fragmented "
          f"chain's (64 KiB fragments) within {FRAGMENTS_BAND:.0%} of 3.67 (the model with "
          "t_hold = t_end = m/B: 3.61)", fragments_1m, network="star16"),
    Claim("siebert.basic-scaling", S, "Linear and chain broadcasts grow linearly with the "
          "nodes, the trees logarithmically; binomial somewhat better than binary",
          PaperFigure("section 1.5.4, figure 10", "\"the performance chart of all four basic "
                      "algorithms (from 2 to 32 MPI processes) in figure 10 shows that ... "
                      "linear and chain ... scale linearly with the number of involved MPI "
                      "nodes (but the linear algorithm usually has a better gradient). The tree "
                      "algorithms ... scale logarithmically ... the binomial tree algorithm "
                      "performs somewhat better than the simple binary tree algorithm\" (the "
                      "plot's values and message size are not in the text)",
                      {"nodes": [2, 32]}),
          basic_margin(),
          basic_scaling, network="star16", in_quick=False),
)
