"""A sample of times summarized (median, p10, p90, min, max; n and mean where known): what
every measured collective reports its times as."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

TIMES = ("median", "p10", "p90", "min", "max")


@dataclass(frozen=True)
class Times:
    """A sample of times in seconds, summarized (collectives.stats.summarize's keys; its
    size `n` and `mean` where the summary had them)."""

    median: float
    p10: float
    p90: float
    min: float
    max: float
    n: int | None = None
    mean: float | None = None

    @classmethod
    def of(cls, summary: Mapping[str, float]) -> Times:
        n, mean = summary.get("n"), summary.get("mean")
        return cls(**{k: float(summary[k]) for k in TIMES},
                   n=None if n is None else int(n), mean=mean)

    @classmethod
    def constant(cls, value: float) -> Times:
        """One figure standing for the whole sample (the flow latency's mean)."""
        return cls(value, value, value, value, value)

    def to_dict(self) -> dict[str, float]:
        extra = {k: v for k, v in (("n", self.n), ("mean", self.mean)) if v is not None}
        return {k: getattr(self, k) for k in TIMES} | extra
