"""testbed.labs.variant_runs through `mcastlab lab`: the instructor writes a class's
variant files (with the secret only), a student opens theirs (no secret) and sees its values
as the network comes up, a key solved for a variant names it, and a check judges each file
by the key (or the measurement) of the variant the file names: a file of another variant is
wrong, saying so. No network: the measurement is replaced by fixed values (the lab's own is
taken in tests/integration/test_labs.py)."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from testbed.cli.main import main
from testbed.labs import labs, runner, secret, variant_runs
from testbed.labs.answers import load_key, to_toml
from testbed.labs.variant_file import file_name, named, of_student, read

KEY = "k" * 32
LAB1 = labs()[1]


def measured(n: int) -> dict[str, Any]:
    return {q.key: n if q.kind == "int" else n / 2 for q in LAB1.questions}


@pytest.fixture(autouse=True)
def with_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secret.ENV_FILE, raising=False)
    monkeypatch.setenv(secret.ENV, KEY)


def class_of(tmp_path: Path, capsys: pytest.CaptureFixture[str], *students: str) -> Path:
    (tmp_path / "roster.csv").write_text("student\n" + "\n".join(students) + "\n")
    folder = tmp_path / "variants"
    folder.mkdir()
    assert main(["lab", "1", "--variant-files", str(tmp_path / "roster.csv"),
                 str(folder)]) == 0
    out = capsys.readouterr().out
    for s in students:
        assert f"{s}\t{folder / file_name(1, s)}\t{of_student(LAB1, KEY.encode(), s).digest}" \
            in out
    return folder


def test_the_instructor_writes_a_class_of_variant_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = class_of(tmp_path, capsys, "ada", "bob", "carol")
    assert sorted(p.name for p in folder.iterdir()) == ["lab1-ada.toml", "lab1-bob.toml",
                                                        "lab1-carol.toml"]
    monkeypatch.delenv(secret.ENV)
    assert read(folder / "lab1-bob.toml", LAB1, None).student == "bob"  # no secret needed
    roster = str(tmp_path / "roster.csv")
    assert main(["lab", "1", "--variant-files", roster, str(folder)]) == 2
    assert "needs the instructor secret" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "said"), [
    (["1", "--variant-files", "R", "nowhere"], "nowhere is not a folder"),
    (["1", "--variant-files", "R", ".", "--variant", "ada"], "no --variant"),
    (["1", "--variant", "ada", "--check", "a.toml", "--against", "k.toml"],
     "--variant does not go with --against"),
    (["1", "--variant", "ada", "--sign", "k.toml"], "--variant does not go with --sign"),
    (["--variant", "ada"], "give the lab's number"),
    (["1", "--variant", "missing.toml"], "no file missing.toml"),
])
def test_variant_options_refuse_what_does_not_go(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        args: list[str], said: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "R").write_text("ada\n")
    assert main(["lab", *args]) == 2
    assert said in capsys.readouterr().err


def test_a_students_id_is_the_instructors(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secret.ENV)
    assert main(["lab", "1", "--variant", "ada", "--solve", "-"]) == 2
    assert "a student opens their variant file instead" in capsys.readouterr().err


def test_a_key_solved_for_a_variant_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[Any] = []

    def kept_up(lab, _progress):
        ran.append(lab.values)
        return dict(measured(5), fidelity=[])

    monkeypatch.setattr(runner, "kept_up", kept_up)
    key = tmp_path / "key.toml"
    assert main(["lab", "1", "--variant", "ada", "--solve", str(key)]) == 0
    ada = of_student(LAB1, KEY.encode(), "ada")
    assert ran == [ada.values]  # measured with ada's values
    assert named(key) == ada.digest and 'student = "ada"' in key.read_text()
    assert load_key(key, 1, list(LAB1.questions),
                    lambda t: secret.verify(key, t, KEY.encode(), 1)) == measured(5)
    capsys.readouterr()


def answers(path: Path, values: dict[str, Any], variant: str | None,
            student: str | None = None) -> Path:
    body = to_toml(1, list(LAB1.questions), values)
    path.write_text((f'variant = "{variant}"\n' if variant else "")
                    + (f'student = "{student}"\n' if student else "") + body)
    return path


def key_of(folder: Path, student: str, values: dict[str, Any]) -> str:
    v = of_student(LAB1, KEY.encode(), student)
    head, _, rest = to_toml(1, list(LAB1.questions), values).partition("\n")
    (folder / f"{student}.toml").write_text(
        secret.sign(head + "\n" + variant_runs.key_lines(v) + rest, KEY.encode()))
    return v.digest


def test_a_class_is_judged_against_the_keys_of_its_variants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys, files = tmp_path / "keys", tmp_path / "class"
    keys.mkdir()
    files.mkdir()
    ada, bob = key_of(keys, "ada", measured(5)), key_of(keys, "bob", measured(20))
    answers(files / "1-ada.toml", measured(5), ada, "ada")
    answers(files / "2-bob.toml", measured(20), bob, "bob")
    answers(files / "3-copied.toml", measured(5), bob, "bob")  # ada's answers, bob's variant
    answers(files / "4-none.toml", measured(5), None, "ada")  # the handout's: no key of it
    answers(files / "5-cat.toml", measured(20), bob, "cat")  # bob's answers and variant
    n = len(LAB1.questions)
    assert main(["lab", "1", "--check", str(files), "--against", str(keys)]) == 5
    out = capsys.readouterr().out
    assert f"1-ada.toml: {n} of {n} right" in out and f"2-bob.toml: {n} of {n} right" in out
    assert f"3-copied.toml: 0 of {n} right" in out
    assert f"4-none.toml: 0 of {n} right" in out
    assert "answered for variant " + str(variant_runs.own(LAB1)) in out
    assert f"5-cat.toml: 0 of {n} right" in out and f"variant {bob} is bob's, not cat's" in out
    # two keys of one variant and student are refused before any file is judged
    (keys / "again.toml").write_text((keys / "ada.toml").read_text())
    assert main(["lab", "1", "--check", str(files), "--against", str(keys)]) == 2
    assert "are keys of one variant" in capsys.readouterr().err


def test_students_who_drew_one_variant_have_a_key_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Lab 4 has 30 variants: in a class two students draw the same one, and their keys
    (each measured for its student) are judged apart."""
    lab4 = labs()[4]
    k = KEY.encode()
    a, b = next((a, b) for a, b in ((f"s{i}", f"s{j}") for i in range(100)
                                    for j in range(i + 1, 100))
                if of_student(lab4, k, a).values == of_student(lab4, k, b).values)
    keys = tmp_path / "keys"
    keys.mkdir()
    qs = list(lab4.questions)
    one = {q.key: "yes" if q.kind == "choice" else 10.0 for q in qs}
    for s in (a, b):
        v = of_student(lab4, k, s)
        head, _, rest = to_toml(4, qs, one).partition("\n")
        (keys / f"{s}.toml").write_text(secret.sign(head + "\n" + variant_runs.key_lines(v)
                                                    + rest, k))
    mine = tmp_path / "mine.toml"
    mine.write_text(f'student = "{b}"\nvariant = "{of_student(lab4, k, b).digest}"\n'
                    + to_toml(4, qs, one))
    assert main(["lab", "4", "--check", str(mine), "--against", str(keys)]) == 0
    assert f"{len(qs)} of {len(qs)} right" in capsys.readouterr().out


def test_a_check_measures_the_variant_its_file_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = class_of(tmp_path, capsys, "ada")
    ran: list[Any] = []

    def kept_up(lab, _progress):
        ran.append(lab.values)
        return dict(measured(5), fidelity=[])

    monkeypatch.setattr(runner, "kept_up", kept_up)
    monkeypatch.delenv(secret.ENV)  # the student's own check: their file, no secret
    mine = folder / "lab1-ada.toml"
    ada = read(mine, LAB1, None)
    right = answers(tmp_path / "right.toml", measured(5), ada.digest, "ada")
    other = answers(tmp_path / "other.toml", measured(5), None, "ada")
    assert main(["lab", "1", "--variant", str(mine), "--check", str(right), str(other)]) == 5
    out = capsys.readouterr().out
    n = len(LAB1.questions)
    assert ran == [ada.values]
    assert f"right.toml: {n} of {n} right" in out and f"other.toml: 0 of {n} right" in out


def test_the_prompt_shows_the_variant_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    v = of_student(LAB1, KEY.encode(), "ada")
    lab = LAB1.vary(v.values)
    monkeypatch.setattr(runner, "_emulation", lambda _lab, _p: nullcontext())
    prompted: list[Any] = []
    assert runner.open_lab(lab, None, lambda _m: None, lambda e, s: prompted.append(e),
                           v) == 0
    out = capsys.readouterr().out
    assert prompted == [None]
    assert out.startswith("your variant of lab 1 (ada)")
    assert f"  the group: {v.values['group']}" in out
    assert f'  student = "ada"\n  variant = "{v.digest}"\n' in out
    assert lab.questions[0].text in out


def test_the_list_of_labs_names_what_varies(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "--json"]) == 0
    listed = {lab["number"]: lab for lab in json.loads(capsys.readouterr().out)}
    assert listed[1]["variants"] == ["group", "roles", "sent", "query_interval_s",
                                     "last_member_interval_s"]
    assert listed[6]["variants"] == ["failed", "sent"] and "no_variants" not in listed[6]
    assert listed[2]["variants"] == ["large"] == listed[3]["variants"]
    assert listed[5]["variants"] == ["size", "hot"] and "no_variants" not in listed[5]


def test_a_student_writes_the_experiment_spec_of_their_variant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lab 5's students run an experiment spec: `--variant FILE --spec OUT` writes it with
    their values, without the secret, a network or root; the prompt says how."""
    lab5 = labs()[5]
    (tmp_path / "roster.csv").write_text("ada\n")
    assert main(["lab", "5", "--variant-files", str(tmp_path / "roster.csv"),
                 str(tmp_path)]) == 0
    monkeypatch.delenv(secret.ENV)
    monkeypatch.setattr(runner, "_emulation", None)  # no network: it would fail
    mine, out = tmp_path / file_name(5, "ada"), tmp_path / "my-lab5.toml"
    ada = read(mine, lab5, None)
    capsys.readouterr()
    assert main(["lab", "5", "--variant", str(mine), "--spec", str(out)]) == 0
    assert f"written to {out}: sudo .venv/bin/mcastlab experiment {out}" in \
        capsys.readouterr().err
    text = out.read_text()
    assert text.startswith(f"# lab 5, the variant of ada (variant {ada.digest}): size "
                           f"{ada.values['size']}, hot {ada.values['hot']}\n")
    assert text.partition("\n")[2] == lab5.vary(ada.values).spec()
    handout = tmp_path / "handout.toml"
    assert main(["lab", "5", "--spec", str(handout)]) == 0
    assert handout.read_text() == lab5.spec()
    lines = variant_runs.intro(lab5.vary(ada.values), ada)
    assert lines[-1].startswith("your experiment spec, with your values: mcastlab lab 5 "
                                "--variant YOUR_VARIANT_FILE --spec my-lab5.toml")
    for args, said in ((["4", "--spec", "x.toml"], "lab 4 runs no experiment spec"),
                       (["5", "--spec", "x.toml", "--check", "a.toml"],
                        "--check and --spec do not go together"),
                       (["5", "--spec", "x.toml", "--web"], "--web shows the network")):
        assert main(["lab", *args]) == 2
        assert said in capsys.readouterr().err, args
