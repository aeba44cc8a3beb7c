"""A live-view snapshot (snapshot.py) drawn as SVG (pure: text in, text out). The layout is
layered: hosts on the bottom row, each switch on the row of its hop distance from the
nearest host (a star's switch above its hosts, a tree's root at the top), each row ordered
by where its neighbours below sit. Drawn: every link (its rate in the legend, or beside it
where it differs from most links'), each direction's load where a link carried any, loss
where set (a red dashed line and its percentage), each group's tree links in the group's
colour (with arrows, from each source), its members ringed in that colour (a range
multicast's node range dashed), failed hosts marked red with a cross, the last broadcast's
ranks and times under its hosts, its tree's sends and the links it used, and a legend; a
spec run's background traffic's flows and its panel under the legend (``run_panel``: the
point being measured, its background traffic, the points written with their fidelity
flags). Marks along a route (a send, a flow) are svg_routes.py's. Every node and mark
carries a class and data- names, so that a test (or a script) reads the picture as well as a
person does."""

from __future__ import annotations

import math
import re
import textwrap
from collections import Counter
from typing import Any
from xml.sax.saxutils import escape

import networkx as nx

from .svg_routes import MARKERS, attrs, bcast_sends, shifted, traffic_flows

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2",
           "#8c564b")
ROW, COL, MARGIN, LEGEND_LINE = 110.0, 64.0, 48.0, 18.0
SCOPES = {"all": "", "multicast": " of multicast", "link": " (the link's own)"}  # of loss


def _natural(name: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


def layout(topo: dict[str, Any]) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Node -> (x, y), and the drawing's width and height without the legend."""
    g: nx.Graph[str] = nx.Graph()
    hosts = [h["name"] for h in sorted(topo["hosts"], key=lambda h: h["id"])]
    g.add_nodes_from(hosts)
    g.add_nodes_from(topo["switches"])
    g.add_edges_from((lk["a"], lk["b"]) for lk in topo["links"])
    dist = {n: int(d) for n, d in (nx.multi_source_dijkstra_path_length(g, set(hosts))
                                   if hosts else {}).items()}
    top = max(dist.values(), default=0)
    rows: list[list[str]] = [hosts] + [[] for _ in range(top + 1)]
    for n in sorted(topo["switches"], key=_natural):
        rows[dist.get(n, top + 1)].append(n)
    rows = [r for r in rows if r]
    place: dict[str, float] = {n: float(i) for i, n in enumerate(rows[0])}
    for row in rows[1:]:  # each row after the mean place of its neighbours already placed
        def key(n: str) -> tuple[float, tuple[Any, ...]]:
            seen = [place[m] for m in g.neighbors(n) if m in place]
            return (sum(seen) / len(seen) if seen else math.inf, _natural(n))
        row.sort(key=key)
        for i, n in enumerate(row):
            place[n] = float(i)
    widest = max(len(r) for r in rows)
    width = max(640.0, widest * COL + 2 * MARGIN)
    row_gap = max(ROW, min(2.5 * ROW, width / 5))  # a wide row: links not too flat to tell
    height = 2 * MARGIN + row_gap * (len(rows) - 1)
    pos = {}
    for k, row in enumerate(rows):
        for i, n in enumerate(row):
            pos[n] = (MARGIN + (width - 2 * MARGIN) * (i + 0.5) / len(row),
                      height - MARGIN - k * row_gap)
    return pos, width, height


def _rate(mbit: float | None) -> str:
    if mbit is None:
        return "unlimited"
    return f"{mbit / 1000:g} Gbit/s" if mbit >= 1000 else f"{mbit:g} Mbit/s"


def draw(snap: dict[str, Any]) -> str:
    """The snapshot as an SVG document."""
    topo = snap["topology"]
    pos, width, height = layout(topo)
    groups: dict[str, Any] = snap.get("groups", {})
    colour = {g: COLOURS[i % len(COLOURS)] for i, g in enumerate(groups)}
    said = _bcast_legend(snap.get("bcast"), width)
    legend = 2 + len(groups) + sum(len(d["sources"]) for d in groups.values()) + len(said)
    panel = run_panel(snap.get("run"))
    legend += len(panel)
    total = height + legend * LEGEND_LINE + 12
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" {attrs(width=f"{width:g}")} '
           f'{attrs(height=f"{total:g}", viewBox=f"0 0 {width:g} {total:g}")} '
           f'font-family="sans-serif" font-size="11">',
           "<defs>" + "".join(
               f'<marker id="arrow{i}" viewBox="0 0 10 10" refX="10" refY="5" '
               f'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
               f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{c}"/></marker>'
               for i, c in enumerate(COLOURS)) +
           "".join(f'<marker id="{m}" viewBox="0 0 10 10" refX="10" refY="5" '
                   'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
                   f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{c}"/></marker>'
                   for m, c in MARKERS.items()) + "</defs>",
           '<rect width="100%" height="100%" fill="white"/>']
    rates = Counter(lk["mbit"] for lk in topo["links"])
    usual = rates.most_common(1)[0][0] if rates else None
    for lk in topo["links"]:
        (x1, y1), (x2, y2) = pos[lk["a"]], pos[lk["b"]]
        out.append(f'<line class="link" {attrs(data_a=lk["a"], data_b=lk["b"])} '
                   f'{attrs(data_rate=_rate(lk["mbit"]))} x1="{x1:.1f}" y1="{y1:.1f}" '
                   f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="#bbb" stroke-width="2"/>')
        if lk["mbit"] != usual:  # the usual rate is said once, in the legend
            out.append(f'<text class="rate" x="{(x1 + x2) / 2 + 4:.1f}" '
                       f'y="{(y1 + y2) / 2:.1f}" fill="#999" font-size="9">'
                       f'{escape(_rate(lk["mbit"]))}</text>')
    for gi, (g, info) in enumerate(groups.items()):
        for src, d in info["sources"].items():
            for a, b in d.get("links", []):
                if a not in pos or b not in pos:
                    continue
                # the groups side by side along the link, centred on it
                (x1, y1), (x2, y2) = shifted(pos[a], pos[b],
                                             3.5 * (gi - (len(groups) - 1) / 2))
                out.append(f'<line class="tree" {attrs(data_group=g, data_source=src)} '
                           f'{attrs(data_from=a, data_to=b)} x1="{x1:.1f}" y1="{y1:.1f}" '
                           f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour[g]}" '
                           f'stroke-width="3" marker-end="url(#arrow{gi % len(COLOURS)})"/>')
    out += traffic_flows(pos, _flows(snap.get("run")))
    out += bcast_sends(pos, ((snap.get("bcast") or {}).get("tree") or {}).get("sends", []))
    for a, b, nbytes in (snap.get("bcast") or {}).get("links", []):
        if a in pos and b in pos:  # the links the last broadcast used, in black
            (x1, y1), (x2, y2) = shifted(pos[a], pos[b], 11.0)
            out.append(f'<line class="bcast-link" {attrs(data_from=a, data_to=b)} '
                       f'{attrs(data_bytes=nbytes)} x1="{x1:.1f}" y1="{y1:.1f}" '
                       f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="#222" stroke-width="1.5" '
                       'stroke-dasharray="2 2" marker-end="url(#arrowb)"/>')
    for a, b, mbit in snap.get("load", []):
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = shifted(pos[a], pos[b], -8.0)
            x, y = x1 + (x2 - x1) * 0.3, y1 + (y2 - y1) * 0.3
            out.append(f'<text class="load" {attrs(data_from=a, data_to=b)} x="{x:.1f}" '
                       f'y="{y:.1f}" fill="#555" font-size="9">{mbit:.2f} Mbit/s</text>')
    for a, b, fraction, scope in snap.get("loss", []):
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            out.append(f'<line class="loss" {attrs(data_a=a, data_b=b)} x1="{x1:.1f}" '
                       f'y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#c00" '
                       'stroke-width="1.5" stroke-dasharray="5 4"/>')
            out.append(f'<text class="loss" {attrs(data_a=a, data_b=b)} '
                       f'x="{(x1 + x2) / 2 + 4:.1f}" y="{(y1 + y2) / 2 + 11:.1f}" '
                       f'fill="#c00" font-size="10">'
                       f'{escape(f"loss {fraction * 100:g}%{SCOPES.get(scope, scope)}")}</text>')
    failed = set(snap.get("failed", []))
    bcast = snap.get("bcast") or {}
    ranks = {h: r for r, h in enumerate(bcast.get("hosts", []))}
    members: dict[str, list[str]] = {}
    for g, info in groups.items():
        for m in sorted(set(info["members"]) | set(info.get("range", []))):
            members.setdefault(m, []).append(g)
    for sw in topo["switches"]:
        x, y = pos[sw]
        out.append(f'<g class="node switch" {attrs(data_name=sw)}>'
                   f'<rect x="{x - 18:.1f}" y="{y - 12:.1f}" width="36" height="24" rx="4" '
                   f'fill="#e8eef7" stroke="#456"/><text x="{x:.1f}" y="{y + 4:.1f}" '
                   f'text-anchor="middle">{escape(sw)}</text></g>')
    for h in topo["hosts"]:
        name = h["name"]
        x, y = pos[name]
        dead = name in failed
        rings = "".join(f'<circle class="member{_ranged(groups[g], name)}" '
                        f'{attrs(data_group=g, data_host=name)} '
                        f'cx="{x:.1f}" cy="{y:.1f}" r="{16 + 4 * i}" fill="none" '
                        f'stroke="{colour[g]}" stroke-width="3"'
                        f'{_dashed(groups[g], name)}/>'
                        for i, g in enumerate(members.get(name, [])))
        cross = (f'<path d="M {x - 10:.1f} {y - 10:.1f} L {x + 10:.1f} {y + 10:.1f} '
                 f'M {x - 10:.1f} {y + 10:.1f} L {x + 10:.1f} {y - 10:.1f}" stroke="#b00" '
                 'stroke-width="3"/>' if dead else "")
        out.append(f'<g class="node host{" failed" if dead else ""}" {attrs(data_name=name)}>'
                   f'{rings}<circle cx="{x:.1f}" cy="{y:.1f}" r="12" '
                   f'fill="{"#f99" if dead else "#fff"}" stroke="#333"/>{cross}'
                   f'<text x="{x:.1f}" y="{y + 30 + 4 * len(members.get(name, [])):.1f}" '
                   f'text-anchor="middle">{escape(name)}</text>'
                   f'{_rank(bcast, ranks, name, x, y + 43 + 4 * len(members.get(name, [])))}'
                   f'<title>{escape(name)} {escape(h.get("ip", ""))}</title></g>')
    y = height + LEGEND_LINE
    head = (f"{topo['name']}: {len(topo['hosts'])} hosts, {len(topo['switches'])} switches, "
            f"links {_rate(usual)}" + (" unless marked" if len(rates) > 1 else ""))
    if failed:
        head += "; failed: " + ", ".join(sorted(failed, key=_natural))
    if snap.get("error"):
        head += f"; {snap['error']}"
    out.append(f'<text class="legend" x="{MARGIN:g}" y="{y:.1f}">{escape(head)}</text>')
    for cls, indent, text in said:
        y += LEGEND_LINE
        out.append(f'<text class="legend {cls}" x="{MARGIN + indent:g}" y="{y:.1f}">'
                   f'{escape(text)}</text>')
    for g, info in groups.items():
        y += LEGEND_LINE
        who = ", ".join(sorted(info["members"], key=_natural)) or "none"
        span = info.get("range")
        text = (f"{g}  range multicast to {span[0]}..{span[-1]}" if span
                else f"{g}  members: {who}")
        out.append(f'<text class="legend" {attrs(data_group=g)} x="{MARGIN:g}" y="{y:.1f}" '
                   f'fill="{colour[g]}">{escape(text)}</text>')
        for src, d in info["sources"].items():
            y += LEGEND_LINE
            what = (f"tree over {len(d.get('links', []))} links" if d["kind"] == "tree"
                    else f"{d['kind']} ({d.get('reason', '')})")
            out.append(f'<text class="legend" x="{MARGIN + 16:g}" y="{y:.1f}" '
                       f'fill="{colour[g]}">{escape(f"from {src}: {what}")}</text>')
    for cls, text in panel:
        y += LEGEND_LINE
        fill = ' fill="#b00"' if "flagged" in cls.split() else ""
        out.append(f'<text class="{cls}" x="{MARGIN:g}" y="{y:.1f}"{fill}>'
                   f'{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


SHOWN_RECORDS = 6  # the panel's last points written (the snapshot has them all)
SHOWN_PROBES = 3  # the panel's last rungs of the operating point's probe


def run_panel(run: dict[str, Any] | None) -> list[tuple[str, str]]:
    """A spec run's lines under the legend, each (class, text): the run's progress, the
    point being measured and its traffic, the probe's last rungs (their points and
    verdicts), the points written last with their flags."""
    if not run:
        return []
    lines = [("run-status", f"{run['spec']}: {run['done']} of {run['total']} points; "
                            f"{run['status']}")]
    point = run.get("point")
    if point and run.get("network"):
        lines.append(("run-point", f"measuring {point['algorithm']} {point['size']} B on "
                                   f"{point['hosts']} hosts | {point['condition']}"))
        if point.get("traffic"):
            t = point["traffic"]
            n = len(t.get("flows") or [])
            drawn = f"; its {n} flows dashed" if n else ""
            lines.append(("run-traffic", f"background traffic {t['name']}: {t['pattern']}, "
                                         f"load {t['load']:g} of each host's link{drawn}"))
    for rung in run.get("probes", [])[-SHOWN_PROBES:]:
        lines.append(("run-probe", f"probe at {rung['mbit']:g} Mbit/s: "
                                   f"{'; '.join(rung['points'])}: "
                                   f"{rung['verdict'] or 'measuring'}"))
    records = run.get("records", [])
    flagged = sum(bool(r["flags"]) for r in records)
    if records:
        lines.append(("run-records", f"{len(records)} point(s) written, {flagged} flagged"
                      + (f"; the last {SHOWN_RECORDS}:" if len(records) > SHOWN_RECORDS
                         else ":")))
    for r in records[-SHOWN_RECORDS:]:
        said = "; ".join(r["flags"]) if r["flags"] else "no flags"
        cls = "run-record flagged" if r["flags"] else "run-record"
        lines.append((cls, f"  {r['algorithm']} {r['size']} B, {r['hosts']} hosts: "
                           f"{r['status']}, {said}"))
    return lines


def _flows(run: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The background traffic's flows of the point being measured (while a network is up)."""
    point = (run or {}).get("point") if (run or {}).get("network") else None
    return list(((point or {}).get("traffic") or {}).get("flows") or [])


CHAR = 5.3  # px a character of the legend takes, about (11 px sans-serif): for wrapping


def _bcast_legend(bcast: dict[str, Any] | None, width: float) -> list[tuple[str, float, str]]:
    """The legend's lines on the last broadcast, each (class, indent, text), wrapped to the
    picture's width: what it was, how long it took, what is drawn of it, its tree."""
    if not bcast:
        return []
    model = f", model {_us(bcast.get('predicted_s'))}" if bcast.get("predicted_s") else ""
    head = (f"last broadcast: {bcast['algorithm']} {bcast['size']} B from "
            f"{bcast['hosts'][0]} to {len(bcast['hosts'])} hosts, t_mcast median "
            f"{_us(bcast['t_mcast_s'])}{model}")
    drawn = "under each host: its rank, when it held the message" + (
        "; black dotted: the links one broadcast used" if bcast.get("links") else "")
    tree = bcast.get("tree")
    if not tree:
        what = "its tree: not known"
    elif not tree.get("sends"):
        what = f"its tree: {tree['note']}"
    else:
        what = (f"its tree: {len(tree['sends'])} sends, black arrows along their routes, each "
                f"labelled with the parent's send order (2 from h0: h0's second): "
                f"{tree['note']}")
    chars = max(40, int((width - 2 * MARGIN - 16) / CHAR))
    return [("bcast", 0.0, head)] + [
        (cls, 16.0, line) for cls, text in (("bcast", drawn), ("bcast-tree", what))
        for line in textwrap.wrap(text, chars)]


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.0f} us"


def _rank(bcast: dict[str, Any], ranks: dict[str, int], host: str, x: float, y: float
          ) -> str:
    """Under a host of the last broadcast: its rank and when it held the message."""
    if host not in ranks:
        return ""
    r = ranks[host]
    done = bcast.get("done_s") or []
    when = _us(done[r]) if r < len(done) else "-"
    text = f"rank {r} (root)" if r == 0 else f"rank {r}: {when}"
    return (f'<text class="bcast-rank" {attrs(data_host=host, data_rank=r)} x="{x:.1f}" '
            f'y="{y:.1f}" text-anchor="middle" font-size="9" fill="#444">'
            f'{escape(text)}</text>')


def _ranged(info: dict[str, Any], host: str) -> str:
    """" range" for a host a range multicast reaches by its node range, not by a join."""
    return " range" if host in info.get("range", []) and host not in info["members"] else ""


def _dashed(info: dict[str, Any], host: str) -> str:
    return ' stroke-dasharray="4 3"' if _ranged(info, host) else ""
