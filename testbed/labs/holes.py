"""Lab 6: hardware multicast with holes (Coll2003). The contiguous-mode controller serves a
multicast only to a gap-free range of nodes without a failed one; a broadcast around failed
nodes becomes a short tree of range multicasts (greedy and optimal, Algorithms 1 and 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collectives.call import BcastCall
from collectives.range_trees import KaryNTree, greedy_steps, optimal_steps
from controller.config import ControllerConfig
from controller.ranges import range_group

from ..emulation.group_probe import Member, send_counted
from ..measure.bcast_batch import Batched
from ..measure.options import RunOptions
from .answers import Question
from .lab import Lab
from .points import measure_together

K, N, NODES = 2, 3, 8
FAILED = (3, 5)
UP = [n for n in range(NODES) if n not in FAILED]
SENT, SIZE = 5, 65536
WAIT = "sleep"
WHOLE, LOW = range_group(0, NODES - 1), range_group(0, 2)
YES_NO = ("yes", "no")

QUESTIONS = (
    Question("steps.greedy", f"steps of the greedy range tree from node 0 to the nodes "
             f"left when {', '.join(map(str, FAILED))} failed", "int"),
    Question("steps.optimal", "steps of the optimal range tree", "int"),
    Question("ranges.greedy", "range multicasts in the greedy tree, all steps together",
             "int"),
    Question("frames.whole", f"with nodes {', '.join(map(str, FAILED))} failed, h0 sends "
             f"{SENT} datagrams to {WHOLE}, which h1..h{NODES - 1} joined: frames on h1's "
             "wire", "int"),
    Question("frames.low", f"... and to {LOW}, which h1 and h2 joined: frames on h1's wire",
             "int"),
    Question("delivered.range-tree", f"did range-tree deliver {SIZE} B to the {len(UP)} "
             "live nodes?", "choice", choices=YES_NO),
    *(Question(f"t_ms.{a}", f"measured t_mcast of {a}, {SIZE} B on the live nodes, ms",
               factor=1.6) for a in ("range-tree", "binomial")),
)


def measure(emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    tree = KaryNTree(K, N, NODES)
    greedy = greedy_steps(tree, 0, UP)
    out: dict[str, Any] = {"steps.greedy": len(greedy),
                           "steps.optimal": len(optimal_steps(tree, 0, UP)),
                           "ranges.greedy": sum(len(s) for s in greedy)}
    work = emu.run_dir / "lab6"
    work.mkdir(exist_ok=True)
    hosts = emu.hosts
    emu.fail_nodes(list(FAILED))
    try:
        for group, joined, key in ((WHOLE, hosts[1:], "frames.whole"),
                                   (LOW, hosts[1:3], "frames.low")):
            progress(f"lab 6: h0 sends to {group} with nodes {FAILED} failed")
            members = [Member(h, group, work) for h in joined]
            try:
                out[key] = send_counted(hosts, hosts[0], group, SENT, work)["h1"]
            finally:
                for m in members:
                    m.stop()
        live = [hosts[n].name for n in UP]
        progress(f"lab 6: range-tree and binomial, {SIZE} B on the live nodes (one job)")
        got = measure_together(emu, [Batched(alg, BcastCall(alg, SIZE), repetitions=5)
                                     for alg in ("range-tree", "binomial")],
                               RunOptions(hosts=live, wait=WAIT))
        for alg, r in got.items():
            out[f"t_ms.{alg}"] = round(r.median_s * 1e3, 2)
        out["delivered.range-tree"] = "yes" if got["range-tree"].verified else "no"
    finally:
        emu.fail_nodes(list(FAILED), failed=False)
    return out


LAB = Lab(6, "Hardware multicast with holes", "06-multicast-with-holes.md",
          f"fattree:k={K},n={N},bw=10", QUESTIONS, measure,
          ControllerConfig(mode="contiguous"), paper="Coll2003")
