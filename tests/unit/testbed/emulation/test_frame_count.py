"""testbed.emulation.frame_count: the frame counter reads the kernel's interface counters
(without a controller, the switch side and a hub's medium), and a broadcast's data frames
are the frames sent less TCP's pure ACKs, read in each process's namespace."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from testbed.emulation import frame_count
from testbed.emulation.frame_count import FrameCounter, interface_counters, pure_acks
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


class _Emu:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir


def test_data_frames_are_frames_sent_less_pure_acks(tmp_path: Path) -> None:
    """Per broadcast, less the empty bracket's: (sent, delivered, pure ACKs, medium) at
    each mark (no hub here: no medium)."""
    counter = FrameCounter(_Emu(tmp_path), pids=[1])
    counter.counts = {"bcast-start": (100, 200, 10, 0), "bcast-end": (190, 400, 40, 0),
                      "empty-start": (300, 500, 50, 0), "empty-end": (310, 520, 60, 0)}
    got = counter.per_iteration(10)
    assert got == {"sent": 8.0, "delivered": 18.0, "acks": 2.0, "data": 6.0}
    counter.pids = ()  # no hosts to read: no split
    assert counter.per_iteration(10) == {"sent": 8.0, "delivered": 18.0, "acks": None,
                                         "data": None}
    counter.counts.pop("empty-end")
    assert counter.per_iteration(10) is None


def test_pure_acks_are_read_from_a_processs_namespace() -> None:
    assert pure_acks([os.getpid()]) >= 0
    assert pure_acks([2 ** 22 + 7]) == 0  # no such process: nothing counted
