"""testbed.bench.labs: the report checks the key from the first measurement against each later
one, per question the values side by side, the ratio, the tolerance and the verdict; a
flagged measurement judges nothing."""

from __future__ import annotations

import json
from typing import Any

from testbed.bench.labs import judge, markdown, summary
from testbed.labs.answers import Question
from testbed.labs.lab import Lab

QS = (Question("frames", "frames", "int"), Question("t_ms.tree", "a time", factor=1.5),
      Question("winner", "the winner", "choice", choices=("seq", "bin", "chain")))
LAB = Lab(9, "A lab", "09-x.md", "star:hosts=4", QS, lambda _emu, _progress: {})


def _run(s: float, values: dict[str, Any] | None, error: str | None = None) -> dict[str, Any]:
    return {"s": s, "values": values, "error": error}


def _res(*labs: dict[str, Any], count: int = 3) -> dict[str, Any]:
    # the record as bench/labs.json holds it: tuples become lists
    return json.loads(json.dumps({"measurements": count, "labs": list(labs)}))


def test_the_key_is_checked_against_each_later_measurement() -> None:
    lab = judge(LAB, [_run(11.0, {"frames": 5, "t_ms.tree": 100.0, "winner": ("seq", "bin")}),
                      _run(12.5, {"frames": 5, "t_ms.tree": 140.0, "winner": ("bin", "seq")}),
                      _run(10.0, {"frames": 6, "t_ms.tree": 160.0, "winner": ("bin",)})])
    rows = {q["key"]: q for q in lab["questions"]}
    assert rows["winner"]["key_value"] == "seq"  # the key names the first of tied choices
    assert [c["agreed"] for c in rows["winner"]["later"]] == [True, False]
    assert [c["agreed"] for c in rows["t_ms.tree"]["later"]] == [True, False]
    assert [round(c["ratio"], 2) for c in rows["t_ms.tree"]["later"]] == [1.4, 1.6]
    res = _res(lab)
    assert summary(res) == [(2, 3, 3), (3, 0, 3)]
    md = "\n".join(markdown(res))
    assert "| 9 A lab | 3 | 3 of 3 | 0 of 3 | 11, 12.5, 10 |" in md
    assert "measurement 2: 3 of 3; measurement 3: 0 of 3" in md
    assert "| t_ms.tree | within x1.5 | 100 | 140 | 1.40 | yes | 160 | 1.60 | **no** |" in md
    assert "| frames | exact | 5 | 5 | 1.00 | yes | 6 | 1.20 | **no** |" in md
    assert "| winner | one of seq, bin, chain | seq | bin or seq | - | yes | bin | - | **no**" in md


def test_a_flagged_measurement_judges_nothing() -> None:
    flagged = "lab 9: the emulator did not keep up in 2 measurements"
    later = judge(LAB, [_run(11.0, {"frames": 5, "t_ms.tree": 100.0, "winner": "seq"}),
                        _run(30.0, None, flagged)])
    first = judge(LAB, [_run(30.0, None, flagged), _run(11.0, {"frames": 5})])
    res = _res(later, first, count=2)
    assert summary(res) == [(2, 0, 0)]
    md = "\n".join(markdown(res))
    assert "| 9 A lab | 3 | not measured | 11, 30 (flagged) |" in md
    assert "| frames | exact | 5 | - | - | - |" in md
    assert f"Measurement 2: {flagged}" in md and f"Measurement 1: {flagged}" in md
    assert "| 9 A lab | 3 | not measured | 30 (flagged), 11 |" in md


def test_a_question_judged_by_the_keys_own_numbers_is_marked() -> None:
    own = Question("w", "the winner by your numbers", "choice", choices=("seq", "bin"),
                   judge=lambda given: ("bin",) if "t" in given else None)
    lab = Lab(8, "Own", "08-x.md", "star:hosts=4", (Question("t", "t"), own),
              lambda _emu, _progress: {})
    rec = judge(lab, [_run(1.0, {"t": 1.0, "w": "bin"}), _run(1.0, {"t": 1.1, "w": "seq"})])
    md = "\n".join(markdown(_res(rec, count=2)))
    assert "| w * | one of seq, bin | bin | seq | - | yes |" in md
