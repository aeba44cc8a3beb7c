"""The tunnel guard of a run across servers: an nftables table (inet family, the run's name)
on every server that drops VXLAN datagrams, and on the controller's server OpenFlow
connections, from any address but the cluster's servers.

A VXLAN device takes a datagram to its port by the VNI alone, whatever its source (`remote`
is where it sends, not whom it hears), and puts the frame inside on the switch: anyone who
reaches a server's UDP 4789 reaches the emulated hosts and their unauthenticated MPI. The
devices are made without learning (nolearning: no forwarding entry from a datagram's source),
and this table drops what does not come from a peer before the tunnel sees it. gretap needs
no guard: the kernel hands a GRE packet to a gretap device only from that device's remote.
The table goes with the run (cleanup deletes every family's table of the run).
"""

from __future__ import annotations

import ipaddress

from ..emulation.linkshape import nft_table

VXLAN_PORT = 4789  # IANA's
FAMILY = "inet"
CHAIN = "guard"


def guard_script(run_id: str, peers: list[str], vxlan: bool,
                 openflow_port: int | None = None) -> str:
    """An `nft -f` script (one transaction) making the run's guard on one server: `peers`
    are every server's address; `openflow_port` the controller's, on its server only."""
    for peer in peers:
        ipaddress.IPv4Address(peer)  # ValueError for anything else
    table = nft_table(run_id)
    allowed = "{ " + ", ".join(sorted(set(peers))) + " }"
    lines = [f"add table {FAMILY} {table}",
             f"add chain {FAMILY} {table} {CHAIN} {{ type filter hook input priority -10 ; "
             "policy accept ; }",
             f"flush chain {FAMILY} {table} {CHAIN}"]
    ports = ([f"udp dport {VXLAN_PORT}"] if vxlan else []) + \
        ([f"tcp dport {openflow_port}"] if openflow_port else [])
    for match in ports:
        lines.append(f"add rule {FAMILY} {table} {CHAIN} meta nfproto ipv4 {match} "
                     f"ip saddr != {allowed} counter drop")
        lines.append(f"add rule {FAMILY} {table} {CHAIN} meta nfproto ipv6 {match} "
                     "counter drop")  # the cluster speaks IPv4
    return "\n".join(lines) + "\n"
