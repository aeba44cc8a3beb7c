"""Background traffic in real emulated hosts: the offered load is what was asked for, the
network delivers it (also as read half-way, while it runs), a hot spot draws its share, a
bulk UDP pair fills half its links, and no generator outlives the emulation."""

from __future__ import annotations

import subprocess
import time

import pytest

from testbed.conditions.traffic import Traffic
from testbed.emulation.network import Emulation
from testbed.specs.traffic_model import TrafficSpec
from topologies import parse_spec

# Over a thousand messages per generator a second at these loads: the load, the hot spot's
# share (within 0.07 of its due; its noise is under 0.01 at ~5000 messages) and the bulk
# pair's half settle well within a second (each of the three runs took 2 s, as it was)
RUN_S = 1.0


def _run(emu: Emulation, spec: TrafficSpec) -> tuple[dict, dict]:
    """The generators' result, and their summary as read half-way."""
    with Traffic(emu, spec, members=[], seed=11) as tr:
        time.sleep(RUN_S / 2)
        half = tr.summary(tr.snapshot())
        time.sleep(RUN_S / 2)
    assert tr.result is not None
    return tr.result, half


def test_traffic_patterns_on_a_star(caps, clean_after):
    with Emulation(parse_spec("star:hosts=4,bw=100"), caps=caps) as emu:
        res, half = _run(emu, TrafficSpec("uniform", load=0.1, hosts="all"))
        assert res["generators"] == 4 and res["link_mbit"] == 100.0
        assert not res["link_mbit_assumed"] and res["transport"] == "tcp"
        assert 0.05 <= res["offered"] <= 0.15, res
        assert 0 < res["accepted"] <= res["offered"] * 1.05, res
        assert res["window_s"] == pytest.approx(RUN_S, abs=0.5)
        for host, r in res["per_host"].items():
            assert r["sent_msgs"] > 0 and r["received_msgs"] > 0, (host, r)
            assert host not in r["per_dst_msgs"]
            assert 0 < half["per_host"][host]["sent_msgs"] < r["sent_msgs"], (host, half)
        # read while running: the load so far, over the time so far
        assert 0.05 <= half["offered"] <= 0.15 and 0 < half["accepted"] <= half["offered"] * 1.05
        assert half["window_s"] == pytest.approx(RUN_S / 2, abs=0.3), half

        # hot spot: h0 gets p of the others' messages plus its uniform share of the rest,
        # ((n-1) p + 1 - p) / n of all bytes
        p = 0.5
        res, _ = _run(emu, TrafficSpec("hotspot", load=0.1, hot_fraction=p, hosts="all"))
        assert res["hot"] == "h0"
        assert abs(res["hot_share"] - (3 * p + 1 - p) / 4) < 0.07, res["hot_share"]

        res, _ = _run(emu, TrafficSpec("bulk-udp", load=0.5, hosts=["h0", "h1"]))
        assert res["generators"] == 2 and res["transport"] == "udp"
        assert 0.3 <= res["accepted"] <= 0.6, res
        assert {h: r["per_dst_msgs"].keys() for h, r in res["per_host"].items()} == {
            "h0": {"h1"}, "h1": {"h0"}}

        # generators still running when the emulation ends are ended by its teardown
        left = Traffic(emu, TrafficSpec("uniform", load=0.05, hosts="all"), members=[])
        left.start()
        assert subprocess.run(["pgrep", "-f", "traffic_gen"], capture_output=True).stdout
    for proc in left.procs.values():
        proc.wait(timeout=5)
    out = subprocess.run(["pgrep", "-af", "traffic_gen"], capture_output=True, text=True)
    assert out.stdout == "", out.stdout
