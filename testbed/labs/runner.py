"""`mcastlab lab`: list the labs, set a lab's network up with the interactive prompt, write
the testbed's own answers, signed with the instructor secret (--solve; --sign signs a key
written otherwise), or check answer files against a fresh measurement (--check: one
measurement, any number of files or folders of them, e.g. a class's) or against a signed key
(--check ... --against KEY: no network), printing marks only or, for the instructor, the
measured value of each wrong answer, and writing every answer's mark to a gradebook
(--gradebook, testbed.labs.gradebook) or where a course keeps grades (--format,
testbed.labs.exports). A student's variant of a lab (--variant, the class's variant files,
a key per variant, each file judged by its variant's): testbed.labs.variant_runs."""

from __future__ import annotations

import datetime
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..emulation.network import Emulation
from ..errors import NotKeptUp, UsageError
from ..experiments.calibration import resolve
from ..fidelity.flags import Monitor
from ..safepath import write_file
from . import exports, gradebook, labs, secret, variant_file, variant_runs
from .answers import Verdict, load_answer_file, load_key, to_toml
from .lab import Lab

KEY_MODE = 0o600  # an answer key is the instructor's alone: no other user of the machine reads it
WRONG = 5  # exit code of a check with a wrong, missing or unknown answer


def get(number: int) -> Lab:
    every = labs()
    if number not in every:
        raise UsageError(f"no lab {number}; the labs are {', '.join(map(str, every))} "
                         "('mcastlab lab' lists them)")
    return every[number]


def listing_records() -> list[dict[str, Any]]:
    """The labs as `mcastlab lab --json` lists them."""
    return [{"number": lab.number, "title": lab.title, "topology": lab.topology,
             "handout": f"labs/{lab.handout}", "paper": lab.paper,
             "questions": [q.key for q in lab.questions],
             "variants": [k.name for k in lab.variants.knobs],
             **({} if lab.variants else {"no_variants": lab.variants.why_none})}
            for lab in labs().values()]


def listing() -> str:
    lines = []
    for lab in labs().values():
        lines.append(f"lab {lab.number}  {lab.title:<32} {lab.topology:<26} "
                     f"labs/{lab.handout}")
    return "\n".join(lines)


def _emulation(lab: Lab, progress: Callable[[str], None]) -> Any:
    """The lab's network. A lab that names a rate keeps it (its handout and its answers'
    tolerances were written for it); one that names none runs at the calibrated rate
    (bw=auto, as every bare shape)."""
    topo, _rate = resolve(lab.topology, progress)
    return Emulation(topo, progress=progress, controller_config=lab.controller)


MEASURE_TRIES = 2  # a flagged measurement is taken again once before the lab gives up


def measure(lab: Lab, progress: Callable[[str], None]) -> dict[str, Any]:
    """The lab's measurement, and under "fidelity" its flags (testbed.fidelity.flags: the
    switch starved of CPU over the whole measurement)."""
    with _emulation(lab, progress) as emu, Monitor(emu.topo) as mon:
        t0 = time.time()
        measured = lab.measure(emu, progress)
        measured["fidelity"] = mon.window(t0, time.time())["flags"]
    missing = [q.key for q in lab.questions if q.key not in measured]
    if missing:  # a lab that measures less than it asks is a bug, not a user error
        raise RuntimeError(f"lab {lab.number} measured no {', '.join(missing)}")
    return measured


def kept_up(lab: Lab, progress: Callable[[str], None],
            measure_once: Callable[[Lab, Callable[[str], None]], dict[str, Any]] = measure
            ) -> dict[str, Any]:
    """A measurement the emulator kept up with (MEASURE_TRIES at most): a flagged one is
    no result, and answers are never judged against it."""
    for attempt in range(1, MEASURE_TRIES + 1):
        measured = measure_once(lab, progress)
        if not measured["fidelity"]:
            return measured
        progress(f"lab {lab.number}: the emulator did not keep up ("
                 f"{'; '.join(measured['fidelity'])})"
                 + (": measuring again" if attempt < MEASURE_TRIES else ""))
    raise NotKeptUp(f"lab {lab.number}: the emulator did not keep up in "
                        f"{MEASURE_TRIES} measurements, so there is nothing to judge answers "
                        "against; stop what else runs on this machine and try again")


def solve(lab: Lab, out: Path | None, progress: Callable[[str], None], key_secret: bytes,
          variant: variant_file.Variant | None = None) -> int:
    """Measure the lab and write its key, signed with the instructor secret; with a
    student's `variant` (`lab` then runs with its values) the key names it."""
    measured = kept_up(lab, progress)
    head, _, rest = to_toml(lab.number, list(lab.questions), measured).partition("\n")
    text = (f"# mcastlab lab {lab.number} ({lab.title}): the testbed's own answers, "
            f"measured {datetime.datetime.now():%Y-%m-%d %H:%M} on {lab.topology} "
            "(the emulator kept up: no fidelity flag). The instructor's: keep it out of the "
            "students' copy.\n"
            + head + "\n" + (variant_runs.key_lines(variant) if variant else "") + rest)
    text = secret.sign(text, key_secret)
    if out is None:
        sys.stdout.write(text)
    else:
        write_file("--solve", out, text, mode=KEY_MODE)
        progress(f"answers written to {out} (signed with the instructor secret)")
    return 0


def sign_key(lab: Lab, path: Path, key_secret: bytes, progress: Callable[[str], None]) -> int:
    """Sign a key written otherwise (by --solve before keys were signed, or by hand), once it
    reads as a key of this lab (testbed.labs.answers.load_key); a signature already there is
    replaced."""
    load_key(path, lab.number, list(lab.questions))
    write_file("--sign", path, secret.sign(path.read_text(), key_secret), mode=KEY_MODE)
    progress(f"{path} signed with the instructor secret: mcastlab lab {lab.number} --check "
             f"FILE... --against {path} judges by it")
    return 0


def verdict_lines(name: str, verdicts: list[Verdict], marks_only: bool = False) -> list[str]:
    """A file's verdicts as text: with the measured value of each wrong answer (the
    instructor's), or with marks only (`marks_only`: nothing the measurement gave)."""
    right = sum(v.ok for v in verdicts)
    lines = [f"{name}: {right} of {len(verdicts)} right"]
    for v in verdicts:
        given = "-" if v.given is None else _one_line(str(v.given))
        note = v.marks_note if marks_only else v.note
        lines.append(f"  {'ok ' if v.ok else 'NO '} {_one_line(v.key)} = {given}"
                     + ("" if v.ok else f"   {note}"))
    return lines


def _one_line(text: str) -> str:
    """A student's text on its line: with a line break or a control character, quoted with
    JSON's escapes (a value "x\\n  ok  q = 5" forges no verdict line)."""
    return text if text.isprintable() else json.dumps(text, ensure_ascii=False)


def verdict_record(name: str, student: str, verdicts: list[Verdict],
                   marks_only: bool = False) -> dict[str, Any]:
    """A file's verdicts as `lab --check --json` prints them (as verdict_lines: the
    measured values only without `marks_only`)."""
    answers = []
    for v in verdicts:
        one = {"key": v.key, "ok": v.ok, "given": v.given,
               "note": v.marks_note if marks_only else v.note}
        answers.append(one if marks_only else one | {"measured": v.measured})
    return {"file": name, "student": student, "right": sum(v.ok for v in verdicts),
            "answers": answers}


def answer_files(paths: list[Path]) -> list[Path]:
    """The files to check: each file given, and the *.toml files of each folder given (a
    class's folder), in name order; a folder without one is a UsageError."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = sorted(p.glob("*.toml"))
            if not found:
                raise UsageError(f"--check: the folder {p} holds no .toml answer file")
            out += found
        else:
            out.append(p)
    return out


def check_steps(files: list[Path], key: Path | None) -> int:
    """How many steps check_files takes: the measurement (none against a key), then a
    judgement per answer file (none where the files cannot be found: check_files says why,
    in its gradebook too)."""
    try:
        judged = len(answer_files(files))
    except UsageError:
        judged = 0
    return (0 if key is not None else 1) + judged


def check_files(lab: Lab, files: list[Path], progress: Callable[[str], None],
                key: Path | None = None, *, key_secret: bytes | None = None,
                marks_only: bool = False, grades: Path | None = None,
                step: Callable[[str], None] | None = None, as_json: bool = False,
                fmt: str = "csv", variant: variant_file.Variant | None = None) -> int:
    """Judge answer files against a fresh measurement, or against `key` (a key signed with
    `key_secret`: no network, the verdicts that key's measurement gives). The measured value
    of a wrong answer is shown only with the instructor secret and not `marks_only`; every
    answer's mark is appended to the gradebook `grades` when given. `step(label)` is called
    as the measurement and as each file's judgement begin (check_steps of them); `as_json`:
    the verdicts printed as one JSON document (verdict_record per file); `fmt`: the form of
    `grades` (testbed.labs.exports.FORMATS; a one-submission form also tells a submission
    that cannot be read why, before the error ends the check). Each file is judged by the
    measurement or key of the variant it names, for its student (`variant`: the student's
    variant `lab` was built with, testbed.labs.variant_runs.Judged)."""
    tell = step or (lambda _label: None)
    # every file read before the network comes up: a typo costs nothing
    try:
        answers = {f: load_answer_file(f) for f in answer_files(files)}
        if grades is not None:
            exports.check_target(grades, fmt, len(answers))
    except UsageError as exc:
        if grades is not None:
            exports.refused(grades, fmt, lab.number, str(exc))
        raise
    if key is None:
        tell(f"measuring lab {lab.number} on {lab.topology}")
        judged = variant_runs.measured(lab, kept_up(lab, progress), variant)
        judged_by = "measurement"
    else:
        if key_secret is None:
            raise UsageError("--against is the instructor's: " + secret.HOW)
        judged = variant_runs.keys(lab, key, key_secret)
        progress(f"lab {lab.number}: judged against the key{'s' if key.is_dir() else ''} "
                 f"{key} (no measurement)")
        judged_by = f"key {key}"
    marks = marks_only or key_secret is None
    if marks and not marks_only:
        progress("marks only: the measured value of a wrong answer is the instructor's "
                 "(shown with the instructor secret: docs/labs.md)")
    worst = 0
    submissions = []
    checked = gradebook.now()
    for f, (student, given) in answers.items():
        tell(f"judging {f}")
        verdicts = judged.verdicts(list(lab.questions), f, student, given)
        if not as_json:
            print("\n".join(verdict_lines(str(f), verdicts, marks_only=marks)))
        submissions.append(gradebook.Submission(student, f, verdicts))
        if not all(v.ok for v in verdicts):
            worst = WRONG
    if as_json:
        print(json.dumps({"lab": lab.number, "judged_by": judged_by, "files": [
            verdict_record(str(sub.file), sub.student, sub.verdicts, marks)
            for sub in submissions]}, default=str))
    if grades is not None:
        progress("gradebook: " + exports.write(grades, fmt, lab.number, submissions,
                                               list(lab.questions), checked, judged_by))
    return worst


def open_lab(lab: Lab, script: Path | None, progress: Callable[[str], None],
             prompt: Callable[[Any, Path | None], None],
             variant: variant_file.Variant | None = None) -> int:
    """The lab's network, with `prompt(emulation, script)` on it until it returns (the
    command line's, testbed.cli.interactive.open_prompt: the labs stand below the CLI);
    with a student's `variant` (`lab` runs with its values) they are printed first."""
    if variant is not None:
        print("\n".join(variant_runs.intro(lab, variant)), flush=True)
    with _emulation(lab, progress) as emu:
        progress(f"lab {lab.number}, {lab.title}: {lab.topology} is up "
                 f"({lab.controller.mode} mode). The handout: {lab.path}. 'help' lists the "
                 "commands, 'exit' tears the network down.")
        prompt(emu, script)
    return 0
