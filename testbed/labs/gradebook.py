"""A class's gradebook (``mcastlab lab N --check FILE... --gradebook GRADES.csv``): one CSV
row per answer of every file checked, with its mark, appended to the file so that one
gradebook collects every lab and every check of a term.

Columns (COLUMNS): who (the file's ``student = "..."``, else its name without .toml), the
file, the lab, the question (a key that answers no question is listed too, failed, so that a
typo shows), the answer as submitted (empty when missing), the mark (``pass``/``fail``), the
students' note (why it failed, never the measured value: the gradebook can be handed back),
when it was checked, and what it was judged by (``measurement`` or ``key FILE``). The
measured values stay in the instructor's terminal (``--check`` with the instructor secret)
and the key. The other forms a course imports (Moodle, Gradescope, INGInious:
``--format``) are testbed.labs.exports's, which writes this one too.

Cells a spreadsheet would evaluate are escaped (the OWASP rule for CSV injection): a cell
that begins with =, +, -, @, a tab or a carriage return, or with the quote itself, gets a
leading single quote, which a spreadsheet shows as text and read() takes off again (a
student's answer `=HYPERLINK(...)` or a name `@SUM(...)` is text, never a formula)."""

from __future__ import annotations

import csv
import datetime
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .answers import Verdict

COLUMNS = ("student", "file", "lab", "question", "answer", "mark", "note", "checked",
           "judged_by")


@dataclass(frozen=True)
class Submission:
    student: str
    file: Path
    verdicts: list[Verdict]


def now() -> str:
    """The time of a check, local with its UTC offset, to the second."""
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def answer_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def rows(lab: int, submissions: list[Submission], checked: str,
         judged_by: str) -> list[dict[str, str]]:
    """Every verdict of every submission as a row, in the order given."""
    out = []
    for sub in submissions:
        for v in sub.verdicts:
            out.append({"student": sub.student, "file": str(sub.file), "lab": str(lab),
                        "question": v.key, "answer": answer_text(v.given),
                        "mark": "pass" if v.ok else "fail",
                        "note": "" if v.ok else v.marks_note, "checked": checked,
                        "judged_by": judged_by})
    return out


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def cell(text: str) -> str:
    """`text` as a cell no spreadsheet evaluates (the module's rule)."""
    return QUOTE + text if text.startswith((*FORMULA_START, QUOTE)) else text


def uncell(text: str) -> str:
    """What cell() was given."""
    return text[1:] if text.startswith(QUOTE) else text


def read(path: Path) -> list[dict[str, str]]:
    """The gradebook's rows as appended (cells unescaped)."""
    with path.open(newline="") as f:
        return [{k: uncell(v) for k, v in row.items()} for row in csv.DictReader(f)]


def check_header(path: Path) -> None:
    """Refuse, before anything is measured, a file to append to that is not a gradebook."""
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with path.open(newline="") as f:
            header = next(csv.reader(f), [])
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"--gradebook: cannot read {path}: {exc}") from None
    if tuple(header) != COLUMNS:
        raise UsageError(f"--gradebook: {path} is not a gradebook of this version (its first "
                         f"line is not {','.join(COLUMNS)}): give a new file")


def _no_link(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW, 0o644)


def append(path: Path, new_rows: list[dict[str, str]]) -> None:
    """Append the rows, with the header first when the file is new or empty."""
    check_header(path)
    fresh = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="", opener=_no_link) as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        if fresh:
            w.writeheader()
        w.writerows({k: cell(v) for k, v in row.items()} for row in new_rows)
