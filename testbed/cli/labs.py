"""The teaching labs: list them, open one (a student's variant of it too), check answers
(a class's, into a gradebook), write or sign the instructor's key, write a class's variant
files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..live.view import check_available
from ..safepath import output_file
from .arguments import (
    add_out,
    progress,
    refused,
    script_file,
)
from .network import add_web_options, live_view
from .steps import Steps


def cmd_lab(args: argparse.Namespace) -> int:
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..labs import exports, runner, secret, variant_runs

    modes = {"--check": args.check, "--solve": args.solve, "--script": args.script,
             "--sign": args.sign, "--variant-files": args.variant_files, "--spec": args.spec}
    if args.number is None:
        if any(modes.values()) or args.against or args.variant or args.web:
            raise UsageError("give the lab's number, e.g. mcastlab lab 1 --check answers.toml")
        print(json.dumps(runner.listing_records()) if args.json else runner.listing())
        return 0
    if args.json and not args.check:
        raise UsageError("--json prints the list of labs, or the verdicts of --check")
    if args.out is not None and not args.check:
        raise UsageError("--out keeps what --check prints: mcastlab lab N --check FILE... "
                         "--out DIR")
    lab = runner.get(args.number)
    given = [name for name, v in modes.items() if v]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)} do not go together")
    if args.against and not args.check:
        raise UsageError("--against judges the files of --check: mcastlab lab N --check "
                         "FILE... --against KEY")
    if args.format is not None and not args.gradebook:
        raise UsageError("--format is the form of --gradebook: mcastlab lab N --check FILE... "
                         "--gradebook PATH --format FORMAT")
    for option, value in (("--gradebook", args.gradebook), ("--marks-only", args.marks_only)):
        if value and not args.check:
            raise UsageError(f"{option} goes with --check: mcastlab lab N --check FILE... "
                             f"{option}{' GRADES.csv' if option == '--gradebook' else ''}")
    if args.web_port is not None and not args.web:
        raise UsageError("--web-port is the live view's: give --web too")
    if args.web and (args.check or args.solve or args.sign or args.variant_files or args.spec):
        raise UsageError("--web shows the network at a lab's prompt: mcastlab lab N --web "
                         "[--script FILE]")
    secret_file = Path(args.secret_file) if args.secret_file else None
    if args.variant_files:
        if args.variant:
            raise UsageError("--variant-files writes every student's variant: no --variant")
        roster, folder = (Path(p) for p in args.variant_files)
        return variant_runs.write_variants(lab, roster, folder,
                                           secret.require("--variant-files", secret_file),
                                           progress)
    variant = None
    if args.variant:
        for option, value in (("--against", args.against), ("--sign", args.sign)):
            if value:
                raise UsageError(f"--variant does not go with {option}: a key names its "
                                 "variant, and --against judges each file by the key of the "
                                 "variant it names (a folder of keys, one per student)")
        variant = variant_runs.open_variant(lab, args.variant, secret_file)
        lab = lab.vary(variant.values)
    if args.spec:  # no network, no root: the student's experiment spec
        return variant_runs.write_spec(lab, output_file("--spec", args.spec), variant,
                                       progress)
    if args.check:
        fmt = exports.check_format(args.format or "csv")
        grades = output_file("--gradebook", args.gradebook) if args.gradebook else None
        key = Path(args.against) if args.against else None
        key_secret = (secret.require("--against", secret_file) if key
                      else secret.instructor_secret(secret_file))
        files = [Path(f) for f in args.check]
        with Steps(runner.check_steps(files, key)) as step:
            return runner.check_files(lab, files, progress, key, key_secret=key_secret,
                                      marks_only=args.marks_only, grades=grades, step=step,
                                      as_json=args.json, fmt=fmt, variant=variant)
    if args.sign:
        key_secret = secret.require("--sign", secret_file)
        return runner.sign_key(lab, output_file("--sign", args.sign), key_secret, progress)
    if args.solve:  # the file and the secret checked before the measurement, not after it
        out = None if args.solve == "-" else output_file("--solve", args.solve)
        key_secret = secret.require("--solve", secret_file)
        return runner.solve(lab, out, progress, key_secret, variant)
    script = script_file(args)
    if args.web:
        check_available(args.web_port or 0)
    # testbed.cli.interactive loads Mininet: only where a network is built
    from .interactive import open_prompt

    def prompt(emu: Any, script: Path | None) -> None:
        with live_view(emu, args.web, args.web_port or 0) as view:
            open_prompt(emu, script, view.publisher.publish if view else None)

    return runner.open_lab(lab, script, progress, prompt, variant)


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lab", help="the teaching labs (labs/): list them, set one's network "
                                   "up, check answers against the testbed's measurement")
    p.add_argument("number", type=int, nargs="?", help="the lab (none: list the labs)")
    p.add_argument("--check", nargs="+", metavar="ANSWERS.toml",
                   help="measure the lab on the testbed and check these answer files, or "
                        "every .toml file of a folder given (exit 5 if an answer is wrong); "
                        "the measured value of a wrong answer is shown only with the "
                        "instructor secret")
    p.add_argument("--against", metavar="KEY.toml",
                   help="with --check: judge the files against this key (written and signed "
                        "by --solve) instead of measuring: no network, no root; needs the "
                        "instructor secret. A folder of keys (one per student's variant): "
                        "each file by the key of the variant it names")
    p.add_argument("--gradebook", metavar="GRADES.csv",
                   help="with --check: append every answer of every file with its mark "
                        "(pass/fail) and why it failed to this CSV (made with its header if "
                        "new), or write it in --format")
    p.add_argument("--format", metavar="FORMAT",
                   help="with --gradebook: csv (the gradebook, appended: the default), moodle "
                        "(a grade per file, for Moodle's CSV grade import), gradescope (one "
                        "submission's results.json), inginious (one submission's feedback: "
                        "fields and RST); docs/labs.md, 'Grades where the course keeps them'")
    p.add_argument("--marks-only", action="store_true",
                   help="with --check: pass/fail per answer and why, never a measured value "
                        "(the students' view; without the instructor secret it is the only "
                        "one)")
    p.add_argument("--solve", metavar="FILE", help="measure the lab and write the testbed's "
                                                  "own answers, the key, signed, to FILE "
                                                  "('-': stdout); needs the instructor "
                                                  "secret")
    p.add_argument("--sign", metavar="KEY.toml",
                   help="sign a key written otherwise (before keys were signed, or by hand) "
                        "with the instructor secret, so that --against accepts it")
    p.add_argument("--variant", metavar="FILE|STUDENT",
                   help="a student's variant of the lab: their variant file (written by "
                        "--variant-files; no secret needed), or a student's id (derived with "
                        "the instructor secret); the network, --solve and --check run with "
                        "its values")
    p.add_argument("--variant-files", nargs=2, metavar=("ROSTER", "DIR"),
                   help="write every student's variant file into the folder DIR (ROSTER: "
                        "one student id a line, or a CSV's first column); needs the "
                        "instructor secret")
    p.add_argument("--spec", metavar="FILE",
                   help="write the experiment spec the lab's students run (lab 5), with the "
                        "values of --variant (else the handout's), to FILE: no network")
    p.add_argument("--json", action="store_true",
                   help="the list of labs, or --check's verdicts, as JSON")
    p.add_argument("--secret-file", metavar="FILE",
                   help="the instructor secret (a file outside the checkout, chmod 600); "
                        "default: $MCASTLAB_INSTRUCTOR_SECRET_FILE, else "
                        "$MCASTLAB_INSTRUCTOR_SECRET, else none")
    p.add_argument("--script", metavar="FILE", help="run the prompt's commands in FILE")
    add_web_options(p)
    add_out(p)
    refused(p, "--loss", "a lab measures on the network and under the loss its lab sets "
                         "(testbed/labs/), so every answer file is judged under the same "
                         "conditions")
    p.set_defaults(func=cmd_lab)
