"""testbed.measure.model_inputs: a measure_params record as the model and the trees take
it: t_hold at each broadcast's busiest count of sends, an old record's one t_hold for every
count, DYN-Tree's six terms from the same figures, and the wire-time check."""

from __future__ import annotations

import pytest

from testbed.measure import model_inputs
from testbed.measure.bcast_model import algorithm_params, prediction

WIRE = 0.89e-3
LONE = 0.14e-3


def record(most: int = 7) -> dict:
    row = [(LONE + (s - 1) * WIRE) / s for s in range(1, most + 1)]
    return {"sizes": [1024], "t_hold_s": [row[-1]], "t_end_s": [0.25e-3],
            "t_hold_sends_s": [row], "t_hold_software_s": [40e-6]}


def test_each_broadcast_gets_t_hold_at_its_busiest_nodes_count():
    params = record()
    seq = model_inputs.point_to_point(params, 7).t_hold(1024)
    binomial = model_inputs.point_to_point(params, 3).t_hold(1024)
    assert seq > binomial > LONE
    assert model_inputs.sends_for("sequential", 8, 1024, params) == 7
    assert model_inputs.sends_for("binomial", 8, 1024, params) == 3
    # the model prices sequential's root at its 7 sends: the last leaves when measured
    assert prediction("sequential", 8, 1024, params) == pytest.approx(6 * seq + 0.25e-3)


def test_an_old_record_gives_its_one_t_hold_for_every_count():
    old = {"sizes": [1024, 65536], "t_hold_s": [1e-3, 50e-3], "t_end_s": [0.3e-3, 49e-3]}
    assert model_inputs.hold_table(old).most == 1
    for s in (1, 3, 15):
        assert model_inputs.point_to_point(old, s).t_hold(1024) == 1e-3
    assert algorithm_params("opt-tree", 1024, old, 8) == {"t_hold": 1e-3, "t_end": 0.3e-3}


def test_dyn_tree_gets_section_6_3s_terms_and_opt_tree_its_two():
    params = record()
    opt = algorithm_params("opt-tree", 1024, params, 8)
    dyn = algorithm_params("dyn-tree", 1024, params, 8)
    assert set(opt) == {"t_hold", "t_end"}
    assert dyn["t_hold"] == opt["t_hold"]
    assert dyn["t_hs"] == pytest.approx(40e-6)
    assert dyn["t_hs"] + dyn["t_ns"] == pytest.approx(opt["t_hold"])
    assert dyn["t_hs"] + dyn["t_ns"] + dyn["t_rs"] == pytest.approx(opt["t_end"])
    assert algorithm_params("binomial", 1024, params, 8) == {}


def test_a_t_hold_below_the_wire_time_is_flagged_in_the_record():
    assert model_inputs.check(record(), 10.0) == [{
        "size": 1024, "sends": 7, "t_hold_s": record()["t_hold_s"][0],
        "wire_s": pytest.approx(WIRE, rel=0.01), "below_wire": False}]
    lone = {**record(), "t_hold_sends_s": [[LONE] * 7]}  # 7 sends priced as one lone send
    assert model_inputs.check(lone, 10.0)[0]["below_wire"]
    assert model_inputs.check(record(), None) == []  # unshaped links: no wire time
