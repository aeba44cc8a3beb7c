"""Link rate `auto`: run at the highest rate this machine keeps up with.

A shape given without a rate (``star:hosts=16``), or with ``bw=auto``, is a network whose
nominal host-link rate is NOMINAL_MBIT (the papers' Fast Ethernet) run at the calibrated
rate of this machine for a network of that shape and size (testbed.fidelity.calibration, cached),
never above the nominal one. Links between switches keep their ratio to host links. A rate
given as a number runs as given; topology files keep their own rates.

Every result carries a LinkRate: the nominal and the chosen rate, and the dilation
(nominal over chosen: how much slower than the nominal network this one runs); its times
also in units that travel between machines and rates (testbed.fidelity.wire_units).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from topologies import Topology, TopologyError, build, parse_spec, split_spec
from topologies.spec_file import is_topology_file

from ..errors import UsageError

AUTO = "auto"
NOMINAL_MBIT = 100.0

Progress = Callable[[str], None]


@dataclass(frozen=True)
class LinkRate:
    """What a run's host links ran at, and why."""

    nominal_mbit: float | None  # the network it stands for (None: unlimited links)
    mbit: float | None          # what it ran at
    auto: bool                  # chosen by calibration
    source: str                 # "given", "calibration cache", "calibrated now"

    @property
    def dilation(self) -> float | None:
        if self.nominal_mbit is None or self.mbit is None:
            return None
        return self.nominal_mbit / self.mbit

    def to_dict(self) -> dict[str, Any]:
        return {"nominal_mbit": self.nominal_mbit, "mbit": self.mbit, "auto": self.auto,
                "source": self.source, "dilation": self.dilation}

    def text(self) -> str:
        if self.mbit is None:
            return "unlimited links"
        if not self.auto:
            return f"{self.mbit:g} Mbit/s"
        return (f"{self.mbit:g} Mbit/s (auto, {self.source}; nominal {self.nominal_mbit:g}, "
                f"dilation x{self.dilation:.3g})")


def is_auto(text: str) -> bool:
    """A shape spec without a rate, or with bw=auto."""
    if is_topology_file(text.strip()):
        return False
    _shape, params = split_spec(text)
    return params.get("bw", AUTO) == AUTO


def nominal_topology(text: str) -> Topology:
    """The topology a spec names, `auto` read as the nominal rate (pure: no machine)."""
    if is_topology_file(text.strip()):
        return parse_spec(text)
    shape, params = split_spec(text)
    if params.get("bw", AUTO) == AUTO:
        params["bw"] = NOMINAL_MBIT
    return build(shape, **params)


def resolve(text: str, progress: Progress, *, ports: str | None = None,
            recalibrate: bool = False) -> tuple[Topology, LinkRate]:
    """The topology to run and its LinkRate; `auto` is answered from the calibration cache,
    or by calibrating now (minutes, once per machine and network size)."""
    from . import calibration

    try:
        topo = nominal_topology(text)
    except TopologyError as exc:
        raise UsageError(f"topology: {exc}") from None
    rate = topo.host_rate()
    if not is_auto(text):
        return topo, LinkRate(rate, rate, False, "given")
    from ..emulation.environment import detected
    from ..emulation.linkshape import check
    from ..emulation.ports import host_port_type

    caps = detected()
    caps.require()
    check(topo, caps)  # what the machine cannot emulate is refused before calibrating
    here = calibration.machine(host_port_type(caps, ports))
    key = calibration.topology_key(topo)
    entry = None if recalibrate else calibration.cached(key, here, NOMINAL_MBIT)
    source = "calibration cache"
    if entry is None:
        entry = calibration.calibrate(topo, NOMINAL_MBIT, progress, ports=ports)
        source = "calibrated now"
    mbit = min(float(entry["mbit"]), NOMINAL_MBIT)
    chosen = LinkRate(NOMINAL_MBIT, mbit, True, source)
    progress(f"link rate: {chosen.text()}")
    return topo.scaled(mbit / NOMINAL_MBIT), chosen
