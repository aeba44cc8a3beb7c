"""testbed.reproduce.benchmarking: the benchmarking pitfall (algorithm 3.3.1, the root's
back-to-back time, against t_mcast) judges both rankings of chain and binomial by their
intervals over jobs, on stand-in points."""

from __future__ import annotations

import pytest

from testbed.reproduce.verdict import (
    DIFFERS,
    NO_RESULT,
    REPRODUCED,
    TRANSFER,
)

from .stand_ins import JOB_PACE, Points, measured


def test_benchmark_pitfall_judges_both_rankings_over_jobs() -> None:
    """Algorithm 3.3.1 (the root's back-to-back time) against t_mcast: chain/binomial below
    1 by the first, above 1 by the second, each by its interval over the jobs."""
    from testbed.reproduce.jobs import QUICK_TAKES, TAKES

    class Net(Points):
        def __init__(self, root, mcast, flag=()):
            super().__init__(mcast, flag)
            self.root, self.takes = root, []

        def point(self, algorithm, size, hosts, frames=0, **kw):
            assert kw["naive"] > 0  # every job times both benchmarks
            self.takes.append(kw["take"])
            p = super().point(algorithm, size, hosts, frames)
            return p | {"naive_ms": self.root(algorithm, hosts)}

    def chain_fast_at_root(a, h):
        return 4.0 if a == "chain" else 4.0 * 4

    def tree_ms(a, size, h):
        return (h - 1) * 7.0 if a == "chain" else 4 * 8.0

    net = Net(chain_fast_at_root, tree_ms)
    out = measured("nupairoj.benchmark-pitfall", net)
    assert out.verdict == REPRODUCED, out.why
    assert sorted(set(net.takes)) == list(range(QUICK_TAKES))
    assert len(out.points) == 2 * QUICK_TAKES
    iv = out.values["intervals"]
    assert iv["t_root chain/binomial, 16 hosts"]["interval"] == [0.25, 0.25]
    assert iv["t_mcast chain/binomial, 16 hosts"]["figure"] == pytest.approx(105 / 32, 1e-3)
    full = measured("nupairoj.benchmark-pitfall", Net(chain_fast_at_root, tree_ms), False)
    assert len(full.points) == 2 * 2 * TAKES and "8 hosts" in full.testbed
    same = measured("nupairoj.benchmark-pitfall",
                    Net(lambda a, h: 20.0 if a == "chain" else 16.0, tree_ms))
    assert same.verdict == DIFFERS and same.kind == TRANSFER
    assert "t_root chain/binomial, 16 hosts [1.25, 1.25] lies outside at most 1" in same.why
    flagged = measured("nupairoj.benchmark-pitfall",
                       Net(chain_fast_at_root, tree_ms, flag={("chain", 16)}))
    assert flagged.verdict == NO_RESULT


def test_the_pitfall_draws_a_takes_chain_and_binomial_together() -> None:
    """A take's chain and binomial on a host count run in one job: a job-wide pace (the jobs
    0.6, 1.0, 1.4 x) moves both, and each ratio is judged by job (its figure in every job),
    not one job's chain against another job's binomial."""

    class Net(Points):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            f = JOB_PACE[kw["take"] % len(JOB_PACE)]
            p = super().point(algorithm, size, hosts, frames)
            return p | {"ms": p["ms"] * f,
                        "naive_ms": (4.0 if algorithm == "chain" else 16.0) * f}

    out = measured("nupairoj.benchmark-pitfall",
                   Net(lambda a, s, h: (h - 1) * 7.0 if a == "chain" else 32.0))
    iv = out.values["intervals"]
    assert iv["t_root chain/binomial, 16 hosts"]["interval"] == [0.25, 0.25]
    assert iv["t_mcast chain/binomial, 16 hosts"]["interval"] == [pytest.approx(105 / 32,
                                                                                abs=1e-3)] * 2
