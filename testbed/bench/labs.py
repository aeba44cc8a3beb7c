"""Do two measurements of a teaching lab agree? (``mcastlab bench --suite labs``, written to
bench/labs.md and bench/labs.json.)

`mcastlab lab N --check` judges a student's numbers against the testbed's own measurement,
each within a tolerance chosen so that two honest measurements on this machine agree. This
suite measures whether they do: per lab, one measurement writes the key (as `--solve`
does), and the key's answers are then checked against each further measurement, each on a
fresh network (as `--check key.toml` does). Per lab and question: the values side by side,
their ratio to the key's, the question's tolerance and whether the check accepted the key.
Each measurement is one the emulator kept up with (testbed.labs.runner.kept_up: a flagged
one is taken again once); one flagged twice is recorded as such and judges nothing.
"""

from __future__ import annotations

import time
import tomllib
from typing import Any

from ..emulation.environment import Capabilities
from ..emulation.network import Progress
from ..errors import NotKeptUp
from ..labs import labs
from ..labs.answers import Question, answers_of, check, is_number, to_toml
from ..labs.lab import Lab
from ..labs.runner import kept_up

MEASUREMENTS = 3  # the key's and two to check it against (--quick: one)


def key_answers(lab: Lab, measured: dict[str, Any]) -> dict[str, Any]:
    """The answers of the key --solve writes from `measured`, read as a student's file (of
    tied choices the first)."""
    return answers_of(tomllib.loads(to_toml(lab.number, list(lab.questions), measured)))


def judge(lab: Lab, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One lab's record: its measurements (`runs`: {"s", "values" or None, "error"}), the
    key from the first, and per question the key's value, every later measurement's value,
    its ratio to the key's (numbers) and whether the check of the key against it agreed."""
    out: dict[str, Any] = {"number": lab.number, "title": lab.title, "topology": lab.topology,
                           "asks": len(lab.questions), "runs": runs, "questions": []}
    first = runs[0]["values"]
    if first is None:
        return out
    key = key_answers(lab, first)
    judged = [None if r["values"] is None else
              {v.key: v for v in check(list(lab.questions), r["values"], key)}
              for r in runs[1:]]
    for q in lab.questions:
        later: list[dict[str, Any] | None] = []
        for r, verdicts in zip(runs[1:], judged, strict=True):
            if verdicts is None:
                later.append(None)
                continue
            v = verdicts[q.key]
            later.append({"value": r["values"][q.key], "judged_by": v.measured,
                          "ratio": _ratio(r["values"][q.key], key[q.key], q),
                          "agreed": v.ok})
        out["questions"].append({"key": q.key, "tolerance": q.tolerance(),
                                 "own": q.judge is not None, "key_value": key[q.key],
                                 "later": later})
    return out


def _ratio(value: Any, key: Any, q: Question) -> float | None:
    if q.kind == "choice" or not (is_number(value) and is_number(key)) or key == 0:
        return None
    return value / key


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    del caps  # each lab's network is the lab's own (runner: its topology, its controller)
    count = 2 if quick else MEASUREMENTS
    out: dict[str, Any] = {"measurements": count, "labs": []}
    for lab in labs().values():
        runs = []
        for i in range(count):
            progress(f"bench labs: lab {lab.number}, measurement {i + 1} of {count}")
            t0 = time.monotonic()
            try:
                values, error = kept_up(lab, progress), None
                values.pop("fidelity")
            except NotKeptUp as exc:
                values, error = None, str(exc)
            runs.append({"s": round(time.monotonic() - t0, 1), "values": values,
                         "error": error})
        out["labs"].append(judge(lab, runs))
    return out


def _cell(v: Any) -> str:
    if isinstance(v, list | tuple):
        return " or ".join(map(str, v))
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def summary(res: dict[str, Any]) -> list[tuple[int, int, int]]:
    """Per later measurement (2, 3, ...): (measurement, questions agreed, questions judged)
    over every lab."""
    out = []
    for j in range(res["measurements"] - 1):
        cells = [q["later"][j] for lab in res["labs"] for q in lab["questions"]
                 if q["later"][j] is not None]
        out.append((j + 2, sum(c["agreed"] for c in cells), len(cells)))
    return out


def markdown(res: dict[str, Any]) -> list[str]:
    later = range(2, res["measurements"] + 1)
    lines = ["", "## Do two measurements of a lab agree?", "",
             f"Per lab, measurement 1 writes the key (`mcastlab lab N --solve key.toml`); its "
             f"answers are checked against measurement {', '.join(map(str, later))} (each "
             "`mcastlab lab N --check key.toml` on a fresh network) within each question's "
             "tolerance. A ratio is the later value over the key's; a question marked * is "
             "judged by the key's own numbers (the model's winner from its t_hold and t_end), "
             "so the later measurement's numbers do not decide it.", "",
             "| lab | questions | " + " | ".join(f"agreed with {j}" for j in later)
             + " | seconds per measurement |", "|---" * (len(later) + 3) + "|"]
    for lab in res["labs"]:
        n = lab["asks"]
        cells = []
        for j in range(len(later)):
            got = [q["later"][j] for q in lab["questions"] if q["later"][j] is not None]
            cells.append(f"{sum(c['agreed'] for c in got)} of {n}" if got else "not measured")
        secs = ", ".join(f"{r['s']:g}" + ("" if r["values"] is not None else " (flagged)")
                         for r in lab["runs"])
        lines.append(f"| {lab['number']} {lab['title']} | {n} | " + " | ".join(cells)
                     + f" | {secs} |")
    total = "; ".join(f"measurement {j}: {a} of {n}" for j, a, n in summary(res))
    lines += ["", f"Questions whose check accepted the key, all labs: {total}."]
    for lab in res["labs"]:
        lines += ["", f"### Lab {lab['number']}, {lab['title']} ({lab['topology']})", ""]
        lines += [f"Measurement {i}: {r['error']}" for i, r in enumerate(lab["runs"], 1)
                  if r["error"]]
        if not lab["questions"]:
            continue
        if lines[-1]:
            lines.append("")
        head = "| question | tolerance | 1 (key) | " + " | ".join(
            f"{j} | {j} / 1 | agreed" for j in later) + " |"
        lines += [head, "|---" * (3 + 3 * len(later)) + "|"]
        for q in lab["questions"]:
            row = [q["key"] + (" *" if q["own"] else ""), q["tolerance"], _cell(q["key_value"])]
            for c in q["later"]:
                if c is None:
                    row += ["-", "-", "-"]
                    continue
                row += [_cell(c["value"]), "-" if c["ratio"] is None else f"{c['ratio']:.2f}",
                        "yes" if c["agreed"] else "**no**" + (
                            f" (the key's numbers give {_cell(c['judged_by'])})" if q["own"]
                            else "")]
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Measured with `sudo .venv/bin/mcastlab bench --suite labs`."]
    return lines
