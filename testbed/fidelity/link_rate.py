"""Link rate `auto`: run at the highest rate this machine keeps up with.

A shape given without a rate (``star:hosts=16``), or with ``bw=auto``, is a network whose
nominal host-link rate is NOMINAL_MBIT (the papers' Fast Ethernet) run at the calibrated
rate of this machine for a network of that shape and size, never above the nominal one
(testbed.experiments.calibration.resolve: the cache, or a calibration now). Links between
switches keep their ratio to host links. A rate given as a number runs as given; topology
files keep their own rates.

Every result carries a LinkRate: the nominal and the chosen rate, and the dilation
(nominal over chosen: how much slower than the nominal network this one runs); its times
also in units that travel between machines and rates (testbed.fidelity.wire_units).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from topologies import Topology, build, parse_spec, split_spec
from topologies.spec_file import is_topology_file

AUTO = "auto"
NOMINAL_MBIT = 100.0


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


def is_auto(text: str, **given: Any) -> bool:
    """A shape spec without a rate, or with bw=auto (in the text or `given`)."""
    if is_topology_file(text.strip()):
        return False
    _shape, params = split_spec(text, **given)
    return params.get("bw", AUTO) == AUTO


def nominal_topology(text: str, **given: Any) -> Topology:
    """The topology a spec names (with the parameters `given` as values), `auto` read as
    the nominal rate (pure: no machine)."""
    if is_topology_file(text.strip()):
        return parse_spec(text, **given)
    shape, params = split_spec(text, **given)
    if params.get("bw", AUTO) == AUTO:
        params["bw"] = NOMINAL_MBIT
    return build(shape, **params)


def operating_point_text(op: dict[str, Any]) -> str:
    """One sentence of a run's `operating_point` record (testbed.experiments.operating_point):
    the rate its work ran at and what set it (the progress line, the report's note)."""
    mbit, cal = op["mbit"], op["calibrated_mbit"]
    how = " (from the cache of an earlier probe)" if op.get("cached") else ""
    if not op["keeps_up"]:
        still = "; ".join(f"{f['text']}: {f['why']}" for f in op["still_failing"])
        return (f"operating point {mbit:g} Mbit/s, the lowest rung{how}: even there these "
                f"heaviest points do not keep up, and their points carry flags: {still}")
    if not op["set_by"]:
        return (f"operating point {mbit:g} Mbit/s, the calibrated rate{how}: the sweep's "
                f"{len(op['points'])} heaviest point(s) keep up there")
    above = op["set_by"][0]["mbit"]
    setters = "; ".join(f"{f['text']}: {f['why']}" for f in op["set_by"])
    return (f"operating point {mbit:g} Mbit/s{how}, below the calibrated {cal:g}: the "
            f"heaviest points keep up there, not at {above:g} Mbit/s ({setters})")
