"""A student's variant of a lab as a file (``mcastlab lab N --variant-files ROSTER DIR``
writes one per student; ``mcastlab lab N --variant FILE`` opens it): a small TOML with the
lab, the student, the variant's digest and its values, signed with the instructor secret
(testbed.labs.secret.sign, under the variant's own signature line and context). The
student needs no secret to open theirs; the instructor's tools (with the secret) refuse a
file whose signature or values are not the secret's derivation for that student. Also the
variant an answer file or a key names (its `variant = "DIGEST"`). The values and their
derivation: testbed.labs.variant."""

from __future__ import annotations

import csv
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from . import secret, variant
from .lab import Lab

FIELD = "variant"  # an answer file's and a key's name of its variant (its digest)
VALUES = "values"  # the variant file's table of values


@dataclass(frozen=True)
class Variant:
    """A student's variant of a lab: who, its digest (what answer files and keys name) and
    its values."""

    lab: int
    student: str
    digest: str
    values: dict[str, Any]


def of_student(lab: Lab, key_secret: bytes, student: str) -> Variant:
    """The student's variant, derived with the instructor secret."""
    if not lab.variants:
        raise UsageError(f"lab {lab.number} has no variants yet: {lab.variants.why_none}")
    values = variant.derive(lab.variants, key_secret, lab.number, student)
    return Variant(lab.number, variant.student_id(student),
                   variant.digest(lab.number, values), values)


def _toml(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(map(_toml, v)) + "]"
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string (ASCII, escaped) is a TOML basic string
    return repr(v)


def text(lab: Lab, v: Variant, key_secret: bytes) -> str:
    """The variant file's text, signed."""
    lines = [f"# mcastlab lab {lab.number} ({lab.title}): the variant of {v.student}. Open "
             f"it with: sudo .venv/bin/mcastlab lab {lab.number} --variant THIS_FILE",
             "# and write its student and variant lines into your answers file.",
             f"lab = {lab.number}", f"student = {_toml(v.student)}",
             f"{FIELD} = \"{v.digest}\"", "", f"[{VALUES}]"]
    lines += [f"{name} = {_toml(value)}" for name, value in v.values.items()]
    return secret.sign("\n".join(lines) + "\n", key_secret, secret.VARIANT_SIGNATURE,
                       secret.VARIANT_CONTEXT)


def read(path: Path, lab: Lab, key_secret: bytes | None) -> Variant:
    """A variant file of `lab`, its values checked against the lab's bounds and its digest;
    with the instructor secret also its signature and that its values are the secret's for
    its student (a file changed, or made with another secret, is refused)."""
    if not lab.variants:
        raise UsageError(f"lab {lab.number} has no variants yet: {lab.variants.why_none}")
    try:
        raw = path.read_text()
        data = tomllib.loads(raw)
    except OSError as exc:
        raise UsageError(f"--variant: cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"--variant: {path} is not valid TOML: {exc}") from None
    if data.get("lab") != lab.number:
        raise UsageError(f"--variant: {path} is a variant of lab {data.get('lab')!r}, not "
                         f"of lab {lab.number}")
    student, values = data.get("student"), data.get(VALUES)
    if not isinstance(student, str) or not isinstance(values, dict):
        raise UsageError(f"--variant: {path} is no variant file (it needs student = \"...\" "
                         f"and a table [{VALUES}])")
    bad = lab.variants.problems(values)
    if bad:
        raise UsageError(f"--variant: {path} is no variant of lab {lab.number}: "
                         + "; ".join(bad))
    got = Variant(lab.number, variant.student_id(student), variant.digest(lab.number, values),
                  values)
    if data.get(FIELD) != got.digest:
        raise UsageError(f"--variant: {path}: its {FIELD} {data.get(FIELD)!r} is not its "
                         f"values' ({got.digest}): the file was changed")
    if key_secret is not None:
        right = secret.signed_right(raw, key_secret, secret.VARIANT_SIGNATURE,
                                    secret.VARIANT_CONTEXT)
        if not right or of_student(lab, key_secret, got.student).values != values:
            raise UsageError(f"--variant: {path}: the signature does not match: the file "
                             "was changed after it was made, or made with another "
                             "instructor secret")
    return got


def roster(path: Path) -> list[str]:
    """The students of a roster: the first column of a CSV (or a list, one per line); blank
    lines and a first row headed student, id or login skipped. A student twice is a
    UsageError."""
    try:
        with path.open(newline="") as f:
            rows = [r for r in csv.reader(f) if r and r[0].strip()]
    except OSError as exc:
        raise UsageError(f"--variant-files: cannot read {path}: {exc.strerror}") from None
    ids = [r[0].strip() for r in rows]
    if ids and ids[0].lower() in ("student", "id", "login", "name"):
        ids = ids[1:]
    if not ids:
        raise UsageError(f"--variant-files: {path} names no student")
    twice = sorted({s for s in ids if ids.count(s) > 1})
    if twice:
        raise UsageError(f"--variant-files: {path} names {', '.join(twice)} more than once")
    return ids


def file_name(lab: int, student: str) -> str:
    """A student's variant file's name: labN-ID.toml, the id with anything but letters,
    digits, '.', '-' and '_' made '_' (one folder holds a class's variants of every lab)."""
    return f"lab{lab}-" + re.sub(r"[^A-Za-z0-9._-]", "_", student) + ".toml"


def named(path: Path) -> str | None:
    """The variant an answer file or a key names (None: the handout's)."""
    try:
        got = tomllib.loads(path.read_text()).get(FIELD)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None  # the answers' own reading says what is wrong with the file
    return got if isinstance(got, str) else None


def student(path: Path) -> str | None:
    """The student a key names (None: none)."""
    try:
        got = tomllib.loads(path.read_text()).get("student")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return got.strip() if isinstance(got, str) else None


def handouts(lab: Lab) -> str | None:
    """The digest of the handout's own values (a file or key that names none is of it);
    None for a lab without variants."""
    return variant.digest(lab.number, lab.variants.defaults()) if lab.variants else None
