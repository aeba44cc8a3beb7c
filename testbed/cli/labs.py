"""The teaching labs: list them, open one, check or solve its answers."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError
from ..outputs import output_file
from .arguments import (
    progress,
    script_file,
)


def cmd_lab(args: argparse.Namespace) -> int:
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..labs import runner

    if args.number is None:
        if args.check or args.solve or args.script or args.against:
            raise UsageError("give the lab's number, e.g. mcastlab lab 1 --check answers.toml")
        print(runner.listing())
        return 0
    lab = runner.get(args.number)
    if sum(map(bool, (args.check, args.solve, args.script))) > 1:
        raise UsageError("--check, --solve and --script do not go together")
    if args.against and not args.check:
        raise UsageError("--against judges the files of --check: mcastlab lab N --check "
                         "FILE... --against KEY")
    if args.check:
        key = Path(args.against) if args.against else None
        return runner.check_files(lab, [Path(f) for f in args.check], progress, key)
    if args.solve:  # the file checked before the measurement, not after it
        out = None if args.solve == "-" else output_file("--solve", args.solve)
        return runner.solve(lab, out, progress)
    script = script_file(args)
    # testbed.cli.interactive loads Mininet: only where a network is built
    from .interactive import open_prompt

    return runner.open_lab(lab, script, progress, open_prompt)


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lab", help="the teaching labs (labs/): list them, set one's network "
                                   "up, check answers against the testbed's measurement")
    p.add_argument("number", type=int, nargs="?", help="the lab (none: list the labs)")
    p.add_argument("--check", nargs="+", metavar="ANSWERS.toml",
                   help="measure the lab on the testbed and check these answer files "
                        "(exit 5 if an answer is wrong)")
    p.add_argument("--against", metavar="KEY.toml",
                   help="with --check: judge the files against this key (written by --solve) "
                        "instead of measuring: no network, no root")
    p.add_argument("--solve", metavar="FILE", help="measure the lab and write the testbed's "
                                                  "own answers to FILE ('-': stdout)")
    p.add_argument("--script", metavar="FILE", help="run the prompt's commands in FILE")
    p.set_defaults(func=cmd_lab)
