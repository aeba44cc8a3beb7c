"""testbed.bench.cluster: the paper plan's arithmetic (dividing the cores one machine keeps up
with), and the experiment table, where a flagged point gets no ratio."""

from __future__ import annotations

import pytest

from testbed.bench.cluster import markdown, plan


def _point(alg: str, groups: int, ms: float, flags: list[str]) -> dict:
    return {"algorithm": alg, "groups": groups, "timing": "direct", "servers": [], "ms": ms,
            "flags": flags, "error": None}


def test_the_plan_divides_the_cores_one_machine_keeps_up_with(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    p = plan(30.0, 7.2)  # 16 hosts x 30 Mbit/s on 2 cores: 240 host-Mbit/s a core
    assert p["host_mbit_per_core"] == 240.0 and p["hosts_per_server"] == 33
    assert [(r["hosts"], r["servers"]) for r in p["rows"]] == [(64, 2), (256, 8), (1024, 32)]
    assert p["rows"][0]["start_min"] == pytest.approx(64 * 0.45 / 60)


def test_the_experiment_table_gives_ratios_of_results_only():
    setup = {"start_s": 3.0, "stop_s": 1.0, "points": [],
             "timings": dict.fromkeys(("controller_s", "mininet_s", "configure_s",
                                       "ready_s"), 1.0)}
    exp = {"spec": {"repetitions": 10, "sweep": {"algorithms": ["binomial", "nack"]}},
           "setups": {"one server": {"wall_s": 12.0, "points": [
               _point("binomial", 1, 100.0, []), _point("nack", 2, 30.0, ["hosts waited"])]},
               "two servers": {"wall_s": 19.0, "points": [
                   _point("binomial", 1, 95.0, []), _point("nack", 2, 29.0, [])]}}}
    res = {"topology": "fattree-k4-n2", "mbit": 30.0, "rig_mbit": 1000.0,
           "setups": {"one server": setup, "two servers": setup}, "experiment": exp,
           "tcp": {}, "plan": plan(30.0, 7.2)}
    text = "\n".join(markdown(res))
    assert "| binomial | 1 | 100.00 ms | 95.00 ms | 0.95 | direct |" in text
    assert "| nack | 2 | 30.00 ms ! | 29.00 ms | - | direct |" in text
    assert "12 s on one server, 19 s on two" in text
    assert "- one server, nack x2: hosts waited" in text
