"""A teaching lab: its network, the questions of its handout (``labs/NN-*.md``) and how the
testbed measures the answers itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig

from .answers import Question

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

    @property
    def path(self) -> Path:
        return HANDOUTS / self.handout
