"""`mcastlab lab N` with variants per student (docs/labs.md, "Variants per student"): the
instructor writes a class's variant files (--variant-files ROSTER DIR), a variant is
opened from its file or, with the secret, from a student's id (--variant), its values shown
as the network comes up; keys name the variant they were measured on, and a check judges
each answer file by the key (or measurement) of the variant the file names. The lab's
other paths: testbed.labs.runner; the values: testbed.labs.variant; the file:
testbed.labs.variant_file."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..safepath import write_file
from . import secret, variant, variant_file
from .answers import Question, Verdict, check, load_key
from .lab import Lab
from .variant_file import Variant


def open_variant(lab: Lab, given: str, secret_file: Path | None) -> Variant:
    """--variant's variant: a variant file (checked against the instructor secret when there
    is one), or a student's id (derived: the instructor's)."""
    path = Path(given)
    if path.is_file():
        return variant_file.read(path, lab, secret.instructor_secret(secret_file))
    if path.suffix == ".toml" or "/" in given:
        raise UsageError(f"--variant: no file {given} (a student opens the variant file "
                         "the instructor gave them)")
    key_secret = secret.require(f"--variant {given} (a student's id; a student opens their "
                                "variant file instead)", secret_file)
    return variant_file.of_student(lab, key_secret, given)


def intro(lab: Lab, v: Variant) -> list[str]:
    """What a student reads as their variant's network comes up: its values against the
    handout's, the digest their answers file names, and the questions with their values."""
    lines = [f"your variant of lab {lab.number} ({v.student}): where the handout names "
             "these, use yours", *variant.describe(lab.variants, v.values),
             "write these two lines into your answers file (instead of its student = ...):",
             f"  student = {json.dumps(v.student)}", f"  {variant_file.FIELD} = \"{v.digest}\"",
             "the questions, with your values:"]
    lines += [f"  {q.key}: {q.text}" for q in lab.questions]
    if lab.spec is not None:
        lines += [f"your experiment spec, with your values: mcastlab lab {lab.number} "
                  f"--variant YOUR_VARIANT_FILE --spec my-lab{lab.number}.toml writes it (no "
                  f"sudo); run it as the handout runs its own: sudo .venv/bin/mcastlab "
                  f"experiment my-lab{lab.number}.toml"]
    return lines


def write_spec(lab: Lab, out: Path, v: Variant | None, progress: Callable[[str], None]) -> int:
    """--spec: the experiment spec the lab's students run, with `v`'s values (`lab` is built
    with them; without `v` the handout's spec), its first line naming the variant."""
    if lab.spec is None:
        raise UsageError(f"--spec: lab {lab.number} runs no experiment spec (lab 5 does)")
    head = "" if v is None else (
        f"# lab {lab.number}, the variant of {v.student} ({variant_file.FIELD} {v.digest}): "
        + ", ".join(f"{k} {variant.show(x)}" for k, x in v.values.items()) + "\n")
    write_file("--spec", out, head + lab.spec())
    progress(f"lab {lab.number}'s experiment spec, with "
             + (f"the values of {v.student}'s variant" if v else "the handout's values")
             + f", written to {out}: sudo .venv/bin/mcastlab experiment {out}")
    return 0


def write_variants(lab: Lab, roster: Path, out_dir: Path, key_secret: bytes,
                   progress: Callable[[str], None]) -> int:
    """One signed variant file per student of the roster in out_dir (an existing folder),
    a line per student printed; students who share the values their answers depend on
    are named (their derivations met by chance)."""
    if not lab.variants:
        raise UsageError(f"lab {lab.number} has no variants yet: {lab.variants.why_none}")
    if not out_dir.is_dir():
        raise UsageError(f"--variant-files: {out_dir} is not a folder")
    students = variant_file.roster(roster)
    names: dict[str, str] = {}
    for s in students:
        name = variant_file.file_name(lab.number, s)
        if name in names:
            raise UsageError(f"--variant-files: {names[name]!r} and {s!r} would share the "
                             f"file {name}: give them ids that differ in letters or digits")
        names[name] = s
    shared: dict[tuple[str, ...], list[str]] = {}
    for name, s in names.items():
        v = variant_file.of_student(lab, key_secret, s)
        write_file("--variant-files", out_dir / name,
                   variant_file.text(lab, v, key_secret))
        print(f"{s}\t{out_dir / name}\t{v.digest}")
        graded = tuple(json.dumps(v.values[k]) for k in lab.variants.graded)
        shared.setdefault(graded, []).append(s)
    for same in shared.values():
        if len(same) > 1:
            progress(f"note: {', '.join(same)} share the values their answers depend on "
                     f"(1 in {lab.variants.count_graded()} for two students)")
    progress(f"{len(names)} variant files of lab {lab.number} written to {out_dir}, signed "
             "with the instructor secret; each student opens theirs with mcastlab lab "
             f"{lab.number} --variant FILE")
    return 0


def key_lines(v: Variant) -> str:
    """A key's lines naming the student and variant it was measured for (after lab = N)."""
    return f"student = {json.dumps(v.student)}\n{variant_file.FIELD} = \"{v.digest}\"\n"


def own(lab: Lab) -> str | None:
    """The variant `lab` runs with (its values' digest; None for a lab without variants)."""
    return variant.digest(lab.number, lab.values) if lab.variants else None


Whose = tuple[str | None, str | None]  # (variant digest, student): None, None for no variant


@dataclass(frozen=True)
class Judged:
    """What a check judges by: the measurement or keys of variants, each of one student
    (a key solved with --variant) or of anyone (the handout's, or a measurement without
    --variant); a file is judged by the one of the variant it names and its student."""

    by: dict[Whose, dict[str, Any]]
    handout: str | None  # the digest of a file that names no variant

    def verdicts(self, questions: list[Question], path: Path, student: str,
                 given: dict[str, Any]) -> list[Verdict]:
        named = variant_file.named(path) or self.handout
        for whose in ((named, student), (named, None)):
            if whose in self.by:
                return check(questions, self.by[whose], given)
        owners = sorted(s for d, s in self.by if d == named and s)
        if owners:
            note = (f"variant {named} is {', '.join(owners)}'s, not {student}'s (write "
                    "student and variant as your variant file has them)")
        else:
            have = ", ".join(sorted(d or "the handout's" for d, _ in self.by))
            note = (f"answered for variant {named or 'the handout'}; judged here: {have} "
                    f"(write {variant_file.FIELD} = \"...\" from your variant file)")
        return [Verdict(q.key, False, given.get(q.key), None, note) for q in questions]


def measured(lab: Lab, got: dict[str, Any], v: Variant | None) -> Judged:
    """A measurement of `lab` (with `v`'s values when given) as what a check judges by."""
    return Judged({(own(lab), v.student if v else None): got}, variant_file.handouts(lab))


def keys(lab: Lab, key: Path, key_secret: bytes) -> Judged:
    """--against's keys by the variant and student each names: one key, or every *.toml of
    a folder (a class's, one per student's variant), each verified as secret.verify does;
    two keys of one variant and student are a UsageError."""
    paths = sorted(key.glob("*.toml")) if key.is_dir() else [key]
    if not paths:
        raise UsageError(f"--against: the folder {key} holds no .toml key")
    out: dict[Whose, dict[str, Any]] = {}
    seen: dict[Whose, Path] = {}
    for p in paths:
        def verify(text: str, p: Path = p) -> None:
            secret.verify(p, text, key_secret, lab.number)

        got = load_key(p, lab.number, list(lab.questions), verify)
        named = variant_file.named(p)
        whose = (named or variant_file.handouts(lab), variant_file.student(p) if named else None)
        if whose in seen:
            raise UsageError(f"--against: {seen[whose]} and {p} are keys of one variant "
                             f"({whose[0] or 'the handout'}"
                             + (f", {whose[1]}" if whose[1] else "") + ")")
        seen[whose], out[whose] = p, got
    return Judged(out, variant_file.handouts(lab))
