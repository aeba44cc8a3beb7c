"""Pure descriptions of emulated networks (no Mininet): shapes, routing rules, files.

    from topologies import parse_spec
    topo = parse_spec("mesh:rows=4,cols=4,bw=10")     # or build("mesh", rows=4, cols=4, bw=10)
    topo.next_hops()["s1"]["h5"]                       # output port of s1 towards h5
    topo.save("results/topology.json")                 # read back with Topology.load_json

Shapes: star, tree, fattree (k-ary n-tree), mesh, torus, bmin, and hand-written TOML/JSON
files (see topologies.spec_file). Routing rules: shortest, xy, updown (see topologies.routing).
Only the standard library and networkx are used here.
"""

from topologies.bmin import bmin
from topologies.errors import TopologyError
from topologies.fattree import fattree
from topologies.grid import mesh, torus
from topologies.model import FORMAT, HOST_PORT, Host, Link, LinkParams, Switch, Topology
from topologies.registry import SHAPES, build, parse_spec, shape_parameters, split_spec
from topologies.routing import ROUTINGS
from topologies.spec_file import load_topology_file
from topologies.star import star
from topologies.tree import tree

__all__ = [
    "FORMAT", "HOST_PORT", "ROUTINGS", "SHAPES", "Host", "Link", "LinkParams", "Switch",
    "Topology", "TopologyError", "bmin", "build", "fattree", "load_topology_file", "mesh",
    "parse_spec", "shape_parameters", "split_spec", "star", "torus", "tree",
]
