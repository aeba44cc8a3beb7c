"""Sensitivity of range-tree depth to the number of faults: Coll et al.'s Fig. 7 plane (pure).

Fig. 7 shows, over network sizes 16..4096 and 0.1..10 % faulty nodes, the worst-case depth
of the optimal tree (2, 3 or 4 steps), and the text says greedy is optimal in 99 % of the
problems (100 % below 1 % faulty). A claim needs the shares behind that picture, per cell:
how many optima take 2, 3, 4 or more steps, how often greedy equals the optimum, and the
deepest greedy tree. The default grid is coarse (5 x 5 cells, 200 problems each: about
90 s of one core); any grid works.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .trials import Cell, HwTreeStats, run_cells

__all__ = ["FIG7_FRACTIONS", "FIG7_SIZES", "FIG7_TRIALS", "SEARCH_LIMIT", "SensitivityCell",
           "fault_sensitivity"]

FIG7_SIZES = (16, 64, 256, 1024, 4096)
FIG7_FRACTIONS = (0.001, 0.003, 0.01, 0.03, 0.1)
FIG7_TRIALS = 200  # random problems a cell (the paper drew 1000)
QUICK_BUDGET = 300
"""Search states per optimum in the sensitivity grid: enough to decide almost every problem
off 4096 nodes at about 1 % faulty, where the last step's search is hardest."""
SEARCH_LIMIT = 200
"""Cells with more faulty nodes than this get greedy trees only (the optimum is searched
only where greedy misses the depth lower bound, otherwise undecided): on 4096 nodes at
10 % faulty one undecided optimum costs about 20 s of the last step's relaxation."""


@dataclass(frozen=True)
class SensitivityCell:
    """One (size, faulty share) cell; shares of optima over decided trials, ``deepest`` the
    worst greedy tree (greedy is never better than the optimum, so it bounds Fig. 7's
    worst case from above)."""

    nodes: int
    faulty_fraction: float
    faulty_nodes: int
    trials: int
    undecided: int
    optimal_shares: dict[int, float]
    greedy_shares: dict[int, float]
    greedy_optimal: float
    deepest_optimal: int
    deepest_greedy: int

    @classmethod
    def of(cls, s: HwTreeStats) -> SensitivityCell:
        return cls(s.nodes, s.faulty_fraction, s.faulty_nodes, s.trials, s.undecided,
                   s.fractions(s.optimal), s.fractions(s.greedy), s.greedy_optimal_fraction,
                   max(s.optimal, default=0), max(s.greedy, default=0))

    def share(self, depth: int) -> float:
        """Share of decided optima of exactly ``depth`` steps (``depth`` >= 4: 4 or more)."""
        if depth >= 4:
            return sum(v for d, v in self.optimal_shares.items() if d >= 4)
        return self.optimal_shares.get(depth, 0.0)

    def to_dict(self) -> dict:
        return {"nodes": self.nodes, "faulty_fraction": self.faulty_fraction,
                "faulty_nodes": self.faulty_nodes, "trials": self.trials,
                "undecided": self.undecided,
                "optimal": {str(d): self.share(d) for d in (1, 2, 3, 4)},
                "greedy": {str(d): v for d, v in self.greedy_shares.items()},
                "greedy_optimal": self.greedy_optimal,
                "deepest_optimal": self.deepest_optimal, "deepest_greedy": self.deepest_greedy}


def fault_sensitivity(sizes: Sequence[int] = FIG7_SIZES,
                      fractions: Sequence[float] = FIG7_FRACTIONS, trials: int = FIG7_TRIALS,
                      seed: int = 0, budget: int | None = QUICK_BUDGET,
                      search_limit: int | None = SEARCH_LIMIT,
                      progress: Callable[[int, float], None] | None = None,
                      workers: int = 1) -> list[SensitivityCell]:
    """Greedy and optimal depths over the grid ``sizes`` x ``fractions`` (random problems as
    in :func:`collectives.range_trees.trials.hwtree_trials`, same seed in every cell), the
    searches in `workers` processes at once.

    A cell whose faulty share rounds to no faulty node is skipped (nothing to route around);
    past ``search_limit`` faulty nodes the search gets no budget (see SEARCH_LIMIT; None: no
    limit); ``progress(nodes, fraction)`` is called as each cell is counted.
    """
    cells = [Cell(nodes, fraction, trials, 0 if search_limit is not None
                  and round(fraction * nodes) > search_limit else budget)
             for nodes in sizes for fraction in fractions if round(fraction * nodes) >= 1]
    report = None if progress is None else (lambda c: progress(c.nodes, c.faulty_fraction))
    return [SensitivityCell.of(s) for s in run_cells(cells, seed, workers=workers,
                                                    progress=report)]
