"""Lab questions and the check of a student's answers (pure: no network).

An answer file is TOML; tables flatten to dotted keys, so ``[measured_ms]`` with
``binomial = 11`` answers the question ``measured_ms.binomial``. The testbed's own
measurement (``mcastlab lab N --solve``) is written in the same form, so a teacher's key
and a student's file read alike. A key also records, in its table ``[ties]``, the choices
its measurement could not tell apart (an answer file's ``[ties]`` is no answer): judged
against the key (``--check ... --against KEY``, `load_key`), every file gets the verdicts the
measurement that wrote the key would have given it."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from ..errors import UsageError

KINDS = ("number", "int", "choice")
TIES = "ties"  # a key's table of tied choices (to_toml, load_key)
STUDENT = "student"  # an answer file's name of its student (the gradebook's; no answer)
VARIANT = "variant"  # the variant a file or key is of (testbed.labs.variant_file; no answer)
SHOWN = 5  # a bad key's problems named in its error
# a small message's times are tens of us, and a rank woken from its wait adds 30-210 us now
# and then (bench/fidelity.md): two honest measurements can differ 3x (13 against 40 us)
SMALL_TIME_TOL_US = 50.0


def is_number(v: Any) -> TypeGuard[float]:
    """An int or float answer (TOML's true/false are not numbers)."""
    return isinstance(v, int | float) and not isinstance(v, bool)


@dataclass(frozen=True)
class Question:
    """One answer a lab asks for. A number is right within a factor of the testbed's value
    (or within `abs_tol` of it, for values near zero); an int must match exactly; a choice
    must be one of `choices` and equal to the testbed's (case does not matter).

    `judge`, for a question that reasons from earlier answers (the model's fastest tree from
    the student's own t_hold and t_end), gives the right answer from the student's file, or
    None where the file lacks what it needs (then the testbed's measurement decides): the
    reasoning is graded, not the noise of the student's measurement against the check's."""

    key: str
    text: str
    kind: str = "number"
    factor: float = 2.0
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()
    judge: Callable[[dict[str, Any]], Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {', '.join(KINDS)}")
        if self.kind == "number" and self.factor < 1:
            raise ValueError(f"{self.key}: factor must be >= 1")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"{self.key}: a choice needs choices")

    def tolerance(self) -> str:
        if self.kind == "int":
            return "exact"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        within = f"within x{self.factor:g}"
        return within + (f" or +-{self.abs_tol:g}" if self.abs_tol else "")

    def accepts(self, given: Any, measured: Any) -> bool:
        if self.kind == "choice":  # a tuple: choices the measurement cannot tell apart
            ties = measured if isinstance(measured, tuple) else (measured,)
            return isinstance(given, str) and given.strip().lower() in \
                {str(m).lower() for m in ties}
        if not is_number(given):
            return False
        if self.kind == "int":
            return given == measured
        if not math.isfinite(given):
            return False
        if abs(given - measured) <= self.abs_tol:
            return True
        if measured == 0 or given == 0 or (given > 0) != (measured > 0):
            return False
        return max(given / measured, measured / given) <= self.factor


@dataclass(frozen=True)
class Verdict:
    """One answer judged. `note` says why it is wrong and may name the measured value (the
    instructor's view); `marks_note` never does (the students' view: `--marks-only`, the
    gradebook)."""

    key: str
    ok: bool
    given: Any
    measured: Any
    note: str
    marks_note: str = ""

    def __post_init__(self) -> None:
        if not self.marks_note:
            object.__setattr__(self, "marks_note", self.note)


def flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, dict):
            out |= flatten(v, f"{prefix}{k}.")
        else:
            out[f"{prefix}{k}"] = v
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None


def load_answers(path: Path) -> dict[str, Any]:
    """A student's answer file as flat keys ("lab", "student" and a key's "ties" dropped);
    bad TOML is a UsageError."""
    return answers_of(_read_toml(path))


def load_answer_file(path: Path) -> tuple[str, dict[str, Any]]:
    """A student's answer file: who (its `student = "..."`, else the file's name without
    .toml) and its answers. A student that is not a name is a UsageError."""
    data = _read_toml(path)
    student = data.get(STUDENT, path.stem)
    if not (isinstance(student, str) and student.strip()):
        raise UsageError(f"{path}: student = {student!r} is not a name (write it in quotes: "
                         'student = "Ada Lovelace")')
    return student.strip(), answers_of(data)


def answers_of(data: dict[str, Any]) -> dict[str, Any]:
    """An answer file's parsed TOML as its answers: flat keys, "lab", "student", "variant"
    and "ties" dropped."""
    data = dict(data)
    data.pop("lab", None)
    data.pop(STUDENT, None)
    data.pop(VARIANT, None)
    data.pop(TIES, None)
    return flatten(data)


def load_key(path: Path, lab: int, questions: list[Question],
             verify: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A key (an answer file, usually written by --solve) as a measurement to judge against:
    every question answered with a value of its kind, tied choices as tuples (the answer
    among them). Anything else is one UsageError naming its problems (the first SHOWN).
    `verify(text)`, when given, sees the key's text first and raises on a key it refuses
    (testbed.labs.secret.verify: not signed by the instructor)."""
    if verify is not None:
        try:
            verify(path.read_text())
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    data = _read_toml(path)
    if "lab" in data and data["lab"] != lab:
        raise UsageError(f"{path} is a key of lab {data['lab']!r}, not of lab {lab}")
    problems = []
    ties = data.pop(TIES, {})
    data.pop("lab", None)
    data.pop(STUDENT, None)  # a student's variant's key names them (and its variant)
    data.pop(VARIANT, None)
    given = flatten(data)
    if not isinstance(ties, dict):
        problems.append(f"{TIES} is not a table")
        ties = {}
    ties = flatten(ties)
    measured: dict[str, Any] = {}
    for q in questions:
        v = given.get(q.key)
        if v is None:
            problems.append(f"{q.key} is missing")
        elif q.kind == "choice" and not (isinstance(v, str) and v.lower() in q.choices):
            problems.append(f"{q.key} = {v!r} is not one of {', '.join(q.choices)}")
        elif q.kind == "int" and not (isinstance(v, int) and is_number(v)):
            problems.append(f"{q.key} = {v!r} is not a whole number")
        elif q.kind == "number" and not (is_number(v) and math.isfinite(v)):
            problems.append(f"{q.key} = {v!r} is not a number")
        else:
            measured[q.key] = v
        tied = ties.get(q.key)
        if q.kind != "choice" or tied is None or q.key not in measured:
            continue
        assert isinstance(v, str)  # measured: an answer among q.choices
        if not (isinstance(tied, list) and tied
                and all(isinstance(c, str) and c.lower() in q.choices for c in tied)):
            problems.append(f"{TIES}.{q.key} is not a list of {', '.join(q.choices)}")
        elif v.lower() not in {c.lower() for c in tied}:
            problems.append(f"{TIES}.{q.key} does not hold the answer {v!r}")
        else:
            measured[q.key] = tuple(tied)
    for key in sorted(set(given) - {q.key for q in questions}):
        problems.append(f"{key} answers no question of lab {lab}")
    for key in sorted(set(ties) - {q.key for q in questions if q.kind == "choice"}):
        problems.append(f"{TIES}.{key} names no choice question of lab {lab}")
    if problems:
        more = f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
        raise UsageError(f"{path} is no key of lab {lab}: " + "; ".join(problems[:SHOWN])
                         + more)
    return measured


def check(questions: list[Question], measured: dict[str, Any],
          given: dict[str, Any]) -> list[Verdict]:
    """One verdict per question (a missing answer is wrong), then one per key that answers
    no question (a typo should not pass silently)."""
    out = []
    for q in questions:
        m = measured[q.key]
        own = q.judge(given) if q.judge else None
        m = m if own is None else own
        if q.key not in given:
            out.append(Verdict(q.key, False, None, m, "missing"))
            continue
        ok = q.accepts(given[q.key], m)
        marks = ""
        if ok:
            note = "ok"
        elif q.kind == "choice" and str(given[q.key]).lower() not in q.choices:
            note = f"not one of {', '.join(q.choices)}"
        elif q.kind != "choice" and not is_number(given[q.key]):
            note = "not a number"
        elif q.kind == "int" and not (math.isfinite(given[q.key])
                                      and given[q.key] == int(given[q.key])):  # 4.5, a count
            note = "not a whole number"
        elif q.kind == "number" and not math.isfinite(given[q.key]):
            note = "not a finite number"
        else:
            by = "your own answers give" if own is not None else "the testbed measured"
            note = f"off: {by} {_fmt(m)} ({q.tolerance()})"
            marks = "wrong" + ("" if q.kind == "choice" else f" ({q.tolerance()})")
        out.append(Verdict(q.key, ok, given[q.key], m, note, marks))
    known = {q.key for q in questions}
    for key in sorted(set(given) - known):
        out.append(Verdict(key, False, given[key], None, "answers no question of this lab"))
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, tuple):
        return " or ".join(map(str, v))
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def to_toml(lab: int, questions: list[Question], measured: dict[str, Any]) -> str:
    """The testbed's own answers as an answer file, each question as a comment. A number is
    written as measured (every digit: judged against, the key is the measurement), and a
    choice the measurement could not tell from others as the first of them, with all of
    them in the table [ties]."""
    lines = [f"lab = {lab}", ""]
    tables: dict[str, list[Question]] = {}
    for q in questions:
        head, _, _ = q.key.rpartition(".")
        tables.setdefault(head, []).append(q)
    ties = {q.key: measured[q.key] for q in questions
            if isinstance(measured[q.key], tuple) and len(measured[q.key]) > 1}
    for head, qs in sorted(tables.items(), key=lambda kv: kv[0] != ""):  # top level first
        if head:
            lines.append(f"[{head}]")
        for q in qs:
            v = measured[q.key]
            v = v[0] if isinstance(v, tuple) else v  # of tied choices, the measured first
            lines += [f"# {q.text} ({q.tolerance()})",
                      f"{q.key.rpartition('.')[2]} = {_toml_value(v)}"]
        lines.append("")
    if ties:
        lines += [f"[{TIES}]", "# choices the measurement could not tell apart: each is "
                  "right (what 'mcastlab lab N --check FILE --against THIS' accepts)"]
        lines += [f'"{k}" = [{", ".join(_toml_value(c) for c in v)}]' for k, v in ties.items()]
        lines.append("")
    return "\n".join(lines)


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)  # a float's repr is valid TOML and reads back as the same float
