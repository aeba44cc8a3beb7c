"""Source and destination sets given by hand for multi-node multicast (pure).

Tseng2001's instance is any {(s_i, D_i)}: the hot-spot model (`hotspot_sets`) draws one, and
these read one a user writes, as text ``"0:1,2,5;3:4,6,7"`` (source:destinations, sets
apart by ';') or as a mapping {source: [destinations]} (a TOML table). A node is named by its
number or its host's name, h3 or 3, as `mcastlab fail` takes a node: host h<i> is node i and
rank i. Unlike the plans, which drop a source from its own set, a hand-written set is checked
strictly, each fault with its own message: a typo should not measure another workload.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .grid import Grid

Pairs = list[tuple[int, tuple[int, ...]]]
FORM = "SOURCE:DEST,DEST,...;SOURCE:DEST,... (nodes by number or name, 3 or h3)"
_NODE = re.compile(r"h?(0|[1-9][0-9]*)")


def node_of(word: Any, grid: Grid, where: str) -> int:
    """Node `word` (3, "3" or "h3") on `grid`, or a ValueError naming `where`."""
    if isinstance(word, int) and not isinstance(word, bool):
        number: int | None = word
    else:
        match = _NODE.fullmatch(word.strip()) if isinstance(word, str) else None
        number = int(match.group(1)) if match else None
    if number is None or not 0 <= number < grid.size:
        raise ValueError(f"{where}: {word!r} is not a node of the {grid.name} (0..{grid.size - 1}"
                         f" or h0..h{grid.size - 1})")
    return number


def check_sets(grid: Grid, sets: Iterable[tuple[Any, Sequence[Any]]]) -> Pairs:
    """(source, sorted destinations) of every set, in the order given, nodes read by
    `node_of`; refused: an unknown node, an empty set, a destination twice, a source in its
    own set, a source with two sets, no set at all."""
    out: Pairs = []
    seen: dict[int, int] = {}
    for i, (src, dests) in enumerate(sets, 1):
        where = f"set {i}"
        source = node_of(src, grid, where)
        if source in seen:
            raise ValueError(f"{where}: source {source} already has set {seen[source]}; give "
                             "each source one set")
        seen[source] = i
        nodes = [node_of(d, grid, f"{where} (source {source})") for d in dests]
        if not nodes:
            raise ValueError(f"{where}: source {source} has no destinations")
        if source in nodes:
            raise ValueError(f"{where}: source {source} lists itself as a destination")
        twice = sorted({n for n in nodes if nodes.count(n) > 1})
        if twice:
            raise ValueError(f"{where} (source {source}): destination {twice[0]} given twice")
        out.append((source, tuple(sorted(nodes))))
    if not out:
        raise ValueError(f"give at least one set: {FORM}")
    return out


def parse_sets(text: str, grid: Grid) -> Pairs:
    """The sets of `text` ("0:1,2,5;3:4,6,7"), checked by `check_sets`."""
    sets = []
    for i, item in enumerate((w for w in text.split(";") if w.strip()), 1):
        source, colon, dests = item.partition(":")
        if not colon or not source.strip():
            raise ValueError(f"set {i} ({item.strip()!r}): write {FORM}")
        sets.append((source, [d for d in dests.split(",") if d.strip()]))
    return check_sets(grid, sets)


def sets_of_mapping(table: Mapping[str, Any], grid: Grid, where: str = "sets") -> Pairs:
    """The sets of a mapping {source: [destinations]} (a TOML table: keys are text, h3 or 3;
    destinations numbers or names), checked by `check_sets`."""
    sets = []
    for key, dests in table.items():
        if not isinstance(dests, list):
            raise ValueError(f"{where}.{key}: a list of destinations, got {dests!r}")
        sets.append((key, dests))
    return check_sets(grid, sets)


def sets_text(pairs: Iterable[tuple[int, Iterable[int]]]) -> str:
    """The text form of `pairs`, numbers only: what `parse_sets` reads back."""
    return ";".join(f"{s}:{','.join(map(str, d))}" for s, d in pairs)
