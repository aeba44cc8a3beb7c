"""The teaching labs on the real stack: every lab's network comes up, the testbed measures
every answer (--solve), and --check, measuring again, accepts those answers and rejects
wrong ones in the same run (a class's files are checked against one measurement). Lab 1
and lab 6 are also driven through their prompt with the handout's commands."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from testbed.labs import labs
from testbed.labs.answers import Question, load_answers

from .conftest import MCASTLAB


def lab(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCASTLAB, "lab", *args], capture_output=True, text=True,
                          timeout=timeout)


def wrong(q: Question, v: object) -> object:
    """An answer no tolerance lets through. A choice's choices are listed so that the last is
    never among the ones a measurement cannot tell apart (lab 3's chain is 1.5x binomial by
    the model whatever t_hold and t_end are)."""
    if q.kind == "choice":
        return next(c for c in reversed(q.choices) if c != v)
    if q.kind == "int":
        return v + 1
    return v * 10 + q.abs_tol * 3 + 100


def toml_value(v: object) -> str:
    return f'"{v}"' if isinstance(v, str) else repr(v)


@pytest.mark.parametrize("number", sorted(labs()))
def test_lab_solve_then_check(caps, clean_after, tmp_path: Path, number: int):
    """Solve, then check the answers against a second measurement. Two measurements of the
    same lab can disagree when one catches the machine in a slow spell (a fresh-clone CI run
    of 2026-11-25: lab 3's t_hold 16.5 us in one and 161.9 in the other, a 64 KiB tree 1713
    against 162 ms; by hand the same minute: 20.6 us and 161 ms): then both are measured once
    more before the test fails. The lab's measurements carry no fidelity flags yet."""
    the_lab = labs()[number]
    n = len(the_lab.questions)
    for attempt in (1, 2):
        key, bad = tmp_path / f"key{attempt}.toml", tmp_path / f"wrong{attempt}.toml"
        out = lab(str(number), "--solve", str(key))
        assert out.returncode == 0, out.stderr
        answers = load_answers(key)
        assert set(answers) == {q.key for q in the_lab.questions}
        bad.write_text("".join(f'"{q.key}" = {toml_value(wrong(q, answers[q.key]))}\n'
                               for q in the_lab.questions))
        out = lab(str(number), "--check", str(key), str(bad))
        assert out.returncode == 5, out.stdout + out.stderr
        assert f"{bad}: 0 of {n} right" in out.stdout, out.stdout
        if f"{key}: {n} of {n} right" in out.stdout:
            break
        assert attempt == 1, out.stdout


def test_lab_check_refuses_bad_files_before_the_network(caps, tmp_path: Path):
    broken = tmp_path / "broken.toml"
    broken.write_text("t_hold_us = \n")
    out = lab("2", "--check", str(broken))
    assert out.returncode == 2 and "not valid TOML" in out.stderr
    assert "starting the controller" not in out.stderr
    out = lab("7")
    assert out.returncode == 2 and "no lab 7" in out.stderr
    listing = lab()
    assert listing.returncode == 0 and len(listing.stdout.splitlines()) == len(labs())


def test_lab1_prompt_with_the_handouts_commands(caps, clean_after, tmp_path: Path):
    script = tmp_path / "lab1.txt"
    script.write_text("\n".join([
        "groups", "join h1 239.1.1.1", "join h2 239.1.1.1", "groups",
        "send h0 239.1.1.1 5", f"tree 239.1.1.1 {tmp_path / 'tree.png'}",
        "sh ovs-ofctl -O OpenFlow13 dump-groups s1",
        "leave h2 239.1.1.1", "sh sleep 2", "groups", "loss 1 h1", "sh sleep 6", "groups",
        "loss 0 h1"]) + "\n")
    out = lab("1", "--script", str(script), timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr
    assert "no groups" in text
    assert re.search(r"h1\s+member\s+5\s+5", text), text
    assert re.search(r"h3\s+-\s+0\s+-", text), text
    group = re.search(r"group_id=\d+,type=all,(.*)", text)
    assert group and group.group(1).count("actions=output") == 2, text
    assert (tmp_path / "tree.png").stat().st_size > 0
    listings = [ln for ln in text.splitlines()
                if ln.startswith("239.1.1.1  members:") or ln == "no groups"]
    assert "h1" not in listings[-1] and "h2" not in listings[-1], text  # left, expired


def test_lab6_prompt_with_the_handouts_commands(caps, clean_after, tmp_path: Path):
    joins = [f"join h{i} 239.255.0.7" for i in range(1, 8)]
    script = tmp_path / "lab6.txt"
    script.write_text("\n".join([
        *joins, "send h0 239.255.0.7 5", "fail h3 h5", "send h0 239.255.0.7 5", "groups",
        "join h1 239.255.0.2", "join h2 239.255.0.2", "send h0 239.255.0.2 5",
        "bcast range-tree 65536 h0 h1 h2 h4 h6 h7", "restore h3 h5"]) + "\n")
    out = lab("6", "--script", str(script), timeout=600)
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr
    assert "*** error" not in text, text
    frames = re.findall(r"^\s+h1\s+member\s+(\d+)\s+(\d+)$", text, re.M)
    assert frames == [("5", "5"), ("0", "0"), ("5", "5")], text  # whole, refused, low
    assert "refused" in text or "failed" in text, text
    head = re.search(r"range-tree 65536 B from h0 to 6 hosts .*bytes verified", text)
    assert head, text
    table = text[head.end():]
    for rank, host in enumerate(["h0", "h1", "h2", "h4", "h6", "h7"]):
        assert re.search(rf"^\s*{rank}\s+{host}\s+\d+ us\s+\d+ us$", table, re.M), table
