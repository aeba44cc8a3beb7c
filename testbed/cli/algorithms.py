"""Commands that need neither root nor a network: a broadcast schedule and its predicted
latency (trees), greedy against optimal range-multicast trees (range-trees)."""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Callable, Iterator

from collectives.algorithms import lookup, names
from collectives.contention import Timed
from collectives.range_trees import (
    DEFAULT_BUDGET,
    KaryNTree,
    RangeTree,
    SearchLimitExceeded,
    check_config,
    greedy_tree,
    hwtree_trials,
    optimal_tree,
)
from collectives.trees import describe_schedule
from topologies import parse_spec

from ..errors import McastlabError, UsageError
from ..measure.rank_placement import contended, node_params
from ..results import step_line, text_table
from .arguments import (
    int_list,
    old_spelling,
    progress,
    topology,
)
from .steps import progress_bar
from .values import POSITIVE_SIZE, SIZE, fraction, node, nodes


def cmd_trees(args: argparse.Namespace) -> int:

    nodes = int_list("--rank-nodes", args.rank_nodes) if args.rank_nodes is not None else None
    if nodes is not None and args.topo is None:
        raise UsageError("--rank-nodes places the ranks on a network: give --topo too")
    k = args.k if args.k is not None else (len(nodes) if nodes is not None else None)
    if k is None:
        raise UsageError("give --k (number of nodes) or --rank-nodes")
    if nodes is not None and len(nodes) != k:
        raise UsageError(f"--rank-nodes gives {len(nodes)} nodes, --k says {k}")
    algorithm = lookup("bcast", args.algorithm)  # argparse's choices: the registry's names
    if algorithm.nodes and args.topo is None:
        raise UsageError(f"{args.algorithm} follows a network's routing: give --topo, e.g. "
                         "--topo mesh:rows=6,cols=6")
    nodes = nodes if nodes is not None else list(range(k))  # read only with a topology
    topo = placement = None
    if args.topo is not None:
        try:
            topo = parse_spec(args.topo)
        except (ValueError, TypeError, OSError) as exc:
            raise UsageError(f"--topo: {exc}") from None
        hosts = {h.node_id: h.name for h in topo.hosts}
        bad = [n for n in nodes if n not in hosts]
        if bad or len(set(nodes)) != len(nodes):
            raise UsageError(f"--rank-nodes must be distinct nodes of {topo.name} (0.."
                             f"{len(hosts) - 1}), got {nodes}")
        try:
            placement = node_params(topo, algorithm, [hosts[n] for n in nodes])
        except McastlabError as exc:
            raise UsageError(str(exc)) from None
    try:
        d = describe_schedule(args.algorithm, k, args.t_hold, args.t_end, root=args.root,
                     nbytes=args.size, ports=args.ports, t_int=args.t_int,
                     fragment=args.fragment, placement=placement)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    if topo is not None:
        sends = [Timed(nodes[s["sender"]], nodes[s["receiver"]], s["time"])
                 for s in d["schedule"]]
        d.update(topology=topo.name, nodes=nodes, contended=[
            {"sends": [[x.sender, x.receiver, x.start], [y.sender, y.receiver, y.start]],
             "links": sorted(f"{a}>{b}" for a, b in shared)}
            for x, y, shared in contended(topo, sends, args.t_hold)])
    if args.json:
        print(json.dumps(d, indent=1))
        return 0
    print(f"{d['algorithm']}, k={d['k']}, root {d['root']}, t_hold={d['t_hold']:g}, "
          f"t_end={d['t_end']:g}" + (f", {d['ports']} ports, t_int={d['t_int']:g}"
                                      if d["ports"] > 1 else "")
          + (f", on {d['topology']}" if "topology" in d else ""))
    where = (lambda r: f"{r}(h{nodes[r]})") if topo is not None else str
    for s in d["schedule"]:
        port = f" (port {s['port']})" if "port" in s else ""
        print(f"  t={s['time']:>10g}  {where(s['sender']):>7} -> {where(s['receiver']):<7} "
              f"arrives {s['arrival']:g}{port}")
    print(f"predicted t_mcast = {d['predicted']:g}")
    if "contended" in d:
        print(f"sends under way together on a shared link: {len(d['contended'])} pairs")
        for c in d["contended"]:
            (a, b, ta), (x, y, tx) = c["sends"]
            print(f"  h{a}->h{b} at {ta:g} and h{x}->h{y} at {tx:g} share "
                  + ", ".join(c["links"]))
    return 0


@contextlib.contextmanager
def _trial_progress(total: int) -> Iterator[Callable[[int, int], None]]:
    """A progress callback for long pure computations, on stderr: the bar of steps.py on a
    terminal, otherwise a line (results.step_line) at most every 10 s."""
    bar = progress_bar(transient=True)
    if bar.console.is_terminal:
        with bar:
            task = bar.add_task("trials", total=total)
            yield lambda done, _total: bar.update(task, completed=done)
        return
    began = last = time.monotonic()

    def plain(done: int, total_: int) -> None:
        nonlocal last
        if time.monotonic() - last >= 10 and done < total_:
            last = time.monotonic()
            progress(step_line(done, total_, "random trials", last - began))

    yield plain


def _hwtree_failed(args: argparse.Namespace) -> int:
    """The greedy and the optimal tree around these failed nodes, step by step."""
    try:
        tree = KaryNTree.for_nodes(args.nodes, args.arity)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    failed = set(args.failed)
    bad = sorted(n for n in failed if not 0 <= n < args.nodes)
    if bad or args.root in failed or not 0 <= args.root < args.nodes:
        raise UsageError(f"--failed and --root must be nodes 0..{args.nodes - 1} and the root "
                         f"must not fail (got failed {sorted(failed)}, root {args.root})")
    up = [n for n in range(args.nodes) if n not in failed]
    trees: dict[str, RangeTree | None] = {"greedy": greedy_tree(tree, args.root, up)}
    try:
        trees["optimal"] = optimal_tree(tree, args.root, up, args.budget)
    except SearchLimitExceeded:
        trees["optimal"] = None
    if args.json:
        print(json.dumps({name: t and [[vars(m) for m in step] for step in t.steps()]
                          for name, t in trees.items()}, indent=1))
        return 0
    print(f"{args.nodes} nodes ({tree.arity}-ary {tree.dims}-tree), root {args.root}, failed "
          f"{', '.join(map(str, sorted(failed))) or 'none'}")
    for name, t in trees.items():
        if t is None:
            print(f"{name}: undecided within {args.budget} search states")
            continue
        print(f"{name}: {t.depth} steps, {len(t.multicasts)} range multicasts")
        for i, step in enumerate(t.steps(), 1):
            print(f"  step {i}: " + ", ".join(f"{m.sender} -> {m.lo}..{m.hi}" for m in step))
    return 0


def cmd_hwtree(args: argparse.Namespace) -> int:
    if args.failed is not None:
        if args.faulty is not None or args.repetitions is not None:
            raise UsageError("--failed shows one tree; --faulty/--repetitions draw random ones")
        return _hwtree_failed(args)
    if args.faulty is None or args.repetitions is None:
        raise UsageError("give --faulty and --repetitions (random faulty nodes), or --failed N,N")

    try:
        tree = check_config(args.nodes, args.faulty, args.repetitions, args.arity)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.budget < 1:
        raise UsageError(f"--budget must be >= 1, got {args.budget}")
    with _trial_progress(args.repetitions) as progress:
        stats = hwtree_trials(args.nodes, args.faulty, args.repetitions, seed=args.seed,
                              arity=args.arity, budget=args.budget, progress=progress)
    if args.json:
        print(json.dumps(stats.to_dict(), indent=1))
        return 0

    greedy, optimal = stats.fractions(stats.greedy), stats.fractions(stats.optimal)
    rows = [[d, f"{greedy.get(d, 0):.1%}", f"{optimal[d]:.1%}" if d in optimal else "-"]
            for d in sorted(set(greedy) | set(optimal))]
    print(f"{stats.nodes} nodes ({tree.arity}-ary {tree.dims}-tree), {stats.faulty_nodes} "
          f"faulty ({args.faulty:.2%}), {stats.trials} trials, seed {stats.seed}")
    print(text_table(["steps", "greedy", "optimal"], rows))
    if stats.undecided:
        print(f"undecided: {stats.undecided} trials (the optimal search exceeded "
              f"{args.budget} states; optimal column over the other {stats.decided})")
    print(f"greedy optimal in {stats.greedy_optimal_fraction:.1%} of {stats.decided} "
          f"decided trials")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trees", help="a broadcast schedule and its predicted latency "
                                     "(no root needed)")
    p.add_argument("algorithm", choices=names("tree", "contention"))
    p.add_argument("--k", type=int, help="number of nodes (default: as many as --rank-nodes)")
    p.add_argument("--t-hold", type=float, required=True)
    p.add_argument("--t-end", type=float, required=True)
    p.add_argument("--root", type=int, default=0, help="the root rank (default %(default)s)")
    p.add_argument("--size", type=SIZE, default=0,
                   help="message bytes (byte ranges shown; default %(default)s)")
    p.add_argument("--fragment", type=POSITIVE_SIZE, help="fragmented-chain fragment size")
    p.add_argument("--ports", type=int, default=1,
                   help="alpha ports (opt-tree; default %(default)s)")
    p.add_argument("--t-int", type=float, help="interval between sends on different ports")
    p.add_argument("--topo", metavar="SPEC", type=topology,
                   help="place the ranks on this network (shape[:k=v,...]; needed by opt-mesh, "
                        "u-mesh, u-torus, opt-min) and list the sends that share one of its "
                        "links while both are under way (each holds its path for t_hold)")
    p.add_argument("--rank-nodes", metavar="N,N,...",
                   help="the node of each rank on --topo (default rank i on node i)")
    old_spelling(p, "--nodes", "--rank-nodes", metavar="N,N,...")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_trees)

    p = sub.add_parser("range-trees", help="greedy vs optimal trees of hardware range multicasts "
                                      "over random faulty nodes (Coll2003; no root needed)")
    p.add_argument("--nodes", type=int, required=True,
                   help="network size: a power of the arity, or whole top-level subtrees")
    p.add_argument("--faulty", type=fraction, metavar="F",
                   help="fraction of faulty nodes, 0 <= F < 1, or a percentage (5%%; "
                        "rounded to whole nodes)")
    p.add_argument("--repetitions", type=int, metavar="N",
                   help="random draws of faulty nodes (trials)")
    old_spelling(p, "--trials", "--repetitions", type=int, metavar="N")
    p.add_argument("--failed", type=nodes, metavar="N,N,...",
                   help="instead of random trials: the greedy and optimal trees around "
                        "these failed nodes (h3 or 3), step by step")
    p.add_argument("--root", type=node, default=0,
                   help="source node (h0 or 0) with --failed (default %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the random draws (default %(default)s)")
    p.add_argument("--arity", type=int, default=4, help="switch arity k (default 4, QsNET)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="STATES",
                   help="optimal-search states per trial before it counts as undecided "
                        "(default %(default)s)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_hwtree)
