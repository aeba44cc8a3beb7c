"""What the link shaping (link_setup.LinkSetup) and the loss settings
(loss_control.LossControl) are handed of one emulation, as values instead of the whole
Emulation: `Wiring`, fixed when the emulation is made (the machine's capabilities, where
the nodes lie, what the switches are), and `Started`, the handles a started run adds (its
id and folder, each host's shell). The topology is handed with each call: retune changes
its rates."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .environment import Capabilities
from .servers import OneMachine


@dataclass(frozen=True)
class Wiring:
    """An emulation's fixed facts the links are shaped by. `spread`: which server each node
    lies on and the shells to run commands there (one machine's, or a cluster's Spread);
    `hub`: the switches are hubs, whose medium serializes every frame (their ports are not
    shaped on the switch side); `kernel_bridges`: Linux bridges (no checksum fix for the
    userspace datapath); `lanes`: strict contiguous mode's range lanes; `control`: the hosts
    have a control interface (testbed.emulation.ctlnet)."""

    caps: Capabilities
    spread: OneMachine
    hub: bool = False
    kernel_bridges: bool = False
    lanes: bool = False
    control: bool = False


@dataclass(frozen=True)
class Started:
    """A started run's handles: its id (the name of its nftables table), its folder (the
    hosts' /etc files, tc batches) and a host's Mininet node by name (its shell)."""

    run_id: str
    run_dir: Path
    host: Callable[[str], Any]
