"""Every algorithm of the registry described in full, for people (``mcastlab algorithms``)
and programs (its ``--json``): its collective, family, paper, the options it takes with
their defaults, and its names in MPICH, Open MPI and SimGrid.

Generated, never written by hand: the records are collectives.algorithms' (names, families,
papers, needs, ELSEWHERE), and the defaults are read from the constants and dataclasses the
runners use (schedules.DEFAULT_FRAGMENT, ipmc.message.Options, range_trees.bcast.RangeOptions,
the registry's DEFAULT_SEND_ORDER, ...), so the table cannot drift from the code
(tests/unit/collectives/test_catalog.py gives every option listed to the executor's check).
Pure: imports no MPI, no testbed."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from .algorithms import (
    ACK_OPTIONS,
    COMPLETIONS,
    DEFAULT_COMPLETION,
    DEFAULT_RELEASE,
    DEFAULT_SEND_ORDER,
    ELSEWHERE,
    FAMILIES,
    LIBRARIES,
    RELEASES,
    SEND_ORDERS,
    Algorithm,
    Foreign,
    foreign,
)
from .algorithms import COLLECTIVES as RECORDS
from .executor import allgather_takes
from .ipmc import sockbuf
from .ipmc.deadline import TIMEOUT_S
from .ipmc.message import PACE, Options
from .range_trees.bcast import RangeOptions
from .trees.dyntree import StaticParams
from .trees.schedules import ALLGATHERS as SCATTER_ALLGATHERS
from .trees.schedules import DEFAULT_BLOCKSIZE, DEFAULT_FRAGMENT, TREES

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["COLLECTIVES", "Option", "entry", "known_as", "lookup", "options", "table"]

COLLECTIVES = tuple(RECORDS)  # bcast, barrier, allgather
REQUIRED = "required"  # Option.default of an option without one


@dataclass(frozen=True)
class Option:
    """An option an algorithm takes (a keyword of collectives.bcast / barrier, `-o NAME=V`
    in the drop-in): its default (a JSON value, None for "none", REQUIRED for none at all)
    and, where the default is not a plain value, what it is (`default_text`)."""

    name: str
    default: Any
    meaning: str
    default_text: str = ""
    brief: str = ""  # default_text in a word or two, for a table's cell

    @property
    def short(self) -> str:
        """The default in a table's cell."""
        return self.brief or self.shown

    @property
    def shown(self) -> str:
        """The default as the table shows it."""
        if self.default_text:
            return self.default_text
        return str(self.default)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "default": None if self.default == REQUIRED else self.default,
                "required": self.default == REQUIRED, "default_text": self.shown,
                "meaning": self.meaning}


def _choices(table: dict[str, str]) -> str:
    return " or ".join(table)


SEND_ORDER = Option("send_order", DEFAULT_SEND_ORDER,
                    f"how a node sends to its children: {_choices(SEND_ORDERS)}")
NODES = Option("nodes", None, "the network node of every rank", "rank i on node i", "rank i")
TIMING = (Option("t_hold", REQUIRED, "the model's holding time of a send at this size, s",
                 "measured (by mcastlab bcast, specs, the drop-in)", "measured"),
          Option("t_end", REQUIRED, "the model's end-to-end time of a message at this size, s",
                 "measured (by mcastlab bcast, specs, the drop-in)", "measured"))
DYN_SPLIT = Option("t_hs..t_rd", None,
                   "DYN-Tree's six static parameters t_hs, t_hd, t_ns, t_nd, t_rs, t_rd (send, "
                   "network, receive: start and per-byte), in place of t_hold and t_end",
                   "from t_hold and t_end", "from t_hold/t_end")
GEOMETRY = {
    "mesh": Option("mesh", None, "(rows, cols) of the mesh the ranks are on", "a 1 x N line",
                   "1 x N"),
    "torus": Option("torus", None, "(rows, cols) of the torus the ranks are on",
                    "a 1 x N line", "1 x N"),
    "bmin": Option("bmin", None, "(k, n) of the BMIN: k x k switches, n stages",
                   "(2, the bits of the highest node)", "(2, bits)"),
}
MULTICAST_MEANINGS = {
    "fragment": "payload bytes per datagram",
    "rate": "the root's pace, bit/s (None: unpaced)",
    "timeout": "deadline of a wait, s (a MulticastError after it, never a hang)",
    "root_wait_us": "the root's pause before it multicasts, us",
    "rcvbuf": "receive buffer asked for the group socket, bytes (the kernel doubles it; 0: "
              "not set, the kernel's default)",
    "crossover_nodes": "up to this many ranks the two-stage broadcast is a linear one",
    "crossover_size": "above this many bytes it is the plain fragmented chain",
    "nodes": NODES.meaning,
    "fattree": "(k, nodes of the network) of the k-ary n-tree",
    "tree": "greedy or optimal range-multicast tree (Coll2003)",
    "setup_timeout": "how long the first use of a tree waits for its ranges, s",
    "idle": "after the end marker, quiet this long means the rest is lost, s",
    "poke_after": "a receiver missing fragments asks the root again after this long, s",
}
BRIEF = {"fragment": "channel's", "rate": "link rate", "nodes": "rank i", "fattree": "(4, ranks)"}
DEFAULT_TEXTS = {
    "fragment": "the channel's (the largest datagram payload the link carries)",
    "rate": f"{PACE:g} x the slowest host link (MCASTLAB_LINK_MBIT), unpaced without it",
    "nodes": NODES.default_text,
    "fattree": "(4, the number of ranks)",
}
TWO_STAGE_ONLY = ("crossover_nodes", "crossover_size")


def _fields(cls: type, skip: tuple[str, ...] = (), algorithm: str = "") -> tuple[Option, ...]:
    """One option per field of the options dataclass `cls`, its default read from it (the
    receive buffer's from ipmc.sockbuf, per algorithm)."""
    out = []
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        if f.name == "rcvbuf":
            out.append(_rcvbuf(algorithm))
            continue
        default = None if f.default is dataclasses.MISSING else f.default
        out.append(Option(f.name, default, MULTICAST_MEANINGS.get(f.name, ""),
                          DEFAULT_TEXTS.get(f.name, ""), BRIEF.get(f.name, "")))
    return tuple(out)


def _rcvbuf(algorithm: str) -> Option:
    value = sockbuf.default_for(algorithm)
    text, brief = (("not set: the kernel's default (net.core.rmem_default), as the paper's "
                    "sockets had", "kernel's") if value == sockbuf.KERNEL else
                   (f"{value >> 20} MiB (ours: docs/ip-multicast.md#receive-buffers)",
                    f"{value >> 20} MiB"))
    return Option("rcvbuf", value, MULTICAST_MEANINGS["rcvbuf"], text, brief)


def options(alg: Algorithm) -> tuple[Option, ...]:
    """The options `alg` takes, as its runner reads them."""
    if alg.collective == "allgather":  # ring, recursive doubling, Bruck, MPICH's: none
        taken = set(allgather_takes(alg))  # the executor's check: what it accepts
        return tuple(o for o in _fields(Options, (), alg.name) if o.name in taken)
    if alg.collective == "barrier":
        if alg.release:
            return (Option("timeout", TIMEOUT_S, MULTICAST_MEANINGS["timeout"]),
                    Option("release", DEFAULT_RELEASE,
                           f"how the ranks are released: {_choices(RELEASES)}"))
        return _fields(RangeOptions) if alg.family == "range" else ()
    out: list[Option] = []
    if alg.send_order:
        out.append(SEND_ORDER)
    if alg.name == "fragmented-chain":
        out.append(Option("fragment", DEFAULT_FRAGMENT, "bytes per piece of the pipeline"))
    elif alg.name in TREES:  # a plain tree, pipelined in pieces as Open MPI's segsize
        out.append(Option("fragment", None, "bytes per piece: the tree pipelined in pieces "
                          "(Open MPI's segmented trees)", "the message whole", "whole"))
    if alg.name == "scatter-allgather":
        out.append(Option("allgather", "ring", "the allgather of its second phase: "
                          + _choices(SCATTER_ALLGATHERS)))
    if alg.name == "block-binomial":
        out.append(Option("blocksize", DEFAULT_BLOCKSIZE,
                          "nodes a block (1: the binomial tree; the ranks: sequential)"))
    if alg.timing:
        out.extend(TIMING)
    if alg.family == "dynamic":
        out.append(DYN_SPLIT)
    if alg.geometry in GEOMETRY:
        out.extend((GEOMETRY[alg.geometry], NODES))
    if alg.family == "multicast":
        skip = (() if alg.name == "two-stage" else TWO_STAGE_ONLY) + (
            () if alg.reports else ACK_OPTIONS)
        out.extend(_fields(Options, skip, alg.name))
        if alg.completion:
            out.append(Option("completion", DEFAULT_COMPLETION,
                              f"how the receivers end it: {_choices(COMPLETIONS)}"))
    if alg.family == "range":
        out.extend(_fields(RangeOptions))
    return tuple(out)


@functools.cache
def taken(alg: Algorithm) -> frozenset[str]:
    """The names of the options `alg` takes (those `options` lists; DYN-Tree's six static
    parameters each by its name): for a broadcast, what the drop-in gives it of the one set
    of options it shares with the other collectives (collectives.executor.bcast_takes, held
    equal to this by a unit test)."""
    names = {o.name for o in options(alg)}
    if DYN_SPLIT.name in names:
        names = (names - {DYN_SPLIT.name}) | {f.name for f in dataclasses.fields(StaticParams)}
    return frozenset(names)


def entry(alg: Algorithm) -> dict[str, Any]:
    """Everything said of `alg`, as JSON values."""
    there = ELSEWHERE.get((alg.collective, alg.name), {})
    return {"name": alg.name, "collective": alg.collective, "family": alg.family,
            "family_text": FAMILIES[alg.family], "paper": alg.paper or None,
            "summary": alg.summary, "options": [o.to_dict() for o in options(alg)],
            "needs": {"timing": alg.timing, "geometry": alg.geometry or None,
                      "nodes": alg.nodes},
            "elsewhere": {lib: ({"name": e.name, "same": e.same, "note": e.note}
                                if (e := there.get(lib)) else None) for lib in LIBRARIES}}


def table(collective: str | None = None) -> list[Algorithm]:
    """The registry's records, broadcasts, barriers, then allgathers, each in the registry's
    order."""
    if collective not in (None, *COLLECTIVES):
        raise ValueError(f"collective must be one of {', '.join(COLLECTIVES)}, got "
                         f"{collective!r}")
    return [a for c, records in RECORDS.items() if collective in (None, c)
            for a in records.values()]


def lookup(name: str, collective: str | None = None) -> list[Algorithm]:
    """The records named `name` (a broadcast and a barrier may share one), else those
    another library calls so (collectives.algorithms.FOREIGN_NAMES: MPICH's control
    variable values and MPIR_ functions, Open MPI's and SimGrid's names; any case), or
    ValueError listing the names."""
    found = [a for a in table(collective) if a.name == name]
    if not found:
        found = list(dict.fromkeys(f.algorithm for f in foreign(name, collective)))
    if not found:
        known = dict.fromkeys(a.name for a in table(collective))
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(known)} (or "
                         "its name in MPICH, Open MPI or SimGrid)")
    return found


def known_as(name: str, alg: Algorithm) -> list[Foreign]:
    """The names of another library `name` is for `alg` (none when it is ours)."""
    return [] if name == alg.name else [f for f in foreign(name, alg.collective)
                                        if f.algorithm == alg]
