"""Greedy against optimal range-multicast trees over random faulty-node sets (pure).

The experiment of Coll et al., sec. 6 (Fig. 7, Table 1): in a network of N nodes,
round(F * N) random nodes are faulty; a random healthy node broadcasts to all healthy nodes
(itself included, so its own group is one range); both algorithms build a tree. Seeded, so a
run can be repeated exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

from .kary_tree import KaryNTree
from .trees import SearchLimitExceeded, greedy_steps, optimal_steps

__all__ = ["DEFAULT_BUDGET", "Cell", "HwTreeStats", "check_config", "greedy_trials",
           "hwtree_trials", "random_problem", "run_cells", "solve"]

DEFAULT_BUDGET = 3000
"""Search states one optimal tree may visit before the trial is counted as undecided: on
4096 nodes with 1 % faulty an undecided trial then costs about 2.5 s; on the ones tried, a
last-step search of 200,000 states decided nothing more."""


@dataclass(frozen=True)
class HwTreeStats:
    """Depth counts of T trials; ``undecided`` trials hit the search budget (no optimum)."""

    nodes: int
    arity: int
    faulty_fraction: float
    faulty_nodes: int
    trials: int
    seed: int
    greedy: dict[int, int] = field(default_factory=dict)
    optimal: dict[int, int] = field(default_factory=dict)
    greedy_optimal: int = 0
    undecided: int = 0

    @property
    def decided(self) -> int:
        return self.trials - self.undecided

    @property
    def greedy_optimal_fraction(self) -> float:
        return self.greedy_optimal / self.decided if self.decided else 0.0

    def fractions(self, counts: dict[int, int]) -> dict[int, float]:
        total = sum(counts.values())
        return {depth: counts[depth] / total for depth in sorted(counts)} if total else {}

    def to_dict(self) -> dict:
        out = asdict(self)
        out.pop("greedy"), out.pop("optimal")
        out |= {"greedy_depths": self.fractions(self.greedy),
                "optimal_depths": self.fractions(self.optimal),
                "greedy_counts": dict(sorted(self.greedy.items())),
                "optimal_counts": dict(sorted(self.optimal.items())),
                "greedy_optimal_fraction": self.greedy_optimal_fraction}
        return out


def random_problem(rng: random.Random, nodes: int, faulty: int) -> tuple[int, list[int]]:
    """A random source and the healthy nodes (the destinations) with ``faulty`` nodes out."""
    out = set(rng.sample(range(nodes), faulty))
    healthy = [n for n in range(nodes) if n not in out]
    return rng.choice(healthy), healthy


def greedy_trials(nodes: int, faulty_fraction: float, trials: int, seed: int = 0,
                  arity: int = 4, split: str = "smallest") -> dict[int, int]:
    """Greedy's depth counts over the problems :func:`hwtree_trials` draws (no optimum),
    with `split` as its forward split rule (collectives.range_trees.trees.SPLITS)."""
    tree = check_config(nodes, faulty_fraction, trials, arity)
    rng = random.Random(seed)
    faulty = round(faulty_fraction * nodes)
    depths = Counter(len(greedy_steps(tree, *random_problem(rng, nodes, faulty), split=split))
                     for _ in range(trials))
    return dict(sorted(depths.items()))


def check_config(nodes: int, faulty_fraction: float, trials: int, arity: int = 4) -> KaryNTree:
    """The network for these settings; ValueError with a readable message when they are bad."""
    if not 0 <= faulty_fraction < 1:
        raise ValueError(f"the faulty fraction must be in [0, 1), got {faulty_fraction:g}")
    if trials < 1:
        raise ValueError(f"at least one trial is needed, got {trials}")
    tree = KaryNTree.for_nodes(nodes, arity)
    if nodes - round(faulty_fraction * nodes) < 1:
        raise ValueError("no healthy node is left to broadcast")
    return tree


def solve(tree: KaryNTree, budget: int | None,
          problem: tuple[int, list[int]]) -> tuple[int, int | None]:
    """One problem's greedy depth and optimal depth (None: the search exceeded `budget`)."""
    source, dests = problem
    greedy = greedy_steps(tree, source, dests)
    try:
        return len(greedy), len(optimal_steps(tree, source, dests, budget, greedy))
    except SearchLimitExceeded:
        return len(greedy), None


@dataclass(frozen=True)
class Cell:
    """One configuration of the experiment: ``trials`` random problems on ``nodes`` nodes
    with ``round(faulty_fraction * nodes)`` faulty, each optimum searched within ``budget``
    states (None: no limit; 0: only where greedy meets the depth lower bound)."""

    nodes: int
    faulty_fraction: float
    trials: int
    budget: int | None = DEFAULT_BUDGET


Depths = tuple[int, int | None]
_SOLVED: dict[tuple[int, int, int, int, int | None, int], Depths] = {}
"""Problems solved in this process: (nodes, arity, faulty, seed, budget, index) -> depths,
so that two claims of one run drawing the same cell solve it once."""


def _solve_job(job: tuple[KaryNTree, int | None, tuple[int, list[int]]]) -> Depths:
    return solve(*job)


def run_cells(cells: Sequence[Cell], seed: int = 0, arity: int = 4, workers: int = 1,
              progress: Callable[[Cell], None] | None = None) -> list[HwTreeStats]:
    """Every cell's statistics, as :func:`hwtree_trials` gives them (each cell's problems
    drawn from one generator seeded with `seed`), the problems not solved before in this
    process searched in `workers` processes at once; ``progress(cell)`` before each cell's
    problems are counted."""
    plans = []
    todo: dict[tuple[int, int, int, int, int | None, int], tuple] = {}
    for cell in cells:
        tree = check_config(cell.nodes, cell.faulty_fraction, cell.trials, arity)
        faulty = round(cell.faulty_fraction * cell.nodes)
        rng = random.Random(seed)
        keys = []
        for i in range(cell.trials):
            problem = random_problem(rng, cell.nodes, faulty)
            key = (cell.nodes, arity, faulty, seed, cell.budget, i)
            if key not in _SOLVED:
                todo[key] = (tree, cell.budget, problem)
            keys.append(key)
        plans.append((cell, faulty, keys))
    jobs = list(todo.values())
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            _SOLVED.update(zip(todo, pool.map(_solve_job, jobs, chunksize=4), strict=True))
    else:
        _SOLVED.update(zip(todo, map(_solve_job, jobs), strict=True))
    out = []
    for cell, faulty, keys in plans:
        if progress is not None:
            progress(cell)
        out.append(_stats(cell, arity, faulty, seed, [_SOLVED[k] for k in keys]))
    return out


def _stats(cell: Cell, arity: int, faulty: int, seed: int,
           depths: Iterable[Depths]) -> HwTreeStats:
    greedy: Counter[int] = Counter()
    optimal: Counter[int] = Counter()
    same = undecided = 0
    for g, o in depths:
        greedy[g] += 1
        if o is None:
            undecided += 1
        else:
            optimal[o] += 1
            same += g == o
    return HwTreeStats(cell.nodes, arity, cell.faulty_fraction, faulty, cell.trials, seed,
                       dict(greedy), dict(optimal), same, undecided)


def hwtree_trials(nodes: int, faulty_fraction: float, trials: int, seed: int = 0,
                  arity: int = 4, budget: int | None = DEFAULT_BUDGET,
                  progress: Callable[[int, int], None] | None = None,
                  workers: int = 1) -> HwTreeStats:
    """Run ``trials`` random problems; ``progress(done, total)`` after each one.

    The optimum is searched only when the greedy tree is deeper than the depth lower bound
    (otherwise the greedy tree is optimal); a search that exceeds ``budget`` states leaves
    the trial undecided: it counts in the greedy depths, not in the optimal ones. The
    problems are drawn first, from one generator seeded with `seed`, so `workers` processes
    give the same result as one.
    """
    tree = check_config(nodes, faulty_fraction, trials, arity)
    faulty = round(faulty_fraction * nodes)
    rng = random.Random(seed)
    problems = [random_problem(rng, nodes, faulty) for _ in range(trials)]
    depths = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            solved = pool.map(solve, [tree] * trials, [budget] * trials, problems, chunksize=4)
            for done, d in enumerate(solved, start=1):
                depths.append(d)
                if progress is not None:
                    progress(done, trials)
    else:
        for done, p in enumerate(problems, start=1):
            depths.append(solve(tree, budget, p))
            if progress is not None:
                progress(done, trials)
    return _stats(Cell(nodes, faulty_fraction, trials, budget), arity, faulty, seed, depths)
