"""Mininet's spellings, read as ours: the topologies `mn --topo` takes (single,N; linear,N;
tree,depth=D,fanout=F; torus,X,Y; minimal) become the shape that has the same switches,
hosts and cables, and `mn --link tc,bw=,delay=,loss=` becomes our link rate, delay and
loss. The table and where ours differ are in docs/cli.md; the shapes are registry.py's."""

from __future__ import annotations

import re
from typing import Any

from topologies.errors import TopologyError

# Mininet's topology classes: their parameters in order, and their defaults (mininet/topo.py)
PARAMETERS = {"minimal": (), "single": ("k",), "linear": ("k", "n"),
              "tree": ("depth", "fanout"), "torus": ("x", "y", "n")}
DEFAULTS: dict[str, dict[str, int]] = {"minimal": {}, "single": {"k": 2},
                                       "linear": {"k": 2, "n": 1},
                                       "tree": {"depth": 1, "fanout": 2},
                                       "torus": {"x": 3, "y": 3, "n": 1}}


# Mininet's names that are our shapes too: bare, they stay ours (tree:leaves=2,...; a 4x4
# torus); only with Mininet's comma they are Mininet's
OURS = ("tree", "torus")


def _arguments(name: str, parts: list[str], spec: str) -> dict[str, int]:
    """Mininet's positional and key=value arguments of topology `name`, as whole numbers."""
    values = dict(DEFAULTS[name])
    order = PARAMETERS[name]
    for i, part in enumerate(parts):
        key, sep, text = part.partition("=")
        if not sep:
            if i >= len(order):
                raise TopologyError(f"{spec}: Mininet's {name} takes "
                                    f"{', '.join(order) or 'no arguments'}")
            key, text = order[i], part
        key = key.strip()
        if key not in order:
            raise TopologyError(f"{spec}: Mininet's {name} has no parameter {key!r} "
                                f"(it takes {', '.join(order) or 'none'})")
        try:
            values[key] = int(text)
        except ValueError:
            raise TopologyError(f"{spec}: {key} must be a whole number, got {text!r}") from None
        if values[key] < 1:
            raise TopologyError(f"{spec}: {key} must be >= 1, got {values[key]}")
    return values


def mininet_topology(spec: str) -> str | None:
    """Our spelling of Mininet's topology `spec` (None when `spec` is not one of them:
    ours, like a bare 'tree' or 'torus' or 'tree:leaves=2', stays ours).

    single,N = one switch with N hosts: star:hosts=N. minimal = single,2. linear,N = N
    switches in a chain, a host on each: mesh:rows=1,cols=N. tree,depth=D,fanout=F: depth 1
    is single,F; depth 2 a root switch over F switches of F hosts: tree:leaves=F,
    hosts_per_leaf=F. torus,X,Y = an X by Y torus of switches, a host on each:
    torus:rows=X,cols=Y. TopologyError for what ours cannot build faithfully (a deeper tree,
    several hosts on a linear or torus switch)."""
    text = spec.strip()
    name, comma, rest = text.partition(",")
    name = name.strip()
    if ":" in text or name not in PARAMETERS or (not comma and name in OURS):
        return None
    v = _arguments(name, [p.strip() for p in rest.split(",")] if comma else [], text)
    if name in ("linear", "torus") and v["n"] != 1:
        raise TopologyError(f"{text}: {v['n']} hosts on each switch; ours have one (mesh and "
                            "torus: one host per switch)")
    if name == "minimal":
        return "star:hosts=2"
    if name == "single":
        return f"star:hosts={v['k']}"
    if name == "linear":
        return f"mesh:rows=1,cols={v['k']}"
    if name == "torus":
        if v["x"] < 3 or v["y"] < 3:
            raise TopologyError(f"{text}: Mininet's torus needs x and y of at least 3")
        return f"torus:rows={v['x']},cols={v['y']}"
    if v["depth"] == 1:
        return f"star:hosts={v['fanout']}"
    if v["depth"] == 2:
        return f"tree:leaves={v['fanout']},hosts_per_leaf={v['fanout']}"
    raise TopologyError(f"{text}: our tree has two levels (depth 1: star, depth 2: tree); "
                        "for deeper trees take fattree:k=K,n=N (a k-ary n-tree)")


_DELAY = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(us|ms|s)?\s*")
_SCALE = {"us": 1e-3, "ms": 1.0, "s": 1e3, None: 1.0}


def mininet_link(text: str) -> dict[str, Any]:
    """`mn --link`'s value, as ours: {"bw": Mbit/s, "delay_ms": ms, "loss": fraction}, each
    only where given. 'default' (Mininet's plain veth) is {}; 'tc,...' takes bw=, delay=
    (5ms, 100us, 0.01s; bare: ms) and loss= (a percentage, as Mininet's: loss=1 is 1%).
    TopologyError for another link class or parameter (jitter, max_queue_size, ...)."""
    kind, _, rest = text.strip().partition(",")
    kind = kind.strip()
    if kind == "default" and not rest:
        return {}
    if kind != "tc":
        raise TopologyError(f"--link {text}: Mininet's 'tc,bw=...,delay=...,loss=...' or "
                            "'default'")
    out: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = (s.strip() for s in item.partition("="))
        if key not in ("bw", "delay", "loss"):
            raise TopologyError(f"--link {text}: {key!r} is not taken here (bw, delay and "
                                "loss are)")
        try:
            if not sep:
                raise ValueError
            if key == "bw":
                out["bw"] = float(value)
                if not 0 < out["bw"] < float("inf"):
                    raise ValueError
            elif key == "delay":
                match = _DELAY.fullmatch(value)
                if match is None:
                    raise ValueError
                out["delay_ms"] = float(match.group(1)) * _SCALE[match.group(2)]
            elif key == "loss":
                percent = float(value.removesuffix("%"))
                if not 0 <= percent <= 100:
                    raise ValueError
                out["loss"] = percent / 100
        except ValueError:
            raise TopologyError(f"--link {text}: bad {item!r} (bw=Mbit/s > 0, delay=5ms, "
                                "loss=percent 0-100)") from None
    return out
