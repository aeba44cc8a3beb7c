"""Stand-ins for what a claim reads: points, and the networks that hold them."""

from __future__ import annotations

from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import (
    Outcome,
)


def point(label: str = "p", ms: float | None = 10.0, flags: list[str] | None = None,
          verified: bool = True, error: str | None = None) -> dict:
    return {"label": label, "ms": ms, "flags": flags or [], "verified": verified,
            "error": error}


# ---- measured claims' judging, on points a stand-in network hands out -------------------
class Points:
    """Stands in for a running network (testbed.reproduce.networks.Network): every point it
    is asked for comes from `ms(algorithm, size, hosts)`; `flag` names points to flag."""

    def __init__(self, ms, flag=(), frames=None, back=None, data=None):
        self.ms, self.flag, self.frames, self.back = ms, set(flag), frames, back
        self.data = data  # data frames from (algorithm, size, hosts, completion)
        self.batches: list[tuple[list, int]] = []  # (asks, takes) a claim measured together
        self.rounds: list[int] = []  # the rounds each batch's broadcasts took turns in

    def batch(self, asks, takes, rounds=1):
        self.batches.append((list(asks), takes))
        self.rounds.append(rounds)

    def point(self, algorithm, size, hosts, frames=0, **_kw):
        label = f"{algorithm} {size} B on {hosts} hosts"
        return {"label": label, "ms": self.ms(algorithm, size, hosts),
                "flags": ["hosts waited"] if (algorithm, hosts) in self.flag else [],
                "verified": True, "error": None,
                "frames_sent": self.frames(algorithm, size, hosts) if self.frames else None,
                "frames_data": (self.data(algorithm, size, hosts, _kw.get("completion"))
                                if self.data else None),
                "frames_acks": 2.0 if self.data else None,
                "rank_return_s": self.back(algorithm) if self.back else None}


def measured(key: str, net: Points, quick: bool = True) -> Outcome:
    return BY_KEY[key].run(Context(quick, lambda _m: None, net))


# a job-wide pace: take t's every time x JOB_PACE[t % 3] (a job that ran slow or fast as a
# whole); a figure of one job's points that cancels it must come out alike from every job
JOB_PACE = (0.6, 1.0, 1.4)


def flat_mcast(alg: str, size: int, hosts: int) -> float:
    return 30.0 if alg in ("two-stage", "nack", "scout-linear") else 10.0 * hosts


class TakesPoints(Points):
    """A stand-in network whose jobs differ: take t scales every time by `spread[t]` (the
    spread over again where a claim takes more jobs than it names)."""

    def __init__(self, ms, spread=(0.98, 1.0, 1.02), flag=()):
        super().__init__(ms, flag)
        self.spread = spread

    def point(self, algorithm, size, hosts, frames=0, **kw):
        p = super().point(algorithm, size, len(hosts) if isinstance(hosts, list) else hosts)
        return p | {"ms": p["ms"] * self.spread[kw.get("take", 0) % len(self.spread)]}
