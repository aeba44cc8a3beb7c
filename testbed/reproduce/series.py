"""What the measured claims share (testbed.reproduce.siebert, .chen): the host counts, the
papers' baseline trees, the algorithms' names in reports, a plot's series."""

from __future__ import annotations

from typing import Any

HOSTS = (2, 4, 8, 16)
TREES = ("mpich", "binomial")  # MPICH's MPI_Bcast and the binomial tree: the papers' baselines
NAMES = {"mpich": "MPI_Bcast", "binomial": "binomial", "two-stage": "two-stage",
         "nack": "nack", "scout-linear": "scout-linear", "scout-binary": "scout-binary",
         "sequential": "sequential", "fragmented-chain": "fragmented chain",
         "scatter-allgather": "scatter-allgather"}


def series(by_alg: dict[str, dict[int, dict[str, Any]]]) -> dict[str, list]:
    """A plot's lines: per algorithm (named as in reports), (hosts, ms) of its results."""
    return {NAMES[a]: [(h, p["ms"]) for h, p in sorted(pts.items()) if p["ms"] is not None]
            for a, pts in by_alg.items()}
