"""The live view of a spec run (`mcastlab experiment SPEC.toml --web`): one server for the
whole run (view.py's LiveView, its URL said once at the start), and a publisher that
follows the network that is up (``follow``: started when the run brings one up, stopped at
its teardown; between networks one that says so, with the spec's topology). The run tells
it what the page adds to the prompt's (snapshot.py's ``run``): its progress lines
(``logged``), the point being measured (``point``: with its background traffic's flows,
the pairs of hosts the spec's traffic table sends between, testbed.conditions.traffic), each
record written (``record``: the point's fidelity flags), each rung of the operating point's
probe (``probe``). testbed.experiments.run calls these through ``Run.live``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..conditions.traffic import flows
from ..errors import McastlabError
from ..specs.traffic_model import TrafficSpec
from .publish import Publisher
from .snapshot import flows_part, point_part, record_part, run_part
from .view import LiveView

BETWEEN = "no network is up (between networks)"


class SpecView:
    """The live view of the run of spec `name` (`total` points, `done` of them already, as
    a resumed run has) on `topo`, publishing into `out`/live/; `port` 0 takes a free one;
    `traffic`: the spec's traffic tables by name (their flows are drawn)."""

    def __init__(self, name: str, topo: Any, total: int, done: int, out: Path,
                 port: int = 0, traffic: Mapping[str, TrafficSpec] | None = None) -> None:
        self.name, self.topo, self.total, self.done, self.out = name, topo, total, done, out
        self.traffic = dict(traffic or {})
        self._flows: dict[tuple[Any, ...], list[dict[str, Any]]] = {}  # by traffic, members
        self.status = "starting"
        self.up = False
        self.current: dict[str, Any] | None = None  # the point being measured
        self.records: list[dict[str, Any]] = []
        self.probes: list[dict[str, Any]] = []  # the operating point's rungs (snapshot.py)
        self._lock = threading.Lock()  # the run's threads report, the publisher reads
        self.view = LiveView(topo, None, out, port)
        self.view.publisher = self._publisher(None)

    @property
    def url(self) -> str:
        return self.view.url

    def __enter__(self) -> SpecView:
        self.view.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.view.__exit__(*exc)

    def part(self) -> dict[str, Any]:
        """The snapshot's ``run`` now."""
        with self._lock:
            return run_part(self.name, self.total, self.done, self.status, self.up,
                            self.current, list(self.records),
                            [dict(rung) for rung in self.probes])

    def _publisher(self, emu: Any) -> Publisher:
        seq = self.view.publisher.seq if self.view.proc is not None else 0
        if emu is None:
            return Publisher(self.topo, None, self.out, run=self.part, down=BETWEEN, seq=seq)
        api = emu.controller.api if emu.controller else None
        return Publisher(emu.topo, api, self.out, loss=lambda: emu.loss.current,
                         ranges=emu.controller_config.contiguous, run=self.part, seq=seq)

    def _switch(self, emu: Any) -> None:
        self.view.publisher.stop()
        self.up = emu is not None
        self.view.publisher = self._publisher(emu)
        self.view.publisher.start()

    @contextlib.contextmanager
    def follow(self, emu: Any) -> Iterator[None]:
        """Publish the network `emu` (up) while the block runs, then say none is up."""
        self._switch(emu)
        try:
            yield
        finally:
            with self._lock:
                self.current = None
            self._switch(None)

    def logged(self, log: Callable[[str], None]) -> Callable[[str], None]:
        """`log`, each line also the page's status (which condition runs, a probe ...)."""
        def both(line: str) -> None:
            with self._lock:
                self.status = line
            log(line)
        return both

    def point(self, config: dict[str, Any], condition: str) -> None:
        """The point being measured now (its configuration: run.point_config)."""
        part = point_part(config, condition, self.flows(config))
        with self._lock:
            self.current = part

    def flows(self, config: dict[str, Any]) -> list[dict[str, Any]]:
        """The flows of a point's background traffic (config: run.point_config; its
        ``members``: the broadcast's groups), [] without traffic or where its hosts cannot
        carry it (the run says why)."""
        spec = self.traffic.get(config.get("traffic") or "")
        if spec is None:
            return []
        members = [h for group in config.get("members") or [] for h in group]
        key = (config["traffic"], *members)
        if key not in self._flows:  # asked every half second while the point runs
            try:
                self._flows[key] = flows_part(self.topo, flows(spec, self.topo, members))
            except (ValueError, McastlabError):
                self._flows[key] = []
        return self._flows[key]

    def probe(self, mbit: float, points: list[str], verdict: str | None = None) -> None:
        """A rung of the operating point's probe: at `mbit`, `points` (said as the run's
        lines say them) being measured (`verdict` None), or its verdict once measured."""
        with self._lock:
            last = self.probes[-1] if self.probes else None
            if (verdict is not None and last is not None and last["mbit"] == mbit
                    and last["verdict"] is None):
                last["verdict"] = verdict
            else:
                self.probes.append({"mbit": mbit, "points": list(points),
                                    "verdict": verdict})

    def record(self, rec: dict[str, Any]) -> None:
        """A point's record, written: it is no longer being measured."""
        with self._lock:
            self.records.append(record_part(rec))
            self.current = None
            self.done += 1
