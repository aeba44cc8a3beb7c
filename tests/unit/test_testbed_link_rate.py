"""Link rate `auto`, the calibration cache and the units that travel (no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.experiments import calibration
from testbed.fidelity.link_rate import NOMINAL_MBIT, LinkRate, is_auto, nominal_topology
from testbed.fidelity.wire_units import frame_time_s, in_units, wire_time_s
from topologies import TopologyError, parse_spec


@pytest.mark.parametrize("spec, auto", [
    ("star", True), ("star:hosts=16", True), ("star:hosts=4,bw=auto", True),
    ("star:hosts=4,bw=10", False), ("mesh:rows=2,cols=2", True),
    ("mesh:rows=2,cols=2,bw=30", False)])
def test_auto_is_the_default_of_bare_shapes(spec: str, auto: bool) -> None:
    assert is_auto(spec) is auto
    topo = nominal_topology(spec)
    assert topo.host_rate() == (NOMINAL_MBIT if auto else float(spec.split("bw=")[1]))


def test_a_rate_and_a_size_given_as_values_not_text() -> None:
    """--bw and --hosts reach the topology as values (topologies.parse_spec(**given)), as
    if written into its text; one given both ways, or to a file, is refused."""
    given = nominal_topology("star", hosts=4, bw=10.0)
    assert given.to_dict() == nominal_topology("star:hosts=4,bw=10").to_dict()
    assert not is_auto("star", bw=10.0) and is_auto("star", bw="auto") and is_auto("star")
    assert nominal_topology("star", bw="auto").host_rate() == NOMINAL_MBIT
    assert parse_spec("star:hosts=3", bw=7.5).host_rate() == 7.5
    with pytest.raises(TopologyError, match="parameter 'bw' is given twice: bw=20 in"):
        parse_spec("star:bw=20", bw=10.0)
    path = str(Path(__file__).parents[2] / "topologies/examples/dumbbell.toml")
    with pytest.raises(TopologyError, match="sets its own bw"):
        parse_spec(path, bw=10.0)


def test_topology_files_keep_their_rates() -> None:
    path = str(Path(__file__).parents[2] / "topologies/examples/dumbbell.toml")
    assert not is_auto(path)
    assert nominal_topology(path).to_dict() == parse_spec(path).to_dict()


def test_scaling_keeps_the_ratio_of_core_to_host_links() -> None:
    topo = nominal_topology("fattree:k=2,n=3,core_bw=400")
    slow = topo.scaled(0.3)
    rates = {(lk.node1, lk.node2): lk.params.bw_mbit for lk in slow.links}
    assert slow.host_rate() == pytest.approx(30)
    assert max(rates.values()) == pytest.approx(120)
    assert [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in slow.links] == \
        [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in topo.links]


def test_dilation_and_units() -> None:
    r = LinkRate(100.0, 25.0, True, "calibration cache")
    assert r.dilation == 4.0
    assert r.to_dict()["dilation"] == 4.0
    assert "dilation x4" in r.text()
    assert LinkRate(None, None, False, "given").dilation is None
    assert wire_time_s(65536, 10) == pytest.approx(0.0524288)
    assert frame_time_s(100) == pytest.approx(1538 * 8 / 100e6)
    u = in_units(0.1048576, 65536, 10)
    assert u["per_wire_time"] == pytest.approx(2.0)
    assert u["per_frame_time"] == pytest.approx(0.1048576 / (1538 * 8 / 10e6))
    assert in_units(0.1, 65536, None) == {"per_wire_time": None, "per_frame_time": None}
    assert in_units(0.1, 0, 10)["per_wire_time"] is None


# ---- the calibration cache ---------------------------------------------------------------
HERE = {"cpu_model": "x", "cpus": "2", "host_ports": "afxdp-nonpmd", "calibration": 1}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(calibration.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "calibration.json"


def test_cache_round_trip_and_machine_change(cache: Path) -> None:
    assert calibration.cached("k", HERE, 100) is None
    calibration.store("k", HERE, {"mbit": 50, "cap": 100, "tried": []})
    assert calibration.cached("k", HERE, 100)["mbit"] == 50
    assert calibration.cached("other", HERE, 100) is None
    moved = {**HERE, "cpus": "4"}
    assert calibration.cached("k", moved, 100) is None  # another machine: redo
    calibration.store("k2", moved, {"mbit": 70, "cap": 100, "tried": []})
    data = json.loads(cache.read_text())
    assert data["machine"] == moved and list(data["entries"]) == ["k2"]


def test_a_cached_search_answers_only_up_to_what_it_covered(cache: Path) -> None:
    calibration.store("up", HERE, {"mbit": 100, "cap": 100, "tried": []})
    assert calibration.cached("up", HERE, 100) is not None
    assert calibration.cached("up", HERE, 1000) is None  # never tried above 100
    calibration.store("low", HERE, {"mbit": 30, "cap": 100, "tried": []})
    # a rate below the cap failed, so every higher one would: it answers any cap
    assert calibration.cached("low", HERE, 1000)["mbit"] == 30


def test_an_unwritable_cache_is_one_clear_error(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(calibration.CACHE_ENV, str(blocker / "sub"))
    with pytest.raises(UsageError, match="cannot write the calibration cache"):
        calibration.store("k", HERE, {"mbit": 1, "cap": 1, "tried": []})


def test_search_finds_the_highest_passing_rung(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[float] = []

    def fake_probe(_emu, mbit, _progress):
        tried.append(mbit)
        return calibration.Verdict(mbit, mbit <= 30)

    monkeypatch.setattr(calibration, "probe", fake_probe)
    best, verdicts = calibration.search(None, 100, lambda _m: None)
    assert best == 30
    assert tried[0] == 100 and len(tried) <= 4
    assert [v.mbit for v in verdicts] == tried
    best, _ = calibration.search(None, 100, lambda _m: None, ladder=(50, 70))
    assert best is None


def test_topology_key_ignores_rates() -> None:
    a, b = nominal_topology("star:hosts=8"), nominal_topology("star:hosts=8,bw=10")
    assert calibration.topology_key(a) == calibration.topology_key(b)
    assert calibration.topology_key(a) != calibration.topology_key(nominal_topology("star:hosts=9"))
