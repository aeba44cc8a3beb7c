"""The tree of a broadcast measured at the prompt, for the live view (pure: no network, no
files): who sent the message to whom, in which order, on which hosts, known without
counting a frame. A point-to-point tree's is its schedule (collectives.trees.build, the
one its ranks built from the same call: the testbed hands the call as the ranks got it,
with its t_hold/t_end and placement), each rank's plain sends in program order (a
pipelined tree's pieces to one child are one send; scatter-allgather's scatter, its ring
of exchanges left out, as the report's tree figures draw it); DYN-Tree's is the one its
ranks reported for the last measured broadcast (who their parent was; the order of a
parent's sends is not reported). Each send is mapped from ranks to hosts and routed over
the topology (``Topology.path``). The others have no tree of sends to draw: a multicast
broadcast's frames follow the tree the controller installs for the job's group (the
page draws each group's trees), range multicasts reach ranges of nodes, MPICH's
MPI_Bcast picks its algorithm inside the library; ``note`` says which."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from collectives.call import BcastCall
from collectives.trees import Schedule, Send, build
from topologies.model import Topology

MULTICAST = ("one IP multicast from the root to the job's group: its frames follow the tree "
             "the controller installs for that group (drawn in the group's colour while it "
             "is installed)")
REPAIRS = {  # what a multicast broadcast does besides the multicast
    "two-stage": "; then a fragmented chain over point-to-point completes what it lost",
    "nack": "; ranks report missing fragments up a binomial tree, the root repairs them",
    "scout-linear": "; before it each rank sends a zero-byte scout to the root",
    "scout-binary": "; before it zero-byte scouts are gathered up a binary tree",
}
NOTES = {
    "mpi": "MPICH's MPI_Bcast chooses its algorithm inside the library: its tree is not "
           "known here",
    "range": "a tree of range multicasts, each reaching a range of nodes (the controller's "
             "range groups are ringed on the page)",
}


def tree_sends(schedule: Schedule) -> list[tuple[int, int, int]]:
    """(parent rank, child rank, send order at the parent, from 1) of every plain send of
    `schedule`, each rank's in program order, a child counted once (its pieces are one
    send)."""
    out: list[tuple[int, int, int]] = []
    for rank, program in enumerate(schedule.programs):
        children: list[int] = []
        for op in program:
            if isinstance(op, Send) and op.peer not in children:
                children.append(op.peer)
                out.append((rank, op.peer, len(children)))
    return out


def parent_sends(parents: Sequence[int | None]) -> list[tuple[int, int, int | None]]:
    """(parent rank, child rank, None) for a tree given by each rank's parent (None at the
    root): the order of a parent's sends is not known."""
    return [(p, r, None) for r, p in enumerate(parents) if p is not None]


def routed(topo: Topology, hosts: Sequence[str],
           sends: Sequence[tuple[int, int, int | None]]) -> list[dict[str, Any]]:
    """The sends between ranks as sends between their hosts (`hosts[r]`: rank r's), each with
    its route over the topology (node names, parent's host first)."""
    return [{"from": hosts[p], "to": hosts[c], "order": order,
             "path": topo.path(hosts[p], hosts[c])} for p, c, order in sends]


def bcast_tree(call: BcastCall, topo: Topology, hosts: Sequence[str],
               dyn_parents: Sequence[Sequence[int | None]] | None = None) -> dict[str, Any]:
    """The snapshot's ``bcast.tree`` of `call` (as its ranks got it) run on `hosts` (rank
    order): ``kind`` (``schedule``, ``dynamic``, or the family without sends to draw:
    ``multicast``, ``range``, ``mpi``), ``note`` (what the tree is) and ``sends``
    (``from``, ``to``: hosts, ``order``: the parent's 1st, 2nd ... send, or None where
    not known; ``path``: the route). `dyn_parents`: DYN-Tree's reported parents, per
    measured broadcast."""
    record = call.record
    if record.family == "dynamic":
        if not dyn_parents:
            return {"kind": "dynamic", "note": "DYN-Tree reported no tree", "sends": []}
        return {"kind": "dynamic",
                "note": f"DYN-Tree's tree of the last of {len(dyn_parents)} measured "
                        "broadcasts, as its ranks reported their parents (the order of a "
                        "parent's sends is not reported)",
                "sends": routed(topo, hosts, parent_sends(dyn_parents[-1]))}
    if record.scheduled:
        try:
            schedule = build(record, len(hosts), call.root, call.size, **call.params())
            sends = routed(topo, hosts, tree_sends(schedule))
        except ValueError as exc:  # the ranks built it, so this one should not fail: said
            return {"kind": "schedule", "note": f"its schedule could not be rebuilt: {exc}",
                    "sends": []}
        note = "the schedule its ranks ran"
        if record.name == "scatter-allgather":
            note += "; the binomial scatter is drawn, not the ring allgather after it"
        return {"kind": "schedule", "note": note, "sends": sends}
    if record.family == "multicast":
        return {"kind": "multicast", "note": MULTICAST + REPAIRS.get(record.name, ""),
                "sends": []}
    return {"kind": record.family, "note": NOTES.get(record.family, "no tree known"),
            "sends": []}
