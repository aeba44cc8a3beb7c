"""A tunnel end between two servers as text: the `ip -batch` lines that make it (vxlan or
gretap) and its MTU. Pure, no Mininet: cluster/nodes.py (which imports Mininet Cluster
Edition) makes the links with them, and cluster/spread.py tells the hosts the MTU."""

from __future__ import annotations

from .guard import VXLAN_PORT

TUNNEL_MTU = 1450  # 1500 less gretap's or VXLAN's 50 bytes (outer IP, UDP/GRE, headers)


def tunnel_batch(kind: str, name: str, local: str, remote: str, key: int,
                 mac: str | None = None) -> str:
    """`ip -batch` lines making one end of a tunnel (in its server's root namespace, where
    the switch opens it as a port)."""
    if kind == "gretap":
        add = f"link add name {name} type gretap local {local} remote {remote} ttl 64 key {key}"
    elif kind == "vxlan":
        add = (f"link add name {name} type vxlan id {key} local {local} remote {remote} "
               f"dstport {VXLAN_PORT} nolearning")  # (testbed.cluster.guard)
    else:
        raise ValueError(f"unknown tunnel kind {kind!r}")
    lines = [add, f"link set {name} mtu {TUNNEL_MTU}"]
    if mac:
        lines.append(f"link set {name} address {mac}")
    return "\n".join([*lines, f"link set {name} up"]) + "\n"
