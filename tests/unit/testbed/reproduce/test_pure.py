"""testbed.reproduce.pure, Nupairoj's claims judged without a network: the thesis's tables
and examples in the t_hold/t_end model (numbers copied from the thesis into the claims and
here)."""

from __future__ import annotations

import pytest

from testbed.reproduce import pure
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, REPRODUCED, TRANSFER


def ctx(quick: bool = True) -> Context:
    return Context(quick, lambda _msg: None)


@pytest.mark.parametrize("key", ["nupairoj.table-4.2", "nupairoj.table-4.3",
                                 "nupairoj.table-4.4", "nupairoj.ch3-example",
                                 "nupairoj.mesh-6x6", "nupairoj.head-of-line",
                                 "nupairoj.flow-model", "nupairoj.block-binomial",
                                 "nupairoj.opt-min"])
def test_nupairoj_pure_claims_reproduce_the_thesis_numbers(key: str) -> None:
    assert BY_KEY[key].run(ctx()).verdict == REPRODUCED


def test_table_4_1_no_fixed_tree_is_best_everywhere(monkeypatch) -> None:
    """Nupairoj's Table 4.1 at 100 KB (the cells' own size): S1 favours sequential, S2
    binomial, and OPT-Tree is no slower than either on both (16514 and 12408 us)."""
    out = BY_KEY["nupairoj.table-4.1"].run(ctx())
    assert out.verdict == REPRODUCED, out.why
    us = out.values["us"]
    assert us["S1 sequential"] < us["S1 binomial"] and us["S2 binomial"] < us["S2 sequential"]
    assert out.values["opt_tree_us"] == pytest.approx({"S1": 16514, "S2": 12408}, abs=0.5)
    monkeypatch.setattr(pure, "T41", {**pure.T41, ("S1", "binomial"): 21000})
    bad = BY_KEY["nupairoj.table-4.1"].run(ctx())
    assert bad.verdict == DIFFERS and "S1 binomial" in bad.why and bad.kind == TRANSFER


def test_flow_model_gives_fig_3_5s_latencies(monkeypatch) -> None:
    """Section 3.3.1: calls at 0, 2, 5, 3; flow latencies 7, 7, 10; D_c = {P3}."""
    out = BY_KEY["nupairoj.flow-model"].run(ctx())
    assert out.values["flow"] == {1: 7, 2: 7, 3: 10} and out.values["critical"] == [3]
    monkeypatch.setattr(pure, "FIG_3_5", {**pure.FIG_3_5, "flow": {1: 7, 2: 8, 3: 10}})
    bad = BY_KEY["nupairoj.flow-model"].run(ctx())
    assert bad.verdict == DIFFERS and "P2" in bad.why and bad.kind == TRANSFER


def test_block_binomial_makes_p8_critical() -> None:
    """Fig. 3.7: P0 -> P3, P1, P2, P6; P3 -> P4, P5; P1 -> P7; P2 -> P8; P8 last, at
    2 t_hold + 2 t_end of the SP's 1-byte figures (19.17, 53.365 us)."""
    out = BY_KEY["nupairoj.block-binomial"].run(ctx())
    assert out.values["tree"] == {0: [3, 1, 2, 6], 3: [4, 5], 1: [7], 2: [8]}
    assert out.values["critical"] == [8]
    assert out.values["flow_us"][8] == pytest.approx(2 * 19.17 + 2 * 53.365)


def test_opt_min_example_sends_and_latency() -> None:
    """Section 5.3: 0011 -> 1100 at 0, 0011 -> 0111 at 20, 1100 -> 1101 at 55; 130."""
    out = BY_KEY["nupairoj.opt-min"].run(ctx())
    assert out.values["latency"] == 130
    assert {(0, 3, 12), (20, 3, 7), (55, 12, 13)} <= set(out.values["sends"])
