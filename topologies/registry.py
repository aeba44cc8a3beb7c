"""Shape registry: build a topology by name, or from a spec string such as "mesh:rows=4,cols=4"
(or Mininet's spelling of one, "single,4": topologies.mininet)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from topologies.bmin import bmin
from topologies.errors import TopologyError
from topologies.fattree import fattree
from topologies.grid import mesh, torus
from topologies.mininet import mininet_topology
from topologies.model import Topology
from topologies.spec_file import is_topology_file, load_topology_file
from topologies.star import star
from topologies.tree import tree

SHAPES: Mapping[str, Callable[..., Topology]] = MappingProxyType({
    "star": star, "tree": tree, "fattree": fattree, "mesh": mesh, "torus": torus, "bmin": bmin,
})


def shape_parameters(shape: str) -> list[str]:
    """The parameter names a shape's builder accepts, in signature order."""
    return list(inspect.signature(_builder(shape)).parameters)


def _builder(shape: str) -> Callable[..., Topology]:
    if shape not in SHAPES:
        raise TopologyError(f"unknown topology shape {shape!r}; choose from "
                            f"{', '.join(SHAPES)} or a .toml/.json topology file")
    return SHAPES[shape]


def build(shape: str, **params: Any) -> Topology:
    """Build a named shape; unknown parameters are refused with the valid ones listed."""
    valid = shape_parameters(shape)
    for key in params:
        if key not in valid:
            raise TopologyError(f"unknown parameter {key!r} for shape {shape!r}; "
                                f"valid parameters are {', '.join(valid)}")
    return _builder(shape)(**params)


def _value(text: str) -> Any:
    """int, else float, else None for "none"/"unlimited", else the text itself."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return None if text.lower() in ("none", "unlimited") else text


def split_spec(spec: str, **given: Any) -> tuple[str, dict[str, Any]]:
    """"shape:key=val,..." -> (shape, {key: value}), values as parse_spec reads them
    (ints, floats, None for "none"/"unlimited", other text as is), with the parameters
    `given` as values added (one written in the text too is refused). Mininet's spellings
    (single,4; linear,4; tree,depth=2,fanout=2) are read as ours (topologies.mininet)."""
    spec = mininet_topology(spec) or spec.strip()
    shape, _, rest = spec.partition(":")
    shape = shape.strip()
    _builder(shape)
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key or not text:
            raise TopologyError(f"bad parameter {item!r} in topology spec {spec!r}; "
                                "expected key=value")
        if key in params:
            raise TopologyError(f"parameter {key!r} is given twice in topology spec {spec!r}")
        params[key] = _value(text)
    for key, value in given.items():
        if key in params:
            raise TopologyError(f"parameter {key!r} is given twice: {key}={params[key]} in "
                                f"{spec!r} and {value}")
        params[key] = value
    return shape, params


def parse_spec(spec: str, **given: Any) -> Topology:
    """"shape", "shape:key=val,key=val" or the path of a .toml/.json topology file; `given`
    parameters as values (a link rate, a size), not pasted into the text."""
    if is_topology_file(spec.strip()):
        if given:
            raise TopologyError(f"the topology file {spec.strip()} sets its own "
                                f"{', '.join(given)}")
        return load_topology_file(spec.strip())
    shape, params = split_spec(spec, **given)
    return build(shape, **params)
