"""testbed.labs.gradebook: `mcastlab lab N --check FILE... --gradebook GRADES.csv` lists every
submitted answer with its mark (issue 38's test), missing answers and keys that answer no
question among them, one row per answer per file, appended check after check; the gradebook
never holds a measured value, and a file that is not a gradebook is refused before anything
is judged."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from testbed.cli.main import main
from testbed.labs import gradebook, labs, secret
from testbed.labs.answers import Question, check, to_toml
from testbed.labs.gradebook import COLUMNS, Submission, append, rows

SECRET = "g" * 32
LAB = labs()[1]
QS = list(LAB.questions)
# lab 1's measurement as a key: counts, and times no answer below comes near
MEASURED: dict[str, Any] = {"member_frames": 5, "nonmember_frames": 0, "buckets": 2,
                            "leave_s": 1.37, "after_leave_frames": 0,
                            "membership_interval_s": 5.0, "expiry_s": 4.73}


@pytest.fixture
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(secret.ENV_FILE, raising=False)
    monkeypatch.setenv(secret.ENV, SECRET)
    path = tmp_path / "key.toml"
    path.write_text(secret.sign(to_toml(1, QS, MEASURED), SECRET.encode()))
    return path


def toml_value(v: Any) -> str:
    return f'"{v}"' if isinstance(v, str) else repr(v)


def write(path: Path, answers: dict[str, Any], head: str = "lab = 1\n") -> Path:
    path.write_text(head + "".join(f"{k} = {toml_value(v)}\n" for k, v in answers.items()))
    return path


def read(path: Path) -> list[dict[str, str]]:
    return gradebook.read(path)


@pytest.fixture
def klass(tmp_path: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A class's folder: one student all right, one with wrong and missing answers and a
    typo, one named by `student =` with answers that are no number."""
    folder = tmp_path / "class"
    folder.mkdir()
    answers = {
        "ada": dict(MEASURED),
        "bob": {"member_frames": 4, "nonmember_frames": 0, "buckets": 2, "leave_s": 20.0,
                "membership_interval_s": 5.0, "expiry_s": 4.0, "bukets": 2},
        "carol": {"member_frames": 5, "nonmember_frames": "none", "buckets": 2,
                  "leave_s": 1.0, "after_leave_frames": 0, "membership_interval_s": 5.0,
                  "expiry_s": 5.5},
    }
    for name, given in answers.items():
        head = 'lab = 1\nstudent = "Carol Shaw"\n' if name == "carol" else "lab = 1\n"
        write(folder / f"{name}.toml", given, head)
    return folder, answers


def test_the_gradebook_lists_every_submitted_answer_with_its_mark(
        key: Path, klass: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, answers = klass
    grades = tmp_path / "grades.csv"
    assert main(["lab", "1", "--check", str(folder), "--against", str(key),
                 "--gradebook", str(grades)]) == 5
    assert "gradebook: " in capsys.readouterr().err
    got = read(grades)
    assert tuple(got[0]) == COLUMNS
    students = {"ada": "ada", "bob": "bob", "carol": "Carol Shaw"}
    expected_marks = {
        "ada": {q.key: "pass" for q in QS},
        "bob": {"member_frames": "fail", "nonmember_frames": "pass", "buckets": "pass",
                "leave_s": "fail", "after_leave_frames": "fail",
                "membership_interval_s": "pass", "expiry_s": "pass", "bukets": "fail"},
        "carol": {q.key: "pass" for q in QS} | {"nonmember_frames": "fail"},
    }
    for name, given in answers.items():
        mine = [r for r in got if r["file"] == str(folder / f"{name}.toml")]
        # every question of the lab and every key the file gave, each once
        assert sorted(r["question"] for r in mine) == sorted({q.key for q in QS} | set(given))
        for r in mine:
            assert r["student"] == students[name] and r["lab"] == "1"
            assert r["mark"] == expected_marks[name][r["question"]], r
            submitted = given.get(r["question"])
            assert r["answer"] == ("" if submitted is None else str(submitted))
            assert r["judged_by"] == f"key {key}" and r["checked"]
    bob = {r["question"]: r for r in got if r["student"] == "bob"}
    assert bob["after_leave_frames"]["note"] == "missing"
    assert bob["bukets"]["note"] == "answers no question of this lab"
    assert bob["leave_s"]["note"] == "wrong (within x3 or +-1)"
    assert not any(r["note"] for r in got if r["mark"] == "pass")
    assert len(got) == sum(len(expected_marks[n]) for n in answers)


def test_the_gradebook_holds_no_measured_value(key: Path, tmp_path: Path) -> None:
    wrong = write(tmp_path / "wrong.toml", {q.key: 77 for q in QS})
    grades = tmp_path / "grades.csv"
    main(["lab", "1", "--check", str(wrong), "--against", str(key), "--gradebook", str(grades)])
    text = grades.read_text()
    assert "measured" not in text and "4.73" not in text and "1.37" not in text
    assert {r["mark"] for r in read(grades)} == {"fail"}


def test_checks_append_to_one_gradebook(key: Path, tmp_path: Path) -> None:
    grades = tmp_path / "grades.csv"
    one = write(tmp_path / "one.toml", MEASURED)
    for _ in range(2):
        assert main(["lab", "1", "--check", str(one), "--against", str(key),
                     "--gradebook", str(grades)]) == 0
    got = read(grades)
    assert len(got) == 2 * len(QS)  # the header once: the second check appended
    assert grades.read_text().count("student,file,lab") == 1


def test_a_file_that_is_no_gradebook_is_refused_before_judging(
        key: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grades = tmp_path / "notes.csv"
    grades.write_text("name,grade\nada,A\n")
    one = write(tmp_path / "one.toml", MEASURED)
    assert main(["lab", "1", "--check", str(one), "--against", str(key),
                 "--gradebook", str(grades)]) == 2
    out, err = capsys.readouterr()
    assert "is not a gradebook" in err and out == ""
    assert grades.read_text() == "name,grade\nada,A\n"


@pytest.mark.parametrize(("args", "needle"), [
    (["--gradebook", "g.csv"], "--gradebook goes with --check"),
    (["--marks-only"], "--marks-only goes with --check"),
    (["--check", "{dir}/empty"], "holds no .toml answer file"),
    (["--check", "{dir}/bad.toml"], "is not a name"),
    (["--check", "{dir}/one.toml", "--gradebook", "{dir}/no/g.csv"], "does not exist"),
])
def test_bad_gradebook_input_is_one_message(key: Path, tmp_path: Path, args: list[str],
                                            needle: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path / "bad.toml", MEASURED, "student = 3\n")
    write(tmp_path / "one.toml", MEASURED)
    argv = [a.format(dir=tmp_path) for a in args]
    assert main(["lab", "1", *argv, "--against", str(key)] if "--check" in args
                else ["lab", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_rows_one_per_verdict_in_order() -> None:
    qs = [Question("n", "a count", "int"), Question("t", "a time")]
    verdicts = check(qs, {"n": 3, "t": 10.0}, {"n": 3, "x": True})
    got = rows(2, [Submission("ada", Path("a.toml"), verdicts)], "2026-01-01T10:00:00+01:00",
               "measurement")
    assert [(r["question"], r["answer"], r["mark"], r["note"]) for r in got] == [
        ("n", "3", "pass", ""), ("t", "", "fail", "missing"),
        ("x", "true", "fail", "answers no question of this lab")]
    assert {r["lab"] for r in got} == {"2"}


def test_append_writes_the_header_once(tmp_path: Path) -> None:
    path = tmp_path / "g.csv"
    row = dict.fromkeys(COLUMNS, "x")
    append(path, [row])
    append(path, [row, row])
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    assert len(read(path)) == 3


def test_cells_a_spreadsheet_would_evaluate_are_escaped_and_read_back(tmp_path: Path) -> None:
    """Issue 53 (OWASP CSV injection): a cell that begins with =, +, -, @, a tab or a
    carriage return (or the quote that escapes them) gets a leading quote in the file;
    gradebook.read() gives back what was appended, and the file stays a gradebook that
    the next check appends to."""
    hostile = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2", "@SUM(A1:A9)", "\tx", "\rx",
               "'=already", "plain", "", "5"]
    grades = tmp_path / "grades.csv"
    new = [dict(zip(COLUMNS, [h, "f.toml", "1", "q", h, "fail", "", "now", "key k.toml"],
                    strict=True)) for h in hostile]
    append(grades, new)
    append(grades, new[:1])  # the header is read back and accepted
    with grades.open(newline="") as f:
        raw = list(csv.DictReader(f))
    for row, h in zip(raw, hostile, strict=False):
        escaped = h[:1] in ("=", "+", "-", "@", "\t", "\r", "'")
        assert row["student"] == ("'" + h if escaped else h)
        assert row["answer"] == row["student"]
    assert gradebook.read(grades) == new + new[:1]
