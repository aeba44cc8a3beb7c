"""testbed.experiments.calibration: the calibration cache (per machine, answering only up to
the rate its search covered, one clear error where it cannot be written), the search for the
highest passing rung, what fails a rung's figures, and the topology key, which ignores
rates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.experiments import calibration
from testbed.fidelity.link_rate import nominal_topology

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


# ---- what fails a rung ---------------------------------------------------------------------
def figures(**over: object) -> dict:
    """A rung's figures that keep up (a 64-host star at 3 Mbit/s, 2026-12-07), with `over`."""
    return {"worst_link_ratio": 0.97, "switch_waited": 0.27, "host_wait_frames": 0.65,
            "cpu_busy": 0.66, "switch_had_work": 0.4,
            "tree": {"algorithm": "sequential", "hosts": 64, "ms": 11804.7, "model_ms": 11828.9,
                     "ratio": 0.998},
            "mcast": {"members": 63, "bytes": 65536, "datagrams": 45, "bursts": 5, "lost": 0,
                      "ms": 182.7, "wire_ms": 184.6, "ratio": 0.99}} | over


def test_a_rung_fails_for_each_figure_out_of_its_margin() -> None:
    assert calibration.shortfalls(figures(), 64) == []
    assert calibration.shortfalls(figures(switch_had_work=None), 64) == []  # not read
    # the 8 x 8 mesh's switch with 64 ranks (docs/fidelity.md, "A busy switch")
    assert calibration.shortfalls(figures(switch_had_work=0.97), 64) == [
        "the switch's forwarding thread had work 97% of the time (at most 90%): the switch, "
        "not the links, set the pace"]
    assert calibration.shortfalls(figures(worst_link_ratio=0.45, host_wait_frames=4.5), 64) == [
        "a loaded link carried 45% of its rate (at least 85%)",
        "the hosts waited for a core 450% of a frame time each turn (at most 100%)"]
    lost = figures(mcast={**figures()["mcast"], "lost": 3})
    assert calibration.shortfalls(lost, 64) == [
        "a 64 KiB multicast burst to 63 hosts lost 3 of 14175 datagrams"]
    slow = figures(tree={**figures()["tree"], "ms": 20000.0, "ratio": 1.69})
    assert calibration.shortfalls(slow, 64) == [
        "sequential 64 KiB on 64 hosts took 20000.0 ms, model 11828.9 ms (at most x1.3)"]
