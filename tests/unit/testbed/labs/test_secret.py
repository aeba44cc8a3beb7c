"""testbed.labs.secret: the key is the instructor's. --solve, --sign and --check --against
are refused without the instructor secret (one message, exit 2, nothing measured) and work
with it, from $MCASTLAB_INSTRUCTOR_SECRET or a file outside the checkout that only its owner
reads; a key judges only when its HMAC matches: not signed, signed with another secret, or
changed after signing (a line appended after the signature too) is refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from testbed.cli.main import main
from testbed.errors import UsageError
from testbed.labs import labs, runner, secret
from testbed.labs.answers import load_answers, load_key, to_toml

LAB = labs()[1]
QS = list(LAB.questions)
MEASURED: dict[str, Any] = {q.key: 5 if q.kind == "int" else 2.5 for q in QS}
GOOD = "i" * 32


@pytest.fixture(autouse=True)
def no_secret_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secret.ENV, raising=False)
    monkeypatch.delenv(secret.ENV_FILE, raising=False)

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a measurement was started")

    monkeypatch.setattr(runner, "kept_up", refuse)


def secret_file(folder: Path, text: str = GOOD, mode: int = 0o600) -> Path:
    path = folder / "instructor-secret"
    path.write_text(text + "\n")
    os.chmod(path, mode)
    return path


def signed_key(folder: Path, with_secret: str = GOOD) -> Path:
    path = folder / "key.toml"
    path.write_text(secret.sign(to_toml(1, QS, MEASURED), with_secret.encode()))
    return path


@pytest.mark.parametrize("args", [["--solve", "{dir}/key.toml"], ["--solve", "-"],
                                  ["--sign", "{dir}/key.toml"],
                                  ["--check", "{dir}/key.toml", "--against", "{dir}/key.toml"]])
def test_the_instructors_options_are_refused_without_the_secret(
        tmp_path: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    key = signed_key(tmp_path)
    before = key.read_text()
    assert main(["lab", "1", *(a.format(dir=tmp_path) for a in args)]) == 2
    out, err = capsys.readouterr()
    assert "needs the instructor secret" in err or "is the instructor's" in err
    assert secret.ENV in err and "Traceback" not in err and out == ""
    assert key.read_text() == before


def test_solve_with_the_secret_writes_a_signed_key(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "kept_up", lambda _lab, _p: dict(MEASURED, fidelity=[]))
    key = tmp_path / "key.toml"
    assert main(["lab", "1", "--solve", str(key), "--secret-file",
                 str(secret_file(tmp_path))]) == 0
    text = key.read_text()
    assert text.splitlines()[-1].startswith(secret.SIGNATURE)
    assert load_answers(key) == MEASURED  # still an answer file: the signature is a comment
    secret.verify(key, text, GOOD.encode(), 1)
    with pytest.raises(UsageError, match="signature does not match"):
        secret.verify(key, text, b"another secret, long enough", 1)


def test_check_against_a_signed_key_with_the_secret(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    key = signed_key(tmp_path)
    monkeypatch.setenv(secret.ENV, GOOD)
    assert main(["lab", "1", "--check", str(key), "--against", str(key)]) == 0
    assert f"{len(QS)} of {len(QS)} right" in capsys.readouterr().out
    monkeypatch.delenv(secret.ENV)
    monkeypatch.setenv(secret.ENV_FILE, str(secret_file(tmp_path)))
    assert main(["lab", "1", "--check", str(key), "--against", str(key)]) == 0


@pytest.mark.parametrize(("change", "needle"), [
    (lambda t: t.replace("member_frames = 5", "member_frames = 4"), "does not match"),
    (lambda t: t + "[ties]\nexpiry_s = [1]\n", "does not match"),
    (lambda t: secret.unsigned(t), "is not signed"),
    (lambda t: secret.sign(secret.unsigned(t), b"a student's own secret!!"), "does not match"),
])
def test_a_key_not_signed_by_this_secret_is_refused(tmp_path: Path, change: Any, needle: str,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    key = signed_key(tmp_path)
    key.write_text(change(key.read_text()))
    monkeypatch.setenv(secret.ENV, GOOD)
    assert main(["lab", "1", "--check", str(key), "--against", str(key)]) == 2
    out, err = capsys.readouterr()
    assert needle in err and out == ""


def test_sign_makes_an_old_key_judge_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key.toml"
    key.write_text(to_toml(1, QS, MEASURED))  # as --solve wrote keys before they were signed
    monkeypatch.setenv(secret.ENV, GOOD)
    assert main(["lab", "1", "--check", str(key), "--against", str(key)]) == 2
    assert f"mcastlab lab 1 --sign {key}" in capsys.readouterr().err
    assert main(["lab", "1", "--sign", str(key)]) == 0
    assert main(["lab", "1", "--sign", str(key)]) == 0  # again: one signature, replaced
    assert key.read_text().count(secret.SIGNATURE) == 1
    assert main(["lab", "1", "--check", str(key), "--against", str(key)]) == 0
    assert load_key(key, 1, QS) == MEASURED
    bad = tmp_path / "bad.toml"
    bad.write_text("lab = 1\nmember_frames = 'five'\n")
    assert main(["lab", "1", "--sign", str(bad)]) == 2  # only a key of the lab is signed
    assert "is no key of lab 1" in capsys.readouterr().err
    assert secret.SIGNATURE not in bad.read_text()


@pytest.mark.parametrize(("make", "needle"), [
    (lambda d: secret_file(d, mode=0o644), "can be read by others"),
    (lambda d: secret_file(d, text="short"), "shorter than 16"),
    (lambda d: d / "missing", "cannot read"),
    (lambda d: secret_file(secret.CHECKOUT / "labs"), "inside the checkout"),
])
def test_a_bad_secret_file_is_one_message(tmp_path: Path, make: Any, needle: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = make(tmp_path)
    try:
        assert main(["lab", "1", "--sign", str(signed_key(tmp_path)), "--secret-file",
                     str(path)]) == 2
    finally:
        if secret.CHECKOUT in path.parents:
            path.unlink()
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_the_secret_comes_from_the_option_then_the_file_then_the_value(tmp_path: Path) -> None:
    path = secret_file(tmp_path, "f" * 20)
    (tmp_path / "other").mkdir()
    env = {secret.ENV: "e" * 20, secret.ENV_FILE: str(secret_file(tmp_path / "other", "g" * 20))}
    assert secret.instructor_secret(path, env) == b"f" * 20
    assert secret.instructor_secret(None, env) == b"g" * 20
    assert secret.instructor_secret(None, {secret.ENV: " " + "e" * 20}) == b"e" * 20
    assert secret.instructor_secret(None, {}) is None
    with pytest.raises(UsageError, match="shorter than"):
        secret.instructor_secret(None, {secret.ENV: "e" * 15})


def test_keys_are_written_for_the_instructor_alone(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 53: --solve and --sign write the key 0600 (it was 0644: any user of the machine
    read the answers), through checked folders, never through a link."""
    monkeypatch.setenv(secret.ENV, GOOD)
    monkeypatch.setattr(runner, "kept_up", lambda *_a: {**MEASURED, "fidelity": []})
    key = tmp_path / "key.toml"
    assert main(["lab", "1", "--solve", str(key)]) == 0
    assert oct(os.stat(key).st_mode & 0o777) == oct(0o600)
    assert load_key(key, 1, QS) == MEASURED
    old = tmp_path / "old.toml"
    old.write_text(to_toml(1, QS, MEASURED))
    old.chmod(0o644)
    assert main(["lab", "1", "--sign", str(old)]) == 0
    assert oct(os.stat(old).st_mode & 0o777) == oct(0o600)
    link = tmp_path / "link.toml"
    link.symlink_to(tmp_path / "elsewhere.toml")
    assert main(["lab", "1", "--solve", str(link)]) == 2
    assert not (tmp_path / "elsewhere.toml").exists()
