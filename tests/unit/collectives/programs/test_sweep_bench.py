"""collectives.programs.sweep_bench --rounds: the points take turns, each its share of the
broadcasts a round (its warm-up in the first), and each point's record, printed after the
last round, holds every round's samples over the span of them all."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from collectives.ipmc.accounting import FIELDS
from collectives.programs import sweep_bench
from collectives.programs.sweep_bench import POINT_SAID, merged, shares


@pytest.mark.parametrize(("iters", "rounds", "want"), [
    (10, 5, [2, 2, 2, 2, 2]), (10, 3, [4, 3, 3]), (3, 5, [1, 1, 1]), (7, 1, [7])])
def test_a_points_broadcasts_are_shared_among_the_rounds(iters: int, rounds: int,
                                                         want: list[int]) -> None:
    assert shares(iters, rounds) == want and sum(want) == iters


def _rec(key: str, samples: list[float], start: float, end: float,
         verified: bool = True) -> dict[str, Any]:
    return {"key": key, "iterations": len(samples), "verified": verified,
            "samples_s": samples, "start": start, "end": end, "cpu": {"busy": start}}


def test_a_points_rounds_merge_into_one_record() -> None:
    out = merged([_rec("a", [0.002, 0.004], 1.0, 2.0), _rec("a", [0.003], 5.0, 6.0, False)])
    assert out["samples_s"] == [0.002, 0.004, 0.003] and out["iterations"] == 3
    assert out["t_mcast_s"]["median"] == pytest.approx(0.003)
    assert (out["start"], out["end"], out["verified"], out["rounds"]) == (1.0, 6.0, False, 2)
    assert out["cpu"] == {"busy": 5.0}  # the last round's
    assert out["repairs"] is None  # no broadcast had completion reports


def test_a_points_rounds_merge_their_repair_accounts_in_sample_order() -> None:
    one = {k: [0, 1] if k == "rounds" else [None, None] for k in FIELDS}
    other = {k: [2] if k == "rounds" else [None] for k in FIELDS}
    out = merged([{**_rec("a", [0.002, 0.004], 1.0, 2.0), "repairs": one},
                  _rec("a", [0.003], 3.0, 4.0),
                  {**_rec("a", [0.009], 5.0, 6.0), "repairs": other}])
    assert out["samples_s"] == [0.002, 0.004, 0.003, 0.009]
    assert out["repairs"]["rounds"] == [0, 1, None, 2]


class _Comm:
    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's name)
        return 0


def test_the_points_take_turns_and_report_after_the_last_round(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[str, int, int]] = []

    def run_point(comm: Any, point: dict[str, Any], root: int, iters: int, warmup: int,
                  interval: float, budget: float | None = None,
                  nodes: list[int] | None = None) -> dict[str, Any]:
        calls.append((point["key"], iters, warmup))
        t = float(len(calls))
        return _rec(point["key"], [t / 1000] * iters, t, t + 0.5)

    monkeypatch.setattr(sweep_bench, "run_point", run_point)
    args = argparse.Namespace(iters=5, rounds=2, warmup=2, budget=None, label="0")
    assert sweep_bench.in_rounds(_Comm(), [{"key": "a"}, {"key": "b"}], 0, args, None) == 0
    assert calls == [("a", 3, 2), ("b", 3, 2), ("a", 2, 0), ("b", 2, 0)]
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == [POINT_SAID + k for k in "abab"]
    recs = [json.loads(line) for line in lines[4:]]
    assert [(r["key"], r["iterations"], r["start"], r["end"]) for r in recs] == [
        ("a", 5, 1.0, 3.5), ("b", 5, 2.0, 4.5)]
