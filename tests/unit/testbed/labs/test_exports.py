"""testbed.labs.exports: `mcastlab lab N --check FILE... --gradebook PATH --format FORMAT`
writes each format so that its own reader reads it back (json and the Gradescope
results.json specification's keys and types, field by field; the csv module; the INGInious
text's fields), with the checker's reason for every failed question and never a value of
the key; bad input is one message and exit 2; judging against a key runs without Mininet
(hidden from the import system) and as a user who is not root; the sample Gradescope
run_autograder and INGInious run file (labs/instructor/) work as written."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testbed.cli.main import main
from testbed.labs import exports, gradebook, labs, runner, secret
from testbed.labs.answers import check, to_toml
from testbed.labs.exports import FORMATS, MOODLE_COLUMNS, read_inginious, read_moodle

ROOT = Path(__file__).resolve().parents[4]
SECRET = "e" * 32
LAB = labs()[1]
QS = list(LAB.questions)
# lab 1's measurement as a key; the times are values no answer below gives, so that any of
# them in an export is the key's value leaking
MEASURED: dict[str, Any] = {"member_frames": 5, "nonmember_frames": 0, "buckets": 2,
                            "leave_s": 1.3791, "after_leave_frames": 0,
                            "membership_interval_s": 5.0, "expiry_s": 4.7316}
KEY_VALUES = ("1.3791", "4.7316")
# bob: wrong count, not a whole number, a time off, one missing, no finite number, a key of
# his own that is RST and CSV markup
BOB: dict[str, Any] = {"member_frames": 4, "nonmember_frames": 0.5, "buckets": 2,
                       "leave_s": 20.0, "membership_interval_s": 5.0, "expiry_s": "nan",
                       "=bu*kets`_": "x\n.. raw:: html\n<script>"}
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def toml_value(v: Any) -> str:
    if v == "nan":
        return "nan"
    return json.dumps(v) if isinstance(v, str) else repr(v)


def write(path: Path, answers: dict[str, Any], student: str | None = None) -> Path:
    head = "lab = 1\n" + (f"student = {json.dumps(student)}\n" if student else "")
    path.write_text(head + "".join(f"{json.dumps(k)} = {toml_value(v)}\n"
                                   for k, v in answers.items()))
    return path


def signed_key(path: Path) -> Path:
    """MEASURED as lab 1's key at `path`, signed with SECRET."""
    path.write_text(secret.sign(to_toml(1, QS, MEASURED), SECRET.encode()))
    return path


def clean_env() -> dict[str, str]:
    """This environment without the instructor secret (a test gives it as it needs)."""
    return {k: v for k, v in os.environ.items() if k not in (secret.ENV, secret.ENV_FILE)}


@pytest.fixture
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The key, and the secret in the environment (as a course's container gives it)."""
    monkeypatch.delenv(secret.ENV_FILE, raising=False)
    monkeypatch.setenv(secret.ENV, SECRET)
    return signed_key(tmp_path / "key.toml")


def failed_reasons(answers: dict[str, Any]) -> dict[str, str]:
    """What the checker says of each failed answer of a file (its students' words)."""
    given = {k: float("nan") if v == "nan" else v for k, v in answers.items()}
    return {v.key: v.marks_note for v in check(QS, MEASURED, given) if not v.ok}


def run(fmt: str, files: list[Path], key: Path, out: Path) -> int:
    return main(["lab", "1", "--check", *map(str, files), "--against", str(key),
                 "--gradebook", str(out), "--format", fmt])


def test_bob_fails_for_every_reason_the_checker_has() -> None:
    assert set(failed_reasons(BOB).values()) == {
        "wrong (exact)", "not a whole number", "wrong (within x3 or +-1)", "missing",
        "not a finite number", "answers no question of this lab"}


def test_gradescope_results_follow_the_specification(key: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    assert run("gradescope", [write(tmp_path / "bob.toml", BOB)], key, out) == 5
    doc = json.loads(out.read_text())
    assert isinstance(doc, dict) and {"score", "max_score", "output", "tests"} <= doc.keys()
    assert isinstance(doc["score"], float) and isinstance(doc["max_score"], float)
    assert isinstance(doc["output"], str) and isinstance(doc["tests"], list)
    reasons = failed_reasons(BOB)
    assert [t["name"] for t in doc["tests"]] == [q.key for q in QS] + ["=bu*kets`_"]
    for t in doc["tests"]:
        assert set(t) == {"name", "score", "max_score", "status", "output", "visibility"}
        assert isinstance(t["name"], str) and isinstance(t["output"], str)
        assert isinstance(t["score"], float) and isinstance(t["max_score"], float)
        assert 0 <= t["score"] <= t["max_score"]
        assert t["visibility"] in GRADESCOPE_VISIBILITY
        assert t["status"] == ("failed" if t["name"] in reasons else "passed")
        if t["status"] == "failed":
            assert t["score"] == 0 and t["output"].endswith("\n" + reasons[t["name"]])
    # a point per question of the lab; the student's own key is worth none
    assert doc["max_score"] == len(QS) == sum(t["max_score"] for t in doc["tests"])
    assert doc["score"] == sum(t["score"] for t in doc["tests"]) == 2.0
    assert not any(v in out.read_text() for v in KEY_VALUES)


def test_all_right_is_full_marks_everywhere(key: Path, tmp_path: Path) -> None:
    ada = write(tmp_path / "ada.toml", MEASURED)
    assert run("gradescope", [ada], key, tmp_path / "r.json") == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["score"] == doc["max_score"] == len(QS)
    assert {t["status"] for t in doc["tests"]} == {"passed"}
    assert run("inginious", [ada], key, tmp_path / "f.rst") == 0
    fields, _ = read_inginious((tmp_path / "f.rst").read_text())
    assert fields["result"] == "success" and float(fields["grade"]) == 100.0


def test_inginious_feedback_has_its_fields_and_a_reason_per_failure(
        key: Path, tmp_path: Path) -> None:
    out = tmp_path / "feedback.rst"
    assert run("inginious", [write(tmp_path / "bob.toml", BOB)], key, out) == 5
    text = out.read_text()
    fields, body = read_inginious(text)
    assert set(fields) == {"result", "grade", "right", "questions"}
    assert fields["result"] in exports.RESULTS and fields["result"] == "failed"
    assert int(fields["right"]) == 2 and int(fields["questions"]) == len(QS)
    assert float(fields["grade"]) == pytest.approx(100 * 2 / len(QS), abs=0.01)
    assert 0 <= float(fields["grade"]) <= 100
    bullets = [line for line in body.splitlines() if line.startswith("- ")]
    assert len(bullets) == len(QS) + 1  # each question, and the key of bob's own
    for k, why in failed_reasons(BOB).items():
        mine = [b for b in bullets if b.startswith("- " + exports.rst_text(k) + " = ")]
        assert len(mine) == 1 and mine[0].endswith(f"**NO**, {why}"), (k, mine)
    # bob's markup stays text: one line, no directive, no role, no literal, no reference
    assert not any(line.startswith("..") for line in body.splitlines())
    assert "<script>" not in text.replace("\\<script\\>", "")
    assert r"\=bu\*kets\`\_ = x\\n.. raw\:\: html\\n\<script\>" in body
    assert not any(v in text for v in KEY_VALUES)


def test_moodle_csv_has_an_identifier_a_grade_and_the_feedback(key: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "moodle.csv"
    folder = tmp_path / "class"
    folder.mkdir()
    write(folder / "ada.toml", MEASURED, student="ada@uni.example")
    write(folder / "bob.toml", BOB, student="=bob@uni.example")
    assert run("moodle", [folder], key, out) == 5
    with out.open(newline="") as f:
        raw = list(csv.DictReader(f))
    assert tuple(raw[0]) == MOODLE_COLUMNS
    assert [r["student"] for r in raw] == ["ada@uni.example", "'=bob@uni.example"]  # OWASP
    rows = {r["student"]: r for r in read_moodle(out)}
    assert rows["ada@uni.example"]["grade"] == str(len(QS))
    assert rows["ada@uni.example"]["feedback"] == "all right"
    bob = rows["=bob@uni.example"]
    assert (int(bob["grade"]), int(bob["max_grade"]), bob["lab"]) == (2, len(QS), "1")
    for k, why in failed_reasons(BOB).items():
        assert f"{k}: {why}" in bob["feedback"]
    assert not any(v in out.read_text() for v in KEY_VALUES)
    assert run("moodle", [folder / "ada.toml"], key, out) == 0  # written anew, not appended
    assert len(read_moodle(out)) == 1


def test_csv_is_the_gradebook_with_a_reason_per_failure(key: Path, tmp_path: Path) -> None:
    out = tmp_path / "grades.csv"
    assert run("csv", [write(tmp_path / "bob.toml", BOB)], key, out) == 5
    rows = gradebook.read(out)  # csv.DictReader, the OWASP quote taken off again
    reasons = failed_reasons(BOB)
    assert {r["question"]: r["note"] for r in rows if r["mark"] == "fail"} == reasons
    assert not any(v in out.read_text() for v in KEY_VALUES)


def test_a_students_text_forges_no_verdict_line(key: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The printed verdicts (the instructor's terminal) hold each answer on its line: bob's
    line breaks are shown escaped, so his key cannot print an 'ok' of its own."""
    forged = {"x\n  ok  member_frames": "5\n  ok  leave_s = 1"}
    assert main(["lab", "1", "--check", str(write(tmp_path / "bob.toml", BOB | forged)),
                 "--against", str(key)]) == 5
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(QS) + 2  # the header, each question, bob's two keys
    assert [line for line in lines if line.lstrip().startswith("ok")] == [
        "  ok  buckets = 2", "  ok  membership_interval_s = 5.0"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_and_no_line_holds_a_measured_value_without_the_secret(
        fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A student's own check (a fresh measurement, no instructor secret) writing any format:
    reasons, and nothing the measurement gave."""
    monkeypatch.setattr(runner, "kept_up", lambda _lab, _p: dict(MEASURED, fidelity=[]))
    monkeypatch.delenv(secret.ENV_FILE, raising=False)
    monkeypatch.delenv(secret.ENV, raising=False)
    out = tmp_path / f"out.{fmt}"
    assert main(["lab", "1", "--check", str(write(tmp_path / "bob.toml", BOB)),
                 "--gradebook", str(out), "--format", fmt]) == 5
    printed = capsys.readouterr().out
    for text in (printed, out.read_text()):
        assert not any(v in text for v in KEY_VALUES) and "measured" not in text
    assert "not a whole number" in out.read_text()


@pytest.mark.parametrize("fmt", ["gradescope", "inginious"])
def test_a_submission_that_cannot_be_judged_is_told_why(
        fmt: str, key: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No answer file, one that is not TOML, or two: exit 2, and the results say why."""
    cases = {"empty": [], "bad": ["bad.toml"], "two": ["a.toml", "b.toml"]}
    needles = {"empty": "holds no .toml answer file", "bad": "is not valid TOML",
               "two": "2 answer files were given: submit one .toml file"}
    for case, names in cases.items():
        folder = tmp_path / case
        folder.mkdir()
        for name in names:
            write(folder / name, MEASURED) if name != "bad.toml" else \
                (folder / name).write_text("lab = 1\nx = [")
        out = tmp_path / f"{case}.out"
        assert run(fmt, [folder], key, out) == 2
        err = capsys.readouterr().err
        assert needles[case] in err and "Traceback" not in err
        if fmt == "gradescope":
            doc = json.loads(out.read_text())
            assert doc["score"] == 0.0 and doc["tests"] == [] and needles[case] in doc["output"]
        else:
            fields, body = read_inginious(out.read_text())
            assert (fields["result"], fields["grade"]) == ("failed", "0")
            assert exports.rst_text(needles[case]) in body


@pytest.mark.parametrize(("args", "needle"), [
    (["--gradebook", "{dir}/g", "--format", "xml"],
     "--format: no format 'xml'; the formats are csv, moodle, gradescope, inginious"),
    (["--format", "gradescope"], "--format is the form of --gradebook"),
    (["--gradebook", "{dir}/no/r.json", "--format", "gradescope"], "does not exist"),
    (["--gradebook", "/proc/r.json", "--format", "gradescope"], "proc file system"),
    (["--gradebook", "{dir}", "--format", "inginious"], "is a folder"),
    (["--gradebook", "{dir}/bob.toml/r", "--format", "moodle"], "is not a folder"),
])
def test_bad_export_input_is_one_message(key: Path, tmp_path: Path, args: list[str],
                                         needle: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    bob = write(tmp_path / "bob.toml", BOB)
    argv = [a.format(dir=tmp_path) for a in args]
    assert main(["lab", "1", "--check", str(bob), "--against", str(key), *argv]) == 2
    out, err = capsys.readouterr()
    assert needle in err and "Traceback" not in err and out == ""
    assert len(err.strip().splitlines()) == 1


# --- in a submission container: no Mininet, not root -----------------------------------

HIDDEN = ("mininet", "os_ken", "ryu", "eventlet", "scapy", "mpi4py.MPI")
# runs the command line with the packages a network needs hidden from the import system,
# and writes which of them the check tried to import
PROBE = f"HIDDEN = {HIDDEN!r}\n" + """
import importlib.abc, json, os, sys
tried = []
class Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name in HIDDEN or name.split(".")[0] in HIDDEN:
            tried.append(name)
            raise ImportError(name + " is hidden: no network in a submission container")
        return None
sys.meta_path.insert(0, Hidden())
from testbed.cli.main import main
rc = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    json.dump({"rc": rc, "tried": tried, "euid": os.geteuid()}, f)
"""
NOBODY = 65534


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder a user who is not root can use (tmp_path's parents are root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="mcastlab-exports-"))
    try:
        if os.geteuid() == 0:
            os.chown(path, NOBODY, NOBODY)
        yield path
    finally:
        shutil.rmtree(path)


def as_user(cmd: list[str]) -> list[str]:
    """`cmd` run as nobody when the tests run as root (setpriv, util-linux)."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *cmd]


def test_the_check_against_a_key_needs_no_mininet_and_no_root(shared: Path) -> None:
    key = signed_key(shared / "key.toml")
    answers = write(shared / "bob.toml", BOB)
    out, probe = shared / "results.json", shared / "probe.json"
    env = clean_env() | {secret.ENV: SECRET, "HOME": str(shared)}
    for path in (key, answers):
        path.chmod(0o644)
    done = subprocess.run(as_user([
        sys.executable, "-c", PROBE, str(probe), "lab", "1", "--check", str(answers),
        "--against", str(key), "--marks-only", "--gradebook", str(out),
        "--format", "gradescope"]), env=env, cwd=shared, capture_output=True, text=True,
        timeout=120, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    got = json.loads(probe.read_text())
    assert got == {"rc": 5, "tried": [], "euid": NOBODY if os.geteuid() == 0 else os.geteuid()}
    assert json.loads(out.read_text())["score"] == 2.0


def test_the_sample_run_autograder_writes_results_json(tmp_path: Path) -> None:
    """labs/instructor/gradescope/run_autograder in a folder laid out as /autograder."""
    ag = tmp_path / "autograder"
    (ag / "source").mkdir(parents=True)
    (ag / "submission").mkdir()
    (ag / "source" / "lab").write_text("1\n")
    (ag / "source" / "secret").write_text(SECRET + "\n")
    signed_key(ag / "source" / "key.toml")
    write(ag / "submission" / "answers.toml", BOB)
    env = clean_env()
    env |= {"AUTOGRADER": str(ag), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"}
    done = subprocess.run([str(ROOT / "labs/instructor/gradescope/run_autograder")], env=env,
                          cwd=ag, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    doc = json.loads((ag / "results" / "results.json").read_text())
    assert doc["score"] == 2.0 and doc["max_score"] == len(QS)
    assert not any(v in done.stdout for v in KEY_VALUES)  # --marks-only: stdout too


def test_the_sample_inginious_run_file_sets_result_grade_and_feedback(tmp_path: Path) -> None:
    """labs/instructor/inginious/run with INGInious' commands stood in for by scripts that
    record what they were given."""
    task, bin_ = tmp_path / "task", tmp_path / "bin"
    task.mkdir()
    bin_.mkdir()
    (task / "lab").write_text("1\n")
    (task / "secret").write_text(SECRET + "\n")
    signed_key(task / "key.toml")
    submitted = write(tmp_path / "submitted.toml", BOB)
    log = tmp_path / "log"
    (bin_ / "getinput").write_text(f'#!/bin/sh\n[ "$1" = answers:value ] && cat {submitted}\n')
    for cmd in ("feedback-result", "feedback-grade", "feedback-msg"):
        (bin_ / cmd).write_text(
            f'#!/bin/sh\nprintf "%s\\n" "{cmd} $*" >> {log}\n'
            + (f'[ $# -eq 0 ] || [ "$1" = -i ] && sed "s/^/  /" >> {log}\n'
               if cmd == "feedback-msg" else ""))
        (bin_ / cmd).chmod(0o755)
    (bin_ / "getinput").chmod(0o755)
    env = clean_env()
    env |= {"PATH": f"{bin_}:{Path(sys.executable).parent}:{env['PATH']}",
            "TMPDIR": str(tmp_path)}
    done = subprocess.run([str(ROOT / "labs/instructor/inginious/run")], env=env, cwd=task,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    grade = f"{100 * 2 / len(QS):.2f}"
    assert lines[:2] == ["feedback-result failed", f"feedback-grade {grade}"]
    assert lines[2] == "feedback-msg " and "feedback-msg -i answers" in lines
    feedback = lines[3:lines.index("feedback-msg -i answers")]
    assert feedback[0] == "  Lab 1: 2 of 7 questions right."
    assert sum("**NO**" in line for line in feedback) == len(failed_reasons(BOB))
