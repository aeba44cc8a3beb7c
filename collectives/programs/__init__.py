"""The MPI programs the testbed runs in the emulated hosts (`python -m collectives.programs.X`
under mpiexec; each prints JSON from rank 0): measuring broadcasts (bcast_bench, sweep_bench,
naive_bench, multinode_bench), barriers (barrier_bench), both as the OSU micro-benchmarks
do (osu), waiting (idle_bench), the point-to-point parameters (params), a ping-pong
(pingpong), and correctness (verify; the allgathers': allgather_check)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

# The programs import what only one branch needs (a family's modules, the multicast channel,
# DYN-Tree's) inside that branch, as collectives.executor does its runners': every rank
# imports its program when an MPI job starts, and a 16-host job's 16 ranks share 2 cores.
CHANNEL = "collectives.ipmc.channel"  # the multicast channel's module (peek_stats)


def command(module: str, ap: argparse.ArgumentParser, **values: Any) -> list[str]:
    """The python arguments that run program `module` with `values` (by the dest names of
    its parser `ap`), written so that `ap` reads them back: True a flag (store_true), False
    the flag of a store_false option, a list or tuple comma-joined, anything else as text;
    None leaves the option out. Each program's `argv` is this with its own parser, so the
    testbed never spells a program's flags by hand."""
    # argparse keeps its actions in _actions, the one way to read a parser's options back
    actions = {a.dest: a for a in ap._actions if a.default != argparse.SUPPRESS}  # not -h
    unknown = set(values) - set(actions)
    if unknown:
        raise TypeError(f"{module} takes no {', '.join(sorted(unknown))}")
    words: list[str] = []
    positional: list[str] = []
    for dest, value in values.items():
        action = actions[dest]
        if value is None:
            continue
        if action.nargs == 0:  # store_true (const True) or store_false (const False)
            if bool(value) == action.const:
                words.append(action.option_strings[-1])
            continue
        text = (",".join(map(str, value)) if isinstance(value, Sequence)
                and not isinstance(value, str) else str(value))
        if action.option_strings:
            words += [action.option_strings[-1], text]
        else:
            positional.append(text)
    return ["-m", module, *positional, *words]


def peek_stats(comm: Any) -> dict[str, Any] | None:
    """The communicator's multicast channel's counters (ipmc.channel.peek_stats), None where
    it has none. A rank that never imported the channel's module has no channel: the
    point-to-point algorithms' ranks then do not import the multicast code (~10 ms of a
    rank's start-up, OpenSSL's hashlib among it) only to find that out."""
    channel = sys.modules.get(CHANNEL)
    return None if channel is None else channel.peek_stats(comm)


def peek_repair(comm: Any) -> Any:
    """ipmc.channel.peek_repair (the repair account of the broadcast this rank just rooted)
    where the channel's module is loaded (peek_stats), else None."""
    channel = sys.modules.get(CHANNEL)
    return None if channel is None else channel.peek_repair(comm)


def peek_arrivals(comm: Any, after_bid: int = 0) -> dict[int, bytes]:
    """ipmc.channel.peek_arrivals where the channel's module is loaded (peek_stats), else
    none."""
    channel = sys.modules.get(CHANNEL)
    return {} if channel is None else channel.peek_arrivals(comm, after_bid)


def add_layout_arguments(ap: argparse.ArgumentParser) -> None:
    """--nodes and --fattree of a benchmark's command line (see `layout_arguments`)."""
    ap.add_argument("--nodes", help="range-tree: the network node of every (world) rank, "
                                    "comma-separated (default: rank i on node i)")
    ap.add_argument("--fattree", help="range-tree: K,N: arity and node count of the fat tree")


def layout_arguments(args: argparse.Namespace) -> dict[str, list[int]]:
    """nodes= and fattree= as given on the command line (each only if given)."""
    return {key: [int(x) for x in value.split(",")] for key in ("nodes", "fattree")
            if (value := getattr(args, key))}
