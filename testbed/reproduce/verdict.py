"""Verdicts of `mcastlab reproduce`: what the testbed's figure says of a paper's claim.

- reproduced: the testbed's figure agrees with the paper's within the claim's stated margin,
  on results only (every measured point finished, verified and unflagged);
- differs: it does not, on results only; one sentence says why, and of which kind (KINDS):
  the emulator cannot show it (which mechanism is missing), or the claim does not transfer
  to the instance the testbed runs (and why). A difference caused by the implementation is a
  bug to fix, not a verdict;
- undecided: measured over several jobs, the figure's interval straddles the margin: the
  jobs do not settle it either way (a claim judged with intervals: `bootstrap`, `against`);
- not applicable: an emulator cannot show it, or the model predicts no effect on the
  instance the testbed can run (the claim says why, with its kind); still measured and shown;
- no result: a point the claim needs failed or was flagged (the emulator did not keep up):
  nothing can be said, in either direction (docs/glossary.md);
- skipped: not run this time (--quick or --only).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

REPRODUCED, DIFFERS, UNDECIDED, NOT_APPLICABLE, NO_RESULT, SKIPPED = (
    "reproduced", "differs", "undecided", "not applicable", "no result", "skipped")
VERDICTS = (REPRODUCED, DIFFERS, UNDECIDED, NOT_APPLICABLE, NO_RESULT, SKIPPED)
EMULATOR, TRANSFER = "emulator", "transfer"
KINDS = {EMULATOR: "the emulator cannot show it", TRANSFER: "the claim does not transfer"}
LEVEL = 0.95  # the intervals' coverage
DRAWS = 2000  # bootstrap resamples


@dataclass
class Outcome:
    """What running one claim gave: the verdict, why (for anything but reproduced), the
    testbed's figure in words and values, the measured points it was judged on (empty for
    pure claims), points shown beside them but not judged (`context`: the project's own
    algorithm next to a paper's, say), and for a difference its kind (KINDS)."""

    verdict: str
    testbed: str
    why: str = ""
    values: dict[str, Any] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    context: list[dict[str, Any]] = field(default_factory=list)
    kind: str = ""

    def __post_init__(self) -> None:
        check(self)


def check(o: Outcome) -> None:
    """The rules every outcome keeps (ValueError otherwise): a known verdict; a reason for
    anything but "reproduced"; a kind (KINDS) for "differs"; and "reproduced" only on
    results: no measured point of the claim failed, went unverified or was flagged."""
    if o.verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {o.verdict!r}")
    if o.verdict != REPRODUCED and o.verdict != SKIPPED and not o.why:
        raise ValueError(f"a verdict of {o.verdict!r} needs a reason")
    if o.kind and o.kind not in KINDS:
        raise ValueError(f"unknown kind of difference {o.kind!r} (one of {', '.join(KINDS)})")
    if o.verdict == DIFFERS and not o.kind:
        raise ValueError("a difference says its kind: " + " or ".join(
            f"{k} ({v})" for k, v in KINDS.items()))
    if o.verdict == REPRODUCED and not all(is_result(p) for p in o.points):
        raise ValueError("a claim with a failed, wrong or flagged point cannot be reproduced")


def point(label: str, times_s: dict[str, float] | None, *, verified: bool, flags: list[str],
          error: str | None = None, tries: int = 1, spread: tuple[str, str] = ("p10", "p90"),
          **extra: Any) -> dict[str, Any]:
    """A measured point as the claims judge it (is_result) and the report shows it: its
    median (`ms`) and spread (`p10_ms`, `p90_ms`, or `min_ms`, `max_ms`) from the times in
    seconds (None: it has none, it failed), whether every rank's bytes were right, its
    fidelity flags, why it failed, how many tries it took; `extra` as given."""
    t = times_s or {}
    return {"label": label, **extra, "ms": t["median"] * 1e3 if t else None,
            **{f"{k}_ms": t[k] * 1e3 if t else None for k in spread},
            "verified": verified, "flags": flags, "error": error, "tries": tries}


def is_result(p: dict[str, Any]) -> bool:
    """A measured point that can support a verdict: it finished, every rank's bytes were
    right, and the emulator kept up (no fidelity flag)."""
    return p.get("ms") is not None and p.get("verified", True) and not p.get("flags")


def no_result(points: list[dict[str, Any]], testbed: str,
              values: dict[str, Any] | None = None) -> Outcome | None:
    """The "no result" outcome (with the claim's `values`) when some point is not a result,
    else None."""
    bad = [p for p in points if not is_result(p)]
    if not bad:
        return None
    why = "; ".join(f"{p['label']}: " + (", ".join(p["flags"]) if p.get("flags") else
                                          p.get("error") or "bytes wrong") for p in bad[:3])
    return Outcome(NO_RESULT, testbed, f"{len(bad)} of {len(points)} point(s) are no result "
                   f"({why})", values=values or {}, points=points)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 %) of a proportion k/n."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(jobs: Mapping[Any, Sequence[float]],
              figure: Callable[[Mapping[Any, float]], float], *, draws: int = DRAWS,
              level: float = LEVEL, seed: int = 0, paired: bool = False
              ) -> tuple[float, float]:
    """The `level` percentile-bootstrap interval over jobs of a figure computed from several
    measured points: each draw resamples every point's job medians with replacement, takes
    their median, and computes `figure` from those (a point with one job never varies).
    `paired`: the i-th value of every point came from the same job (or draw), so a draw
    resamples the jobs, every point's i-th value together: what a slow job slows alike (the
    two barriers of one job, the chain and the fragmented chain of one) then cancels in a
    ratio of them instead of being drawn against another job's (ValueError unless every
    point has as many jobs)."""
    if not jobs or any(not v for v in jobs.values()):
        raise ValueError("every point needs at least one job")
    rng = random.Random(seed)
    if paired:
        n = {len(v) for v in jobs.values()}
        if len(n) != 1:
            raise ValueError(f"paired points need as many jobs each, got {sorted(n)}")
        (count,) = n

        def draw() -> dict[Any, float]:
            idx = rng.choices(range(count), k=count)
            return {k: statistics.median(v[i] for i in idx) for k, v in jobs.items()}
    else:
        def draw() -> dict[Any, float]:
            return {k: statistics.median(rng.choices(v, k=len(v))) for k, v in jobs.items()}
    got = sorted(figure(draw()) for _ in range(draws))
    tail = (1 - level) / 2
    return got[round(tail * (draws - 1))], got[round((1 - tail) * (draws - 1))]


def coverage(jobs: int) -> float:
    """How often the range of `jobs` jobs' medians holds the median of the jobs' own
    distribution: 1 - 2^(1 - jobs) (75 % for 3 jobs, 94 % for 5, 97 % for 6). For a figure
    of one measured point the bootstrap interval over up to 6 jobs is that range, so this is
    its coverage; a figure of several points (a ratio of two medians) is no narrower."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    return 1 - 2.0 ** (1 - jobs)


def interval_note(jobs: int) -> str:
    """What an interval over `jobs` jobs is, in words, for a claim's text."""
    return (f"intervals: bootstrap over {jobs} job(s) a point; for one point the range of "
            f"its jobs, which holds its median with {coverage(jobs) * 100:.0f} %")


def against(interval: tuple[float, float], lo: float | None = None,
            hi: float | None = None) -> str:
    """A figure's interval against a margin [lo, hi] (None: open): reproduced when it lies
    inside, differs when it lies wholly outside, undecided when it straddles an edge."""
    a, b = interval
    if (lo is None or a >= lo) and (hi is None or b <= hi):
        return REPRODUCED
    if (lo is not None and b < lo) or (hi is not None and a > hi):
        return DIFFERS
    return UNDECIDED


def combined(verdicts: Sequence[str]) -> str:
    """A claim made of several judged parts: differs if any part differs, else undecided if
    any is, else reproduced (parts that are not applicable are left out by the caller)."""
    if DIFFERS in verdicts:
        return DIFFERS
    return UNDECIDED if UNDECIDED in verdicts else REPRODUCED


def read(key: Any) -> Callable[[Mapping[Any, float]], float]:
    """A Part's figure that is one key of the medians (or of the per-job figures) as it is."""
    return lambda m: m[key]


@dataclass(frozen=True)
class Part:
    """One judged part of a claim: `figure` computed from the points' medians (a mapping
    by point key), judged by its bootstrap interval over the jobs against [lo, hi]."""

    what: str
    figure: Callable[[Mapping[Any, float]], float]
    lo: float | None = None
    hi: float | None = None
    fmt: str = ".2f"  # how the figure and its interval are written (":g" for sizes, say)
    keys: tuple[Any, ...] | None = None  # the points `figure` reads (None: any): the
    # bootstrap then resamples only those
    paired: bool = False  # the points' i-th values come from one job: resampled together


@dataclass(frozen=True)
class Judged:
    """A Part as judged: its figure on the medians, its interval and verdict (`against`)."""

    part: Part
    value: float
    interval: tuple[float, float]
    verdict: str
    jobs: int = 0  # the fewest jobs of a point the figure reads

    def text(self) -> str:
        a, b = self.interval
        f = self.part.fmt
        return f"{self.part.what} {self.value:{f}} [{a:{f}}, {b:{f}}]"

    def why(self) -> str:
        """Why it is not reproduced ('' when it is)."""
        if self.verdict == REPRODUCED:
            return ""
        p, (a, b) = self.part, self.interval
        edge = " and ".join(([f"at least {p.lo:g}"] if p.lo is not None else [])
                            + ([f"at most {p.hi:g}"] if p.hi is not None else []))
        return (f"{p.what} [{a:{p.fmt}}, {b:{p.fmt}}] "
                + ("lies outside" if self.verdict == DIFFERS else "straddles") + f" {edge}")


def judge(jobs: Mapping[Any, Sequence[float]], parts: Sequence[Part]) -> list[Judged]:
    """Every part's figure on the jobs' medians, with its interval and verdict."""
    ms = {k: statistics.median(v) for k, v in jobs.items()}
    out = []
    for p in parts:
        read = jobs if p.keys is None else {k: jobs[k] for k in p.keys}
        interval = bootstrap(read, p.figure, paired=p.paired)
        out.append(Judged(p, p.figure(ms), interval, against(interval, p.lo, p.hi),
                          min(len(v) for v in read.values())))
    return out


def intervals(judged: Sequence[Judged]) -> dict[str, dict[str, Any]]:
    """The judged parts for an outcome's values (the report draws them as error bars)."""
    return {j.part.what: {"figure": round(j.value, 3),
                          "interval": [round(j.interval[0], 3), round(j.interval[1], 3)],
                          "margin": [j.part.lo, j.part.hi], "verdict": j.verdict,
                          "jobs": j.jobs, "coverage": round(coverage(j.jobs), 3)
                          if j.jobs else None}
            for j in judged}


def judged_outcome(jobs: Mapping[Any, Sequence[float]], parts: Sequence[Part], text: str,
                   *, values: dict[str, Any], points: list[dict[str, Any]],
                   context: Sequence[dict[str, Any]] = (), lead: str = "; ",
                   differs: str = "", kind: str = EMULATOR, undecided: str = "") -> Outcome:
    """The outcome of a claim judged wholly by its parts over the jobs: every part's figure
    and interval appended to `text` (after `lead`) and kept in values["intervals"]; the
    combined verdict; a difference gets `differs` (": why", the mechanism) and `kind`, an
    undecided verdict `undecided` (": why" the jobs cannot settle it: the noise or the
    mechanism that keeps the figure at its margin)."""
    judged = judge(jobs, parts)
    values["intervals"] = intervals(judged)
    text += lead + ", ".join(j.text() for j in judged)
    fewest = min((j.jobs for j in judged), default=0)
    if fewest:
        text += f" ({interval_note(fewest)})"
    verdict = combined([j.verdict for j in judged])
    why = "; ".join(j.why() for j in judged if j.why())
    if verdict == DIFFERS:
        why += differs
    elif verdict == UNDECIDED:
        why += undecided
    return Outcome(verdict, text, why, values=values, points=points, context=list(context),
                   kind=kind if verdict == DIFFERS else "")


def jobs_inside(figures: Sequence[float], lo: float | None, hi: float | None,
                fmt: str = ".2f") -> str:
    """Where the jobs' own figures of a part lie against its margin [lo, hi]: how many
    inside (their range), and each of the others (either side)."""
    inside = [v for v in figures if (lo is None or v >= lo) and (hi is None or v <= hi)]
    out = [v for v in figures if v not in inside]

    def span(vs: Sequence[float]) -> str:
        a, b = f"{min(vs):{fmt}}", f"{max(vs):{fmt}}"
        return a if a == b else f"{a}{' to ' if min(vs) < 0 else '-'}{b}"

    return (f"{len(inside)} of {len(figures)} jobs inside" + (f" ({span(inside)})" if inside
                                                              else "")
            + (f", {len(out)} outside ({', '.join(f'{v:{fmt}}' for v in sorted(out))})"
               if out else ""))


def undecided_because(out: Outcome, noise: str,
                      per_job: Mapping[str, Sequence[float]] | None = None) -> Outcome:
    """An undecided outcome says what keeps its jobs from settling it: `noise` (": why",
    the mechanism) after, for each undecided part whose figure was computed job by job
    (`per_job`, by the part's name), where the jobs' own figures lie (jobs_inside). Any
    other verdict is left as it is."""
    if out.verdict != UNDECIDED:
        return out
    parts = (out.values.get("intervals") or {}).items()
    spread = [f"{what}: {jobs_inside(per_job[what], *i['margin'])}" for what, i in parts
              if i["verdict"] == UNDECIDED and per_job and what in per_job]
    out.why += (f" ({'; '.join(spread)})" if spread else "") + noise
    return out

