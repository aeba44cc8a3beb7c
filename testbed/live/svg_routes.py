"""Marks drawn along a route through the network for the live view's picture (pure: text
out; svg.py places the nodes and calls these): the last broadcast's tree, each send from
the parent's host to the child's along its route, numbered by the parent's order; the
background traffic's flows, each pair of hosts it sends between, dashed along its route.
Each is a group (``bcast-send``, ``traffic-flow``) with data- names, one line per hop, an
arrow on the last. ``shifted`` keeps parallel marks on one link apart."""

from __future__ import annotations

import itertools
import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

Pos = dict[str, tuple[float, float]]
SEND_COLOUR, FLOW_COLOUR = "#222", "#a0522d"
SEND_SHIFT, FLOW_SHIFT = 7.0, -4.0  # px to the left of a hop, seen from where it leaves
MARKERS = {"arrowb": SEND_COLOUR, "arrowt": FLOW_COLOUR}  # svg.py defines them


def attrs(**kw: Any) -> str:
    return " ".join(f"{k.replace('_', '-')}={quoteattr(str(v))}" for k, v in kw.items())


def shifted(a: tuple[float, float], b: tuple[float, float], by: float
            ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment a-b moved `by` px to its left (seen from a), shortened at both ends to
    stop at the nodes' edges, so parallel marks on one link stay apart."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    nx_, ny_ = -dy / length * by, dx / length * by
    cut = min(18.0, length / 3)
    ux, uy = dx / length * cut, dy / length * cut
    return ((a[0] + nx_ + ux, a[1] + ny_ + uy), (b[0] + nx_ - ux, b[1] + ny_ - uy))


def _hops(pos: Pos, path: list[str], by: float, style: str, marker: str
          ) -> tuple[list[str], tuple[tuple[float, float], tuple[float, float]] | None]:
    """One line per hop of `path` (an arrow on the last) and the last hop's segment; no
    lines where a node of the path is not drawn."""
    if len(path) < 2 or any(n not in pos for n in path):
        return [], None
    out, seg = [], None
    hops = list(itertools.pairwise(path))
    for i, (a, b) in enumerate(hops):
        seg = (x1, y1), (x2, y2) = shifted(pos[a], pos[b], by)
        end = f' marker-end="url(#{marker})"' if i == len(hops) - 1 else ""
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'{style}{end}/>')
    return out, seg


def bcast_sends(pos: Pos, sends: list[dict[str, Any]]) -> list[str]:
    """The broadcast tree's sends (snapshot's ``bcast.tree.sends``), each labelled near the
    child with the parent's send order and the parent ("1 from h0")."""
    out = []
    style = f'stroke="{SEND_COLOUR}" stroke-width="1.5" fill="none"'
    for s in sends:
        lines, seg = _hops(pos, s["path"], SEND_SHIFT, style, "arrowb")
        if seg is None:
            continue
        (x1, y1), (x2, y2) = seg  # the label near the child, where it is the only mark
        x, y = x1 + (x2 - x1) * 0.8, y1 + (y2 - y1) * 0.8
        order = s.get("order")
        label = f"{order} from {s['from']}" if order else f"from {s['from']}"
        what = (f"{s['from']} sends to {s['to']}" + (f" (its send {order})" if order else "")
                + " via " + " ".join(s["path"][1:-1]))
        out.append(f'<g class="bcast-send" {attrs(data_from=s["from"], data_to=s["to"])} '
                   f'{attrs(data_order=order if order else "")}>{"".join(lines)}'
                   f'<text x="{x:.1f}" y="{y:.1f}" fill="{SEND_COLOUR}" font-size="9" '
                   'text-anchor="middle" stroke="white" stroke-width="3" '
                   f'paint-order="stroke">{escape(label)}</text>'
                   f'<title>{escape(what)}</title></g>')
    return out


def traffic_flows(pos: Pos, flows: list[dict[str, Any]]) -> list[str]:
    """The background traffic's flows (snapshot's ``run.point.traffic.flows``), dashed."""
    out = []
    style = (f'stroke="{FLOW_COLOUR}" stroke-width="1.2" stroke-dasharray="6 3" '
             'fill="none" opacity="0.8"')
    for f in flows:
        lines, seg = _hops(pos, f["path"], FLOW_SHIFT, style, "arrowt")
        if seg is None:
            continue
        what = f"background traffic {f['from']} to {f['to']}: {f['share']:.0%} of its messages"
        out.append(f'<g class="traffic-flow" {attrs(data_from=f["from"], data_to=f["to"])} '
                   f'{attrs(data_share=f["share"])}>{"".join(lines)}'
                   f'<title>{escape(what)}</title></g>')
    return out
