"""--out DIR of a command that prints its result (bcast, allgather, osu, params, multinode,
calibrate, lab --check; pingpong, experiment, testbed, bench and reproduce write a results
folder there instead): what it prints goes to the terminal as always and, when it ends,
into a new folder made in DIR (COMMAND-DATE-TIME/output.txt, or result.json with --json)
by safepath. main.py wraps the command in `kept`; arguments.add_out adds the option."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from ..safepath import new_folder, planned_folder, write_file


class Tee(io.TextIOBase):
    """A text stream writing to `out` and keeping a copy."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out, self.copy = out, io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def isatty(self) -> bool:
        return self.out.isatty()

    def fileno(self) -> int:
        return self.out.fileno()


@contextlib.contextmanager
def kept(args: argparse.Namespace) -> Iterator[None]:
    """Run the command's body; with --out (of add_out) keep its standard output in a new
    folder made in it. The folder is checked before the command starts."""
    root = getattr(args, "out", None) if getattr(args, "keeps_output", False) else None
    if root is None:
        yield
        return
    planned_folder("--out", root)
    tee = Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield
    name = f"{args.command}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder = new_folder("--out", root, name)
    file = folder / ("result.json" if getattr(args, "json", False) else "output.txt")
    write_file("--out", file, tee.copy.getvalue())
    print(f"mcastlab: kept in {file}", file=sys.stderr)
