"""The teaching labs (``mcastlab lab N``): each lab (testbed.labs.lab.Lab) names its
network, the questions of its handout (``labs/NN-*.md``) and how the testbed measures the
answers itself; one module per lab."""

from __future__ import annotations

from . import holes, igmp, measuring, traffic, trees, unreliable
from .lab import Lab


def labs() -> dict[int, Lab]:
    return {lab.number: lab for lab in (igmp.LAB, measuring.LAB, trees.LAB, unreliable.LAB,
                                        traffic.LAB, holes.LAB)}
