"""Chen2000's frame counts on the hub: the frame counter reads the kernel's counters where
no controller does (a hub's medium too), and chen.hub-frames judges data frames against
the formulas on stand-in points."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from collectives.ipmc.plans import scout_frames, tree_frames
from testbed.emulation import frame_count
from testbed.emulation.frame_count import FrameCounter, interface_counters
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, REPRODUCED
from topologies import parse_spec


def test_interface_counters_are_the_kernels():
    lo = interface_counters("lo")
    assert set(lo) == {"rx_packets", "tx_packets", "rx_bytes", "tx_bytes"}
    assert all(isinstance(v, int) and v >= 0 for v in lo.values())


def test_without_a_controller_the_switch_side_interfaces_and_the_medium_count(
        tmp_path: Path, monkeypatch) -> None:
    topo = parse_spec("star:hosts=3")
    seen: list[str] = []

    def fake(intf: str) -> dict[str, int]:
        seen.append(intf)
        n = 7 if intf.endswith("hub2") else 1 + len(seen)
        return {"rx_packets": n, "tx_packets": 10 * n, "rx_bytes": 100 * n,
                "tx_bytes": 1000 * n}

    monkeypatch.setattr(frame_count, "interface_counters", fake)
    emu = SimpleNamespace(run_dir=tmp_path, topo=topo, controller=None, hub=True)
    (sent, delivered, _acks, medium), links = FrameCounter(emu)._read()
    assert seen == ["s1-eth1", "s1-eth2", "s1-eth3", "s1-hub2"]  # the medium's shaped end
    assert (sent, delivered, medium) == (2 + 3 + 4, 20 + 30 + 40, 70)  # the medium's tx
    assert links[("h0", "s1")] == 200 and links[("s1", "h0")] == 2000
    emu.hub = False  # a controller-less switch that is no hub: no medium read
    assert FrameCounter(emu)._read()[0][3] == 0


class HubPoints:
    """A stand-in hub network: data frames `off` away from the formulas, every frame sent
    crossing the medium once."""

    def __init__(self, off: float = 0.1):
        self.off = off

    def point(self, algorithm: str, size: int, hosts: int, **kw: Any) -> dict[str, Any]:
        data = (tree_frames(size, 1500, hosts) if algorithm == "binomial"
                else scout_frames(size, 1500, hosts)) + self.off
        return {"label": f"{algorithm} {size} B on {hosts}", "ms": 1.0, "flags": [],
                "verified": True, "error": None, "frames_data": data, "frames_acks": 2.0,
                "frames_sent": data + 2.0, "frames_medium": data + 2.0}


def test_hub_frames_judge_data_frames_and_show_the_medium():
    out = BY_KEY["chen.hub-frames"].run(Context(True, lambda _m: None, HubPoints()))
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 2 * 6  # --quick: 4 hosts, 3 sizes, tree and scouts, 2 jobs
    assert "4 hosts 1000 B: tree 3.1 (3), scouts 4.1 (4); medium 5.1/5.1" in out.testbed
    full = BY_KEY["chen.hub-frames"].run(Context(False, lambda _m: None, HubPoints(0.7)))
    assert full.verdict == DIFFERS and len(full.points) == 3 * 12


def test_a_network_compared_with_comes_before_any_claim_on_the_other_network():
    """chen.hub-frames (on the hub, no `before`) comes ahead of chen.hub-mpich (on the hub,
    compared with the switch): the switch is still brought up first."""
    from testbed.reproduce.run import network_order

    claims = [BY_KEY[k] for k in ("chen.frames", "chen.hub-frames", "chen.hub-mpich")]
    order = network_order(claims)
    assert order.index("star9") < order.index("star9-hub")
    assert order == ["star9", "star16", "star9-hub"]
