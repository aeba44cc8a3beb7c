"""What `mcastlab experiment SPEC --list` says of each kind's points (the table of kinds,
testbed.experiments.kinds, holds which): a line on the spec, then a line per point. What
comes before the points, the operating point, is testbed.experiments.operating_point's."""

from __future__ import annotations

from ..results import size_text
from ..specs.loss_scope import WHAT
from .spec import ExperimentSpec


def broadcasts(spec: ExperimentSpec) -> list[str]:
    """A broadcast sweep's points, each with what its record's configuration says besides
    its algorithm, size and hosts (traffic, fault, loss, groups, injection)."""
    lines = [f"{spec.name}: {len(spec.points())} points on {spec.topology.name} "
             f"({len(spec.topology.hosts)} hosts), {spec.repetitions} broadcasts each"]
    for p in spec.points():
        c = spec.kind.record(spec, p)
        extra = [f"{k}={c[k]}" for k in ("traffic", "fault") if c[k] != "none"]
        extra += [_loss(c["loss"], c["loss_scope"])] if c["loss"] else []
        extra += [f"groups={c['groups']}"] if c["groups"] > 1 else []
        extra += [f"interval={c['interval_s']:g}s"] if c["interval_s"] else []
        lines.append(f"  {p.index:4d}  {p.algorithm:<17} {size_text(p.size):>8}  "
                     f"{p.hosts} hosts  {' '.join(extra)}")
    return lines


def allgathers(spec: ExperimentSpec) -> list[str]:
    """An Allgather sweep's points: algorithm, block size, ranks and loss."""
    return [f"{spec.name}: {len(spec.points())} points on {spec.topology.name} "
            f"({len(spec.topology.hosts)} hosts), {spec.repetitions} Allgathers each",
            *(f"  {p.index:4d}  {p.algorithm:<19} {size_text(p.size):>8} blocks  "
              f"{p.hosts} ranks" + (f"  {_loss(p.loss, spec.scope_of(p))}" if p.loss else "")
              for p in spec.points())]


def multinode(spec: ExperimentSpec) -> list[str]:
    """A [multinode] table's points: scheme, size, sources and hot-spot factor."""
    m = spec.multinode
    assert m is not None
    return [f"{spec.name}: {len(spec.points())} points on {spec.topology.name} (one rank "
            f"per node), {m.dests} destinations per source, dilation {m.dilation}, "
            f"{spec.repetitions} runs each",
            *(f"  {p.index:4d}  {p.algorithm:<21} {size_text(p.size):>8}  "
              f"{p.sources} sources  p {p.factor:g}" for p in spec.points())]


def _loss(loss: float, scope: str | None) -> str:
    """A listed point's loss and which packets it drops: "loss=0.05 (every packet)"."""
    return f"loss={loss:g}" + (f" ({WHAT[scope]})" if scope else "")
