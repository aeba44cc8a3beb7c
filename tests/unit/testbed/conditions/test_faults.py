"""testbed.conditions.faults.FaultTimeline: events due at time zero are in effect before it
arms the run (the first broadcast waits for that), later ones after, and it arms even when a
fault fails."""

import threading
import time

from testbed.conditions.faults import FaultTimeline
from testbed.specs.faults import FaultEvent


class LossLog:
    """Stands in for the emulation's loss setter only: records what was set when."""

    def __init__(self) -> None:
        self.log: list[tuple[str, object]] = []

    def set_loss(self, pct: float, hosts: list[str], scope: str = "all") -> None:
        self.log.append(("loss", (pct, tuple(hosts))))


def test_armed_after_events_at_zero_and_before_later_ones():
    emu, go = LossLog(), threading.Event()
    events = [FaultEvent(0.0, "loss", "h1", 0.1), FaultEvent(0.0, "loss", "h2", 0.2),
              FaultEvent(0.3, "loss", "h3", 0.3)]
    with FaultTimeline(emu, events, go.is_set,
                       armed=lambda: emu.log.append(("armed", None))) as tl:
        go.set()
        deadline = time.monotonic() + 5
        while len(tl.applied) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    kinds = [k if k == "armed" else v[1][0] for k, v in emu.log]
    assert kinds[:4] == ["h1", "h2", "armed", "h3"], emu.log
    assert [a["target"] for a in tl.applied] == ["h1", "h2", "h3"]


def test_armed_even_when_a_fault_fails():
    class Broken(LossLog):
        def set_loss(self, pct, hosts, scope="all"):
            raise RuntimeError("no such host")

    calls: list[int] = []
    with FaultTimeline(Broken(), [FaultEvent(0.0, "loss", "h1", 0.1)], lambda: True,
                       armed=lambda: calls.append(1)) as tl:
        deadline = time.monotonic() + 5
        while not calls and time.monotonic() < deadline:
            time.sleep(0.01)
    assert calls and tl.error and "no such host" in tl.error
