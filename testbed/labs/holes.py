"""Lab 6: hardware multicast with holes (Coll2003). The contiguous-mode controller serves a
multicast only to a gap-free range of nodes without a failed one; a broadcast around failed
nodes becomes a short tree of range multicasts (greedy and optimal, Algorithms 1 and 2)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
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
from .variant import Knob, Values, VariantSpace

K, N, NODES = 2, 3, 8
FAILED = (3, 5)
SENT, SIZE = 5, 65536
WAIT = "sleep"
WHOLE, LOW = range_group(0, NODES - 1), range_group(0, 2)
YES_NO = ("yes", "no")

# what a student's variant may change (testbed.labs.variant): the handout's values first.
# Nodes 0..2 stay up: 0 is the root and h1 and h2 make the low range, whose frames on h1's
# wire a question counts.
VARIANTS = VariantSpace((
    Knob("failed", "the failed nodes", list(FAILED), tuple(range(3, NODES)), sizes=(2, 3)),
    Knob("sent", "datagrams per send", SENT, tuple(range(3, 13))),
), graded=("failed", "sent"))


def questions(v: Values) -> tuple[Question, ...]:
    failed, sent = ", ".join(map(str, v["failed"])), v["sent"]
    live = NODES - len(v["failed"])
    return (
        Question("steps.greedy", f"steps of the greedy range tree from node 0 to the nodes "
                 f"left when {failed} failed", "int"),
        Question("steps.optimal", "steps of the optimal range tree", "int"),
        Question("ranges.greedy", "range multicasts in the greedy tree, all steps together",
                 "int"),
        Question("frames.whole", f"with nodes {failed} failed, h0 sends {sent} datagrams "
                 f"to {WHOLE}, which h1..h{NODES - 1} joined: frames on h1's wire", "int"),
        Question("frames.low", f"... and to {LOW}, which h1 and h2 joined: frames on h1's "
                 "wire", "int"),
        Question("delivered.range-tree", f"did range-tree deliver {SIZE} B to the {live} "
                 "live nodes?", "choice", choices=YES_NO),
        *(Question(f"t_ms.{a}", f"measured t_mcast of {a}, {SIZE} B on the live nodes, ms",
                   factor=1.6) for a in ("range-tree", "binomial")),
    )


QUESTIONS = questions(VARIANTS.defaults())


def measure(v: Values, emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    """Lab 6 with the values `v` (VARIANTS: the handout's, or a student's variant)."""
    failed, sent = list(v["failed"]), v["sent"]
    up = [n for n in range(NODES) if n not in failed]
    tree = KaryNTree(K, N, NODES)
    greedy = greedy_steps(tree, 0, up)
    out: dict[str, Any] = {"steps.greedy": len(greedy),
                           "steps.optimal": len(optimal_steps(tree, 0, up)),
                           "ranges.greedy": sum(len(s) for s in greedy)}
    work = emu.run_dir / "lab6"
    work.mkdir(exist_ok=True)
    hosts = emu.hosts
    emu.fail_nodes(failed)
    try:
        for group, joined, key in ((WHOLE, hosts[1:], "frames.whole"),
                                   (LOW, hosts[1:3], "frames.low")):
            progress(f"lab 6: h0 sends to {group} with nodes {failed} failed")
            members = [Member(h, group, work) for h in joined]
            try:
                out[key] = send_counted(hosts, hosts[0], group, sent, work)["h1"]
            finally:
                for m in members:
                    m.stop()
        live = [hosts[n].name for n in up]
        progress(f"lab 6: range-tree and binomial, {SIZE} B on the live nodes (one job)")
        got = measure_together(emu, [Batched(alg, BcastCall(alg, SIZE), repetitions=5)
                                     for alg in ("range-tree", "binomial")],
                               RunOptions(hosts=live, wait=WAIT))
        for alg, r in got.items():
            out[f"t_ms.{alg}"] = round(r.median_s * 1e3, 2)
        out["delivered.range-tree"] = "yes" if got["range-tree"].verified else "no"
    finally:
        emu.fail_nodes(failed, failed=False)
    return out


def build(v: Values) -> Lab:
    """Lab 6 with the values `v`: its questions and measurement."""
    return Lab(6, "Hardware multicast with holes", "06-multicast-with-holes.md",
               f"fattree:k={K},n={N},bw=10", questions(v), partial(measure, dict(v)),
               ControllerConfig(mode="contiguous"), paper="Coll2003", variants=VARIANTS,
               build=build, values=dict(v))


LAB = build(VARIANTS.defaults())
