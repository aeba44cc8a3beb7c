"""Running the chosen claims: the pure ones first (no network), then the measured ones one
network at a time (only one emulated network runs on a machine), and writing what came of
each to the output folder, also when the run is interrupted."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import RunFailed
from ..results import versions
from . import networks
from .all_claims import select, tier
from .claims import Claim, Context
from .report import write, write_json
from .verdict import NO_RESULT, SKIPPED, VERDICTS, Outcome

SCHEMA = 1


def run(out_dir: Path, *, quick: bool = False, only: Sequence[str] | None = None,
        progress: Callable[[str], None] = print, command: str = "mcastlab reproduce",
        caps: Any = None, scale: bool = False,
        step: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the claims (`scale`: the scale tier's) and write reproduce.json, reproduce.md,
    reproduce.csv, report.html and plots/ (PNG, SVG, PDF) in `out_dir`;
    returns the JSON document. `caps` (testbed.emulation.environment.Capabilities) is
    needed only for measured claims. `step(key)` is called as each chosen claim's verdict
    begins (select(only, quick, scale) of them in all)."""
    chosen = select(only, quick, scale)
    tell = step or (lambda _key: None)
    doc: dict[str, Any] = {"schema": SCHEMA, "command": command, "quick": quick,
                           "scale": scale,
                           "only": list(only or []), "started": time.strftime("%Y-%m-%d %H:%M"),
                           "machine": versions(), "networks": {}, "claims": []}
    done: dict[str, dict[str, Any]] = {}
    earlier: dict[str, dict[str, Any]] = {}  # claim -> networks measured for it before
    before_s: dict[str, float] = {}  # claim -> seconds of its points on those networks
    t0 = time.perf_counter()
    try:
        # one after the other: their heavy parts (the step model's plans, the range-tree
        # searches) already run in a process per core, and claims share cells in memory
        for claim in [c for c in chosen if c.network is None]:
            tell(claim.key)
            done[claim.key] = _one(claim, Context(quick, progress))
        doc["pure_seconds"] = round(time.perf_counter() - t0, 1)
        measured = [c for c in chosen if c.network is not None]
        for name in network_order(measured):
            t_up = time.perf_counter()
            with networks.running(name, caps, progress) as net:
                doc["networks"][name] = net.describe()
                spent = {"up": round(time.perf_counter() - t_up, 1)}
                for claim in [c for c in measured if name in c.before]:
                    t_claim = time.perf_counter()
                    if _measure(claim, Context(quick, progress, net)):
                        earlier.setdefault(claim.key, {})[name] = net
                    before_s[claim.key] = before_s.get(claim.key, 0.0) + \
                        time.perf_counter() - t_claim
                for claim in [c for c in measured if c.network == name]:
                    tell(f"{claim.key} on {name}")
                    done[claim.key] = _one(claim, Context(quick, progress, net,
                                                          earlier.get(claim.key, {})),
                                           before_s.get(claim.key, 0.0))
                t_down = time.perf_counter()
            spent["down"] = round(time.perf_counter() - t_down, 1)
            doc["networks"][name]["seconds"] = spent | {
                "total": round(time.perf_counter() - t_up, 1)}
    finally:
        left = "interrupted before it ran" if len(done) < len(chosen) else ""
        doc["claims"] = [done.get(c.key) or _skipped(c, left if c in chosen else
                                                     "not chosen this run (--quick or --only)")
                         for c in tier(scale)]
        doc["seconds"] = round(time.perf_counter() - t0, 1)
        doc["summary"] = {v: sum(c["verdict"] == v for c in doc["claims"]) for v in VERDICTS}
        t_write = time.perf_counter()
        write(out_dir, doc)
        # what writing the report took (its plots: a minute of the run of 2026-12-06, not in
        # `seconds`), in reproduce.json once more
        doc["report_seconds"] = round(time.perf_counter() - t_write, 1)
        write_json(out_dir, doc)
    return doc


def network_order(claims: list[Claim]) -> list[str]:
    """The networks to bring up: every claim's `before` first (a network another claim
    compares with must be measured before any claim on that other network runs, whichever
    claim comes first), then the claims' own, in claim order."""
    return list(dict.fromkeys([*(str(n) for c in claims for n in c.before),
                               *(str(c.network) for c in claims)]))


def _measure(claim: Claim, ctx: Context) -> bool:
    """A claim's points on a network it compares with its own (Claim.before); False when
    an MPI job failed, so the claim finds that network missing from ctx.earlier."""
    assert claim.measure is not None
    ctx.progress(f"reproduce: {claim.key} (measured on {ctx.network.name} first)")
    try:
        claim.measure(ctx)
    except RunFailed as e:
        ctx.progress(f"reproduce: {claim.key}: {' '.join(str(e).split())[:200]}")
        return False
    return True


def _one(claim: Claim, ctx: Context, before_s: float = 0.0) -> dict[str, Any]:
    """A claim's entry; its `seconds` count those of its points on the networks it compares
    with (Claim.before, measured earlier: `before_s`, also apart as `seconds_before`)."""
    ctx.progress(f"reproduce: {claim.key}")
    t0 = time.perf_counter()
    try:
        out = claim.run(ctx)
    except RunFailed as e:  # an MPI job that failed: no result, and why
        out = Outcome(NO_RESULT, "-", " ".join(str(e).split())[:400])
    spent = time.perf_counter() - t0 + before_s
    return _entry(claim, out) | {"seconds": round(spent, 1)} | (
        {"seconds_before": round(before_s, 1)} if before_s else {})


def _skipped(claim: Claim, why: str) -> dict[str, Any]:
    return _entry(claim, Outcome(SKIPPED, "-", why))


def _entry(claim: Claim, out: Outcome) -> dict[str, Any]:
    f = claim.figure
    return {"key": claim.key, "paper": claim.paper, "where": f.where,
            "statement": claim.statement, "kind": claim.kind, "network": claim.network,
            "paper_figure": {"text": f.text, "values": _plain(f.values), "marker": f.marker},
            "testbed_figure": {"text": out.testbed, "values": _plain(out.values)},
            "verdict": out.verdict, "why_kind": out.kind, "why": out.why,
            "margin": claim.margin,
            "points": out.points, "context": out.context}


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """JSON's own types: tuples as lists, keys as strings."""
    def conv(v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): conv(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [conv(x) for x in v]
        return v

    return conv(values)

