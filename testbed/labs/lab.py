"""A teaching lab: its network, the questions of its handout (``labs/NN-*.md``) and how the
testbed measures the answers itself; what it lets vary per student (`variants`,
testbed.labs.variant) and how it is built with a student's values (`build`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig

from .answers import Question
from .variant import Values, VariantSpace

HANDOUTS = Path(__file__).resolve().parents[2] / "labs"

Measure = Callable[[Any, Callable[[str], None]], dict[str, Any]]


@dataclass(frozen=True)
class Lab:
    number: int
    title: str
    handout: str            # file name under labs/
    topology: str           # topology spec
    questions: tuple[Question, ...]
    measure: Measure        # (emulation, progress) -> {question key: the testbed's value}
    controller: ControllerConfig = field(default_factory=ControllerConfig)
    paper: str = ""         # the paper it comes from (citation key, docs/references.md)
    variants: VariantSpace = field(default_factory=lambda: VariantSpace(
        why_none="no variants declared"))
    build: Callable[[Values], Lab] | None = None  # the lab with a variant's values
    values: Values = field(default_factory=dict)  # the variant's values it runs with
    # the experiment spec its students run (lab 5's labs/05-traffic.toml), with its values
    spec: Callable[[], str] | None = None

    def vary(self, values: Values) -> Lab:
        """This lab with a variant's values (checked: testbed.labs.variant.VariantSpace)."""
        if self.build is None or not self.variants:
            raise ValueError(f"lab {self.number} has no variants")
        bad = self.variants.problems(values)
        if bad:
            raise ValueError(f"lab {self.number}: {'; '.join(bad)}")
        return self.build(values)

    @property
    def path(self) -> Path:
        return HANDOUTS / self.handout
