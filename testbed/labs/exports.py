"""A check's marks where a course keeps them (``mcastlab lab N --check FILE... --gradebook
PATH --format FORMAT``): the division of labour is that answers.check judges, gradebook.py
keeps the term's CSV of every answer, and this module writes the other forms of one check's
verdicts and reads each back (the tests' readers).

Formats (FORMATS):

- ``csv``: the gradebook (testbed.labs.gradebook), one row per answer, appended.
- ``moodle``: one row per answer file (MOODLE_COLUMNS: ``student``, the identifier column
  Moodle's CSV grade import maps to a user field; ``grade``, the right answers, mapped to the
  lab's grade item with ``max_grade`` as its maximum; ``feedback``, the reasons, mapped to
  "Feedback for" that item), written anew.
- ``gradescope``: a Gradescope autograder ``results.json`` for one submission: top-level
  ``score``, ``max_score``, ``output`` and ``tests``, one test per question (``name``,
  ``score``, ``max_score``, ``status`` passed/failed, ``output`` the reason, ``visibility``).
- ``inginious``: INGInious feedback for one submission, reStructuredText: a field list
  (``:result:`` success/failed, ``:grade:`` 0-100, ``:right:``, ``:questions:``), a blank
  line, then the feedback, one bullet per question; a task's ``run`` file passes the fields
  to ``feedback-result`` and ``feedback-grade`` and the rest to ``feedback-msg``.

Every format holds the students' view only (Verdict.marks_note: why an answer failed, never
the measured value), even with the instructor secret, which judging against a key needs:
each is what a student sees. A key that answers no question of the lab is a failed test worth
no point (a typo shows, the score stays out of the lab's questions). A student's text (an
answer, a key of their own) enters the RST escaped, on one line, so it is never markup."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..safepath import write_file
from . import gradebook
from .answers import Question, Verdict
from .gradebook import Submission, answer_text, cell, uncell

FORMATS = ("csv", "moodle", "gradescope", "inginious")
ONE_SUBMISSION = ("gradescope", "inginious")  # one student's results per file
MOODLE_COLUMNS = ("student", "file", "lab", "grade", "max_grade", "feedback")
RESULTS = ("success", "failed")  # INGInious results a check gives


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"--format: no format {fmt!r}; the formats are {', '.join(FORMATS)}")
    return fmt


@dataclass(frozen=True)
class Marks:
    """One submission's marks: the right answers among the lab's questions, out of them."""

    right: int
    questions: int

    @property
    def percent(self) -> float:
        return round(100.0 * self.right / self.questions, 2) if self.questions else 0.0


def marks(sub: Submission, questions: Iterable[Question]) -> Marks:
    keys = {q.key for q in questions}
    return Marks(sum(v.ok for v in sub.verdicts if v.key in keys), len(keys))


def reason(v: Verdict) -> str:
    """Why a verdict failed, in the checker's words for students ('' when it passed)."""
    return "" if v.ok else v.marks_note


def summary(lab: int, m: Marks) -> str:
    return f"lab {lab}: {m.right} of {m.questions} questions right"


# --- Gradescope -------------------------------------------------------------------------

def gradescope(lab: int, sub: Submission, questions: list[Question]) -> dict[str, Any]:
    """A Gradescope autograder results.json (its specification: top-level score, max_score,
    output, tests) for one submission: a point per question of the lab."""
    keys = {q.key for q in questions}
    tests = []
    for v in sub.verdicts:
        worth = 1.0 if v.key in keys else 0.0
        given = "(none)" if v.given is None else answer_text(v.given)
        tests.append({"name": v.key, "score": worth if v.ok else 0.0, "max_score": worth,
                      "status": "passed" if v.ok else "failed",
                      "output": f"your answer: {given}" + ("" if v.ok else f"\n{reason(v)}"),
                      "visibility": "visible"})
    m = marks(sub, questions)
    return {"score": float(m.right), "max_score": float(m.questions),
            "output": summary(lab, m), "tests": tests}


def gradescope_refused(lab: int, message: str) -> dict[str, Any]:
    """results.json for a submission that could not be judged (no answer file, not TOML):
    no point, and the reason."""
    return {"score": 0.0, "output": f"lab {lab}: your submission was not judged: {message}",
            "tests": []}


# --- INGInious --------------------------------------------------------------------------

RST_SPECIAL = re.compile(r"([\\`*_|:<>\[\]=+\-])")  # inline markup, roles, lists


def rst_text(text: str) -> str:
    """A student's text as RST that is never markup: on one line (JSON's escapes for line
    breaks and control characters), every character that starts or ends markup (emphasis,
    literals, references, substitutions, roles, lists) backslash-escaped."""
    flat = json.dumps(text, ensure_ascii=False)[1:-1]
    return RST_SPECIAL.sub(r"\\\1", flat)


def inginious(lab: int, sub: Submission, questions: list[Question]) -> str:
    """INGInious feedback for one submission: the fields, a blank line, the feedback (RST)."""
    m = marks(sub, questions)
    result = "success" if all(v.ok for v in sub.verdicts) else "failed"
    lines = [f":result: {result}", f":grade: {m.percent:g}", f":right: {m.right}",
             f":questions: {m.questions}", "", f"Lab {lab}: {m.right} of {m.questions} "
             "questions right.", ""]
    for v in sub.verdicts:
        given = "(none)" if v.given is None else answer_text(v.given)
        verdict = "**ok**" if v.ok else f"**NO**, {reason(v)}"  # the checker's own words
        lines.append(f"- {rst_text(v.key)} = {rst_text(given)}: {verdict}")
    return "\n".join(lines) + "\n"


def inginious_refused(lab: int, message: str) -> str:
    return (":result: failed\n:grade: 0\n:right: 0\n:questions: 0\n\n"
            f"Lab {lab}: your submission was not judged: {rst_text(message)}\n")


FIELD = re.compile(r"^:([a-z_]+): (.*)$")


def read_inginious(text: str) -> tuple[dict[str, str], str]:
    """The fields and the feedback of inginious()'s text (what a run file passes on)."""
    head, sep, body = text.partition("\n\n")
    fields = {}
    for line in head.splitlines():
        got = FIELD.match(line)
        if got is None:
            raise ValueError(f"not a field: {line!r}")
        fields[got.group(1)] = got.group(2)
    if not sep:
        raise ValueError("no blank line after the fields")
    return fields, body


# --- Moodle -----------------------------------------------------------------------------

def moodle_rows(lab: int, subs: list[Submission], questions: list[Question]
                ) -> list[dict[str, str]]:
    """One row per answer file, the grade its right answers, the feedback its reasons."""
    out = []
    for sub in subs:
        m = marks(sub, questions)
        feedback = "; ".join(f"{v.key}: {reason(v)}" for v in sub.verdicts if not v.ok)
        out.append({"student": sub.student, "file": str(sub.file), "lab": str(lab),
                    "grade": str(m.right), "max_grade": str(m.questions),
                    "feedback": feedback or "all right"})
    return out


def moodle_text(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=MOODLE_COLUMNS, lineterminator="\r\n")
    w.writeheader()
    w.writerows({k: cell(v) for k, v in row.items()} for row in rows)
    return buf.getvalue()


def read_moodle(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return [{k: uncell(v) for k, v in row.items()} for row in csv.DictReader(f)]


# --- writing ----------------------------------------------------------------------------

def check_target(path: Path, fmt: str, files: int) -> None:
    """Refuse, before anything is judged, what the format cannot write: a CSV that is no
    gradebook; more than one submission in a one-submission format."""
    if fmt == "csv":
        gradebook.check_header(path)
    elif fmt in ONE_SUBMISSION and files != 1:
        raise UsageError(f"--format {fmt} judges one submission, and {files} answer files "
                         "were given: submit one .toml file")


def refused(path: Path, fmt: str, lab: int, message: str) -> None:
    """A one-submission format's results for a submission that could not be read: a
    student who submitted no TOML file sees why (other formats: nothing written)."""
    if fmt == "gradescope":
        write_file("--gradebook", path, json.dumps(gradescope_refused(lab, message), indent=2))
    elif fmt == "inginious":
        write_file("--gradebook", path, inginious_refused(lab, message))


def write(path: Path, fmt: str, lab: int, subs: list[Submission], questions: list[Question],
          checked: str, judged_by: str) -> str:
    """The check's verdicts in `fmt` at `path`; what was written, for the progress line."""
    if fmt == "csv":
        new = gradebook.rows(lab, subs, checked, judged_by)
        gradebook.append(path, new)
        return f"{len(new)} answers of {len(subs)} files appended to {path}"
    if fmt == "moodle":
        write_file("--gradebook", path, moodle_text(moodle_rows(lab, subs, questions)))
        return f"{len(subs)} grades written to {path} (Moodle's CSV grade import)"
    if fmt == "gradescope":
        write_file("--gradebook", path, json.dumps(gradescope(lab, subs[0], questions),
                                                   indent=2))
        return f"Gradescope results written to {path}"
    write_file("--gradebook", path, inginious(lab, subs[0], questions))
    return f"INGInious feedback written to {path}"
