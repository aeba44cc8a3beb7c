"""The tunnel guard of a run across servers: an nftables table (inet family, the run's name)
on every server, with two chains.

- `guard` (input hook) drops VXLAN datagrams, and on the controller's server OpenFlow
  connections, from any address but the cluster's servers. A VXLAN device takes a datagram
  to its port by the VNI alone, whatever its source (`remote` is where it sends, not whom it
  hears), and puts the frame inside on the switch: anyone who reaches a server's UDP 4789
  reaches the emulated hosts and their unauthenticated MPI. The devices are made without
  learning (nolearning: no forwarding entry from a datagram's source).
- `guard_out` (output hook) drops what a non-root user's socket on a server sends to the
  tunnels' port (UDP 4789; for gretap, GRE) or to the controller's OpenFlow port: such a
  user sends from a server's own address, which the input chain admits. `meta skuid != 0`
  matches a packet whose socket belongs to a user other than root; a packet with no socket
  of a user (the kernel's own: a tunnel's datagram that Open vSwitch, root, sent into the
  device, or the kernel's replies) has no skuid, and the rule does not match it. So only
  root's sockets and the kernel reach another server's tunnels or the controller.

Root is trusted: it can change the table, the switches and the controller anyway. The table
goes with the run (cleanup deletes every family's table of the run).
"""

from __future__ import annotations

import ipaddress

from ..emulation.linkshape import nft_table

VXLAN_PORT = 4789  # IANA's
FAMILY = "inet"
CHAIN = "guard"
CHAIN_OUT = "guard_out"
NOT_ROOT = "meta skuid != 0"  # a socket of a user other than root (none: not matched)


def guard_script(run_id: str, peers: list[str], tunnel: str,
                 openflow_port: int | None = None, controller_here: bool = True) -> str:
    """An `nft -f` script (one transaction) making the run's guard on one server: `peers`
    are every server's address, `tunnel` the run's kind ("vxlan" or "gretap"),
    `openflow_port` the controller's (on every server: each one's switches reach it, and
    only root's sockets may), `controller_here` whether it listens on this server (its
    input rule goes there only)."""
    if tunnel not in ("vxlan", "gretap"):
        raise ValueError(f"unknown tunnel kind {tunnel!r}")
    for peer in peers:
        ipaddress.IPv4Address(peer)  # ValueError for anything else
    if openflow_port is not None and not 0 < openflow_port < 65536:
        raise ValueError(f"OpenFlow port {openflow_port} is not a port")
    table = nft_table(run_id)
    allowed = "{ " + ", ".join(sorted(set(peers))) + " }"
    lines = [f"add table {FAMILY} {table}"]
    for chain, hook in ((CHAIN, "input"), (CHAIN_OUT, "output")):
        lines += [f"add chain {FAMILY} {table} {chain} {{ type filter hook {hook} "
                  "priority -10 ; policy accept ; }",
                  f"flush chain {FAMILY} {table} {chain}"]
    vxlan = tunnel == "vxlan"
    heard = ([f"udp dport {VXLAN_PORT}"] if vxlan else []) + \
        ([f"tcp dport {openflow_port}"] if openflow_port and controller_here else [])
    for match in heard:
        lines.append(f"add rule {FAMILY} {table} {CHAIN} meta nfproto ipv4 {match} "
                     f"ip saddr != {allowed} counter drop")
        lines.append(f"add rule {FAMILY} {table} {CHAIN} meta nfproto ipv6 {match} "
                     "counter drop")  # the cluster speaks IPv4
    sent = [f"udp dport {VXLAN_PORT}" if vxlan else "meta l4proto gre"] + \
        ([f"tcp dport {openflow_port}"] if openflow_port else [])
    for match in sent:
        lines.append(f"add rule {FAMILY} {table} {CHAIN_OUT} {match} {NOT_ROOT} counter drop")
    return "\n".join(lines) + "\n"
