"""Faults at given times during a run: links and hosts going down and coming back, nodes
failed or restored in the controller (a contiguous range holding one is refused), loss
changed on a host. Times count from a start signal (the measured point's first broadcast),
and leaving the context undoes whatever is still in effect, so the next point starts whole."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from topologies import HOST_PORT

from ..emulation.host_shell import run_in_host
from ..emulation.ports import intf_name
from ..specs.faults import FaultEvent


class FaultTimeline:
    def __init__(self, emu: Any, events: Sequence[FaultEvent], started: Callable[[], bool],
                 *, loss_scope: str = "all", base_loss: float = 0.0,
                 keep_failed: Sequence[int] = (),
                 armed: Callable[[], None] = lambda: None) -> None:
        """`started()` turns true when time zero has come; `armed()` is called once the
        events due at time zero are in effect (the run holds its first broadcast until
        then, so a fault at 0 is one the whole point sees); `base_loss` (fraction) is what
        a host's loss goes back to; `keep_failed` are nodes the spec excludes for good."""
        self.emu, self.events, self.started = emu, list(events), started
        self.armed = armed
        self.loss_scope, self.base_loss, self.keep_failed = loss_scope, base_loss, keep_failed
        self.applied: list[dict[str, Any]] = []
        self._down: set[str] = set()
        self._failed: set[int] = set()
        self._lossy: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.error: str | None = None

    def __enter__(self) -> FaultTimeline:
        if self.events:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)
        self.undo()

    def _run(self) -> None:
        while not self.started():
            if self._stop.wait(0.01):
                return
        t0 = time.monotonic()
        try:
            for ev in self.events:
                if ev.at > 0:
                    self.armed()
                if self._stop.wait(max(0.0, ev.at - (time.monotonic() - t0))):
                    return
                try:
                    self.apply(ev)
                except Exception as exc:  # recorded with the point; the run goes on
                    self.error = f"fault {ev.action} {ev.target} at {ev.at:g} s failed: {exc}"
                    return
                self.applied.append({"at": ev.at, "action": ev.action, "target": ev.target,
                                     "value": ev.value,
                                     "applied_s": round(time.monotonic() - t0, 4)})
        finally:
            self.armed()

    def _links(self, target: str) -> list[tuple[Any | None, str]]:
        """(host node or None for the root namespace, interface) of a host or link."""
        topo = self.emu.topo
        if "-" not in target:
            return [(self.emu.host(target), intf_name(target, HOST_PORT))]
        a, b = target.split("-", 1)
        for lk in topo.links:
            if {lk.node1, lk.node2} == {a, b}:
                return [(self.emu.host(n) if topo.is_host(n) else None, intf_name(n, p))
                        for n, p in ((lk.node1, lk.port1), (lk.node2, lk.port2))]
        raise ValueError(f"no link {target}")

    def _set_link(self, target: str, up: bool) -> None:
        state = "up" if up else "down"
        for node, intf in self._links(target):
            if node is None:  # a switch's end, on the switch's server
                self.emu.spread.runner(intf.rsplit("-eth", 1)[0]).run(
                    ["ip", "link", "set", intf, state])
            else:  # an interface going down loses its routes: the multicast one comes back
                cmds = [f"ip link set {intf} {state}"]
                if up:
                    cmds.append(f"ip route replace 224.0.0.0/4 dev {intf}")
                run_in_host(node, cmds, f"{intf} {state}")

    def apply(self, ev: FaultEvent) -> None:
        if ev.action in ("down", "up"):
            self._set_link(ev.target, ev.action == "up")
            (self._down.add if ev.action == "down" else self._down.discard)(ev.target)
        elif ev.action in ("fail", "restore"):
            node = int(ev.target)
            self.emu.fail_nodes([node], ev.action == "fail")
            (self._failed.add if ev.action == "fail" else self._failed.discard)(node)
        elif ev.action == "loss":
            self.emu.set_loss(ev.value or 0.0, [ev.target], scope=self.loss_scope)
            self._lossy.add(ev.target)

    def undo(self) -> None:
        """Bring back what the timeline took away (best effort, every piece tried)."""
        for target in sorted(self._down):
            with contextlib.suppress(Exception):
                self._set_link(target, True)
        restore = sorted(self._failed - set(self.keep_failed))
        if restore:
            with contextlib.suppress(Exception):
                self.emu.fail_nodes(restore, False)
        if self._lossy:
            with contextlib.suppress(Exception):
                self.emu.set_loss(self.base_loss, sorted(self._lossy),
                                  scope=self.loss_scope)
        self._down.clear()
        self._failed.clear()
        self._lossy.clear()
