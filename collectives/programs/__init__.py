"""The MPI programs the testbed runs in the emulated hosts (`python -m collectives.programs.X`
under mpiexec; each prints JSON from rank 0): measuring broadcasts (bcast_bench, sweep_bench,
naive_bench, multinode_bench), barriers (barrier_bench), both as the OSU micro-benchmarks
do (osu), waiting (idle_bench), the point-to-point parameters (params), a ping-pong
(pingpong), and correctness (verify; the allgathers': allgather_check)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any


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
