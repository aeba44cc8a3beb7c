"""A multicast group's forwarding tree drawn on the network (`tree GROUP FILE.png` in
`mcastlab net`): every link grey, the links the controller forwards the group on as arrows,
members marked."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from topologies.model import Topology

from ..safepath import make_folder
from .figures import pyplot


def draw_tree(topo: Topology, edges: set[tuple[str, str]], members: set[str], path: Path,
              title: str = "") -> None:
    """Write a PNG (or any format matplotlib knows by the suffix) of `edges` on `topo`."""
    plt = pyplot()

    graph = topo.graph()
    pos = nx.spring_layout(graph, seed=0)  # numpy only (kamada_kawai would need scipy)
    fig, ax = plt.subplots(figsize=(8, 6))
    hosts = [n for n in graph if topo.is_host(n)]
    switches = [n for n in graph if not topo.is_host(n)]
    nx.draw_networkx_edges(graph, pos, ax=ax, edge_color="#cccccc")
    nx.draw_networkx_nodes(graph, pos, nodelist=switches, node_shape="s", node_color="#9ecae1",
                           ax=ax)
    nx.draw_networkx_nodes(graph, pos, nodelist=hosts, ax=ax, node_color=[
        "#31a354" if h in members else "#eeeeee" for h in hosts])
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=8)
    tree = nx.DiGraph(list(edges))
    nx.draw_networkx_edges(tree, pos, ax=ax, edge_color="#e6550d", width=2.5, arrows=True,
                           arrowsize=15)
    ax.set_title(f"{title}: forwarding tree (orange), members (green)" if title else "")
    ax.axis("off")
    fig.tight_layout()
    make_folder("results folder", path.parent)
    fig.savefig(path, dpi=100)
    plt.close(fig)
