"""The control network of a run on one machine: a management Ethernet beside the data fabric,
as real clusters have. Every emulated host gets a second interface, `<host>-ctl`, unshaped,
on one Linux bridge of the run in the root namespace (`BRIDGE`, marked with the run id as
the linux-bridge switches are, so cleanup finds it), with an address of `SUBNET`.

What it is for: MPI job start-up. hydra's mpiexec runs in the first rank's host and its
proxies reach it over this network (testbed.emulation.mpi), so the PMI key-value exchange
(every rank's business card to every proxy: N x N x ~4 KB) no longer crosses that host's
shaped data link. What never uses it: MPI data (each rank's UCX is confined to its host's
data interface, UCX_NET_DEVICES) and multicast (the hosts' 224.0.0.0/4 route names the data
interface; there is no default route). The bridge has no address and does not hand frames
to the root namespace's netfilter: the root namespace stays unreachable from hosts.

This module says the names and addresses and makes the pieces; Emulation records and
builds it, LinkSetup gives each host its address, cleanup removes it with the run's other
bridges and veths. Across servers there is none (a host's control interface would need a
tunnel of its own): the proxies reach mpiexec over the data network there, as before.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from ..errors import UsageError

BRIDGE = "mcastlab-ctl"
# Clear of the hosts' 10.0.0.0/8 and of the two-server rig's 198.18.0.0/30 (both RFC 2544's
# benchmarking range 198.18.0.0/15 and the rig's link are outside every real network too).
SUBNET = ipaddress.IPv4Network("198.18.128.0/17")
HOST_SUFFIX = "-ctl"
ROOT_PREFIX = "ctl-"


def host_intf(host: str) -> str:
    """The host's control interface (in its namespace): h3-ctl."""
    return f"{host}{HOST_SUFFIX}"


def root_intf(host: str) -> str:
    """The bridge's end of the host's control veth (root namespace): ctl-h3."""
    return f"{ROOT_PREFIX}{host}"


def address(node_id: int) -> str:
    """The control address of the host of this node id (from .1 up, as its data address
    is derived from the id: topologies.model.host_ip)."""
    if not 0 <= node_id < SUBNET.num_addresses - 2:
        raise UsageError(f"the control network {SUBNET} has room for "
                         f"{SUBNET.num_addresses - 2} hosts")
    return str(SUBNET.network_address + node_id + 1)


def interfaces(hosts: Sequence[str]) -> list[str]:
    """The root-namespace interfaces of the control network (the run records them)."""
    return [root_intf(h) for h in hosts]


def bridge_batch(run_id: str, hosts: Sequence[tuple[str, int]], mark: str) -> str:
    """`ip -batch` lines making the bridge (marked `mark`=run id, no STP, no netfilter on
    bridged frames, no address) and one veth per (host name, host shell pid), its host end
    moved into the host, its bridge end enslaved and up."""
    lines = [f"link add name {BRIDGE} type bridge stp_state 0 mcast_snooping 0 "
             "nf_call_iptables 0 nf_call_ip6tables 0 nf_call_arptables 0\n",
             f"link set {BRIDGE} alias {mark}={run_id}\n"]
    for name, pid in hosts:
        lines += [f"link add {root_intf(name)} type veth peer name {host_intf(name)} "
                  f"netns {pid}\n",
                  f"link set {root_intf(name)} master {BRIDGE}\n",
                  f"link set {root_intf(name)} up\n"]
    lines.append(f"link set {BRIDGE} up\n")
    return "".join(lines)


def host_cmds(host: str, node_id: int) -> list[str]:
    """Shell commands, in the host, giving its control interface its address (a /17 route
    on it, nothing else: multicast and every other address stay on the data interface)."""
    return [f"ip addr add {address(node_id)}/{SUBNET.prefixlen} dev {host_intf(host)}",
            f"ip link set {host_intf(host)} up"]
