"""The run's side of the live view: a thread of the root process that reads the controller
(its groups and trees, the failed nodes, the switches' port counters) and the loss set at
run time every ``PERIOD`` s and
writes the snapshot (snapshot.py) atomically to ``<run dir>/live/state.json``, mode 0644,
through safepath's writer (never through a link). The folder is made 0755 inside the run's
0700 folder: the server, which does not run as root, reads it only through the folder
descriptor it is handed (view.py), so it sees this folder and nothing else of the run.
``picture`` draws one reading at once (the prompt's `picture FILE.svg`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from topologies.model import Topology

from ..emulation.controller_proc import api_get
from ..emulation.periodic import Periodic
from ..errors import McastlabError
from ..safepath import make_folder, write_file
from .snapshot import Loss, link_load, snapshot
from .svg import draw

PERIOD = 0.25  # s between readings: a join is on the page within a second
STATE = "state.json"  # the one file the server reads (server.py names it too)


class Publisher:
    """Snapshots of a network that is up, written every PERIOD s between start() and
    stop(); `api` is the controller's endpoint (None: switches without one, the topology
    alone is published); `run` says a spec run's progress (snapshot's ``run``); `down`:
    no network is up (a spec run between networks), said instead of asking anything."""

    def __init__(self, topo: Topology, api: str | Path | None, run_dir: Path,
                 period: float = PERIOD, loss: Callable[[], Loss] | None = None,
                 ranges: bool = False, run: Callable[[], dict[str, Any]] | None = None,
                 down: str | None = None, seq: int = 0) -> None:
        self.topo, self.api, self.ranges = topo, api, ranges  # ranges: contiguous mode
        self.run, self.down = run, down
        self.loss = loss or dict  # the loss set at run time (Emulation.loss.current)
        self.folder = make_folder("live", run_dir / "live", mode=0o755)
        self.folder.chmod(0o755)  # the umask may have taken bits off
        self.seq = seq  # a spec run's next publisher counts on
        self.prompt: dict[str, Any] = {}  # what the prompt reported last (its last bcast)
        self._ports: dict[str, Any] = {}
        self._ports_at = 0.0
        self._lock = threading.Lock()  # publish() from the prompt and from the thread
        # a tick that could not write (disk full) is skipped, the next one tries again
        self._periodic = Periodic(self.publish, period, ignore=(McastlabError, OSError))

    @property
    def path(self) -> Path:
        return self.folder / STATE

    def start(self) -> None:
        self.publish()  # the page has a snapshot from its first request on
        self._periodic.start()

    def stop(self) -> None:
        self._periodic.stop(timeout=5.0)

    def read(self) -> tuple[dict[str, Any], list[int], list[list[Any]], str | None]:
        """The controller's groups, failed nodes and the links' load now (empty, with the
        reason, where it cannot be read)."""
        if self.down is not None:
            return {}, [], [], self.down
        groups, failed, ports, error = controller_state(self.api)
        if error is not None:
            return {}, [], [], error
        now = time.monotonic()
        load = link_load(self._ports, ports, now - self._ports_at) if self._ports else []
        self._ports, self._ports_at = ports, now
        return groups, failed, load, None

    def publish(self, prompt: dict[str, Any] | None = None) -> dict[str, Any]:
        """Read and write one snapshot now (the thread calls this; so does the prompt after
        each command, for the page to follow at once, handing what it knows: ``bcast``, its
        last broadcast); returns it."""
        with self._lock:
            if prompt is not None:
                self.prompt = dict(prompt)
            groups, failed, load, error = self.read()
            self.seq += 1
            snap = snapshot(self.topo, groups, failed, load, self.seq, time.time(), error,
                            dict(self.loss()), self.ranges, self.prompt.get("bcast"),
                            self.run() if self.run else None)
            write_file("live", self.path, json.dumps(snap, separators=(",", ":")),
                       mode=0o644)
            return snap


def controller_state(api: str | Path | None
                     ) -> tuple[dict[str, Any], list[int], dict[str, Any], str | None]:
    """The controller's /groups, /failed and /ports now, or why not (no controller, no
    answer): empty ones then."""
    if api is None:
        return {}, [], {}, "no controller in this network: groups are not known"
    try:
        return (api_get(api, "/groups", timeout=2.0), api_get(api, "/failed", timeout=2.0),
                api_get(api, "/ports", timeout=2.0), None)
    except (OSError, ValueError) as exc:
        return {}, [], {}, f"the controller did not answer: {exc}"


def picture(topo: Topology, api: str | Path | None, loss: Loss, ranges: bool = False,
            bcast: dict[str, Any] | None = None) -> str:
    """The live view's picture of the network now, as SVG (without load: that takes two
    readings); the prompt's `picture FILE.svg` writes it."""
    groups, failed, _ports, error = controller_state(api)
    return draw(snapshot(topo, groups, failed, [], 0, time.time(), error, dict(loss), ranges,
                         bcast))
