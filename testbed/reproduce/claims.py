"""A claim of a paper as `mcastlab reproduce` runs it: the paper's figure (copied from the
paper, with where it stands and whether it was read off the text or inferred), how the
testbed measures or computes its own, and the margin it is judged by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .verdict import Outcome


@dataclass(frozen=True)
class PaperFigure:
    """The paper's figure: `text` as a reader would quote it, `values` for plots and tests,
    `where` (table, figure or section), `marker` R (read in the paper) or I (inferred from
    it, e.g. a formula the text leaves out)."""

    where: str
    text: str
    values: dict[str, Any]
    marker: str = "R"


@dataclass
class Context:
    """What a claim's run gets: the scale (`quick`), a progress callback, for measured
    claims the running network of its kind (testbed.reproduce.networks), and the networks
    this run brought up before it by name (`earlier`: stopped, their points still read)."""

    quick: bool
    progress: Callable[[str], None]
    network: Any = None
    earlier: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """One headline claim. `run(ctx)` returns the Outcome; `network` names the network it
    is measured on (None: pure, computed without one); `in_quick`: part of --quick.
    A claim comparing two networks (a hub and a switch) names the other in `before`: the
    run brings those up first and calls `measure(ctx)` on each, and `run` reads their
    points back from `ctx.earlier`."""

    key: str
    paper: str  # citation key (docs/references.md)
    statement: str
    figure: PaperFigure
    margin: str  # the tolerance the verdict uses, in words
    run: Callable[[Context], Outcome]
    network: str | None = None
    in_quick: bool = True
    before: tuple[str, ...] = ()
    measure: Callable[[Context], object] | None = None

    def __post_init__(self) -> None:
        if self.before and (self.measure is None or self.network is None):
            raise ValueError(f"{self.key}: networks measured before need a network and "
                             "a measure")

    @property
    def kind(self) -> str:
        return "pure" if self.network is None else "measured"
