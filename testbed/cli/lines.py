"""Text the commands print of the controller's groups and of a measured broadcast (pure: no
Mininet here, so `mcastlab groups` and `mcastlab bcast` print without loading it). The
prompt (cli/interactive.py, which imports Mininet's CLI) prints the same lines."""

from __future__ import annotations

from typing import Any

from ..measure.bcast_result import BcastResult
from ..results import text_table


def group_lines(groups: dict[str, Any]) -> list[str]:
    """The controller's /groups as text (also `mcastlab groups`)."""
    if not groups:
        return ["no groups"]
    lines = []
    for g, info in groups.items():
        members = ", ".join(_member(m, v) for m, v in info["members"].items()) or "none"
        lines.append(f"{g}  members: {members}")
        for src, d in info["sources"].items():
            if d["kind"] == "tree":
                tree = " ".join(f"{sw}->{','.join(map(str, p))}" for sw, p in d["tree"].items())
                lines.append(f"  from {src}: tree {tree}")
            else:
                lines.append(f"  from {src}: {d['kind']} ({d['reason']}), "
                             f"{d.get('dropped_packets', 0)} packets dropped")
    return lines


def _member(name: str, v: dict[str, Any]) -> str:
    """One port's state: `h1 (s1:2, include 10.0.0.1 20.0 s, expires in 20.0 s)`."""
    parts = [f"{v['switch']}:{v['port']}"]
    if v.get("mode") == "include":
        parts.append("include " + ", ".join(f"{s} {t:.1f} s" for s, t in v["sources"].items()))
    elif v.get("mode") == "exclude" and v.get("blocked"):
        parts.append("exclude " + ", ".join(v["blocked"]))
    if v.get("compat", "v3") != "v3":
        parts.append(f"{v['compat']} host")
    if v.get("leaving"):
        parts.append("leaving")
    if v.get("expires_in_s") is not None:
        parts.append(f"expires in {v['expires_in_s']:.1f} s")
    return f"{name} ({', '.join(parts)})"


def micro(s: float | None) -> str:
    """Seconds as whole microseconds, "-" for none."""
    return "-" if s is None else f"{s * 1e6:.0f} us"


def bcast_lines(res: BcastResult) -> list[str]:
    """A run_bcast result as text: a headline with t_mcast and the model's prediction, then
    per rank (and its host) the median time until it held the message and until it
    returned."""
    lines = [f"{res.algorithm} {res.size} B from {res.rank_hosts[0]} to "
             f"{res.hosts} hosts ({res.iterations} broadcasts, "
             f"{'bytes verified' if res.verified else 'WRONG BYTES at some rank'}): "
             f"t_mcast median {micro(res.median_s)}, model {micro(res.predicted_s)}"]
    return lines + rank_lines(res)


def rank_lines(res: BcastResult) -> list[str]:
    """Per rank of a run_bcast result (and its host): the median time from the root's start
    until it held the message and until it returned."""
    lines = []
    done, back = res.rank_done_s or (), res.rank_return_s or ()
    rows = [[r, h, micro(done[r] if r < len(done) else None),
             micro(back[r] if r < len(back) else None)] for r, h in enumerate(res.rank_hosts)]
    lines.append(text_table(["rank", "host", "holds the message", "returns"], rows))
    if res.rank_done_from == "return":
        lines.append("(this algorithm does not say when a rank holds the message: its "
                     "return stands in)")
    return lines
