"""Switch ports: their names (Mininet's), the link each host hangs on, and the kind of port
that faces hosts (AF_XDP where the machine allows, else AF_PACKET; plain veths on kernel
bridges), checked before and after the switches open them."""

from __future__ import annotations

import json
import os
from typing import Any

from topologies import Topology

from ..errors import CapabilityError
from .environment import AFXDP_PORT, Capabilities

# The switch ports that face hosts: AF_XDP where the machine allows (auto), or as asked.
PORT_TYPES = ("auto", "afxdp", "af_packet")
PORTS_ENV = "MCASTLAB_PORTS"
LINUX_BRIDGE_PORT = "linux-bridge"  # host_ports of a run on kernel bridges: plain veths


def intf_name(node: str, port: int) -> str:
    """Interface of a node's port: h3-eth0, s2-eth4 (Mininet's naming)."""
    return f"{node}-eth{port}"


def host_port_type(caps: Capabilities, ports: str | None = None) -> str:
    """What `ports` (PORT_TYPES; default $MCASTLAB_PORTS, else auto) gives on this machine:
    AFXDP_PORT, 'af_packet' (userspace default) or 'system' (kernel datapath); a choice
    the machine cannot serve is a CapabilityError naming what is missing."""
    ports = ports or os.environ.get(PORTS_ENV) or "auto"
    if caps.datapath == "kernel":
        if ports == "afxdp":
            raise CapabilityError("AF_XDP ports serve OVS's userspace datapath; this "
                                  "machine runs the kernel datapath")
        return "system"
    if ports == "af_packet" or (ports == "auto" and not caps.afxdp):
        return "af_packet"
    if not caps.afxdp:
        missing = [what for what, have in (
            ("XDP sockets (CONFIG_XDP_SOCKETS)", caps.xdp_sockets),
            (f"OVS's {AFXDP_PORT} interface type", caps.ovs_afxdp),
            ("IFB with ingress redirect (CONFIG_IFB, act_mirred, cls_u32)",
             caps.ingress_shaping)) if not have]
        raise CapabilityError("AF_XDP switch ports need " + ", ".join(missing)
                              + f"; use ports 'auto' or 'af_packet' ({PORTS_ENV})")
    return AFXDP_PORT


def host_links(topo: Topology) -> dict[str, tuple[str, Any]]:
    """Host name -> (the switch end of its link, e.g. s1-eth3; the link)."""
    out = {}
    for lk in topo.links:
        for host, sw, port in ((lk.node1, lk.node2, lk.port2), (lk.node2, lk.node1, lk.port1)):
            if topo.is_host(host) and not topo.is_host(sw):
                out[host] = (intf_name(sw, port), lk)
    return out


def switch_side(topo: Topology) -> dict[str, tuple[str, float | None]]:
    """Host name -> (the switch end of its link, the link's configured Mbit/s)."""
    return {h: (end, lk.params.bw_mbit) for h, (end, lk) in host_links(topo).items()}


def check_xdp_ports(intfs: set[str], server: Any) -> None:
    """Every AF_XDP port came up (OVS names an interface it could not open in `error`)."""
    out = server.run(["ovs-vsctl", "--format=json", "--columns=name,ofport,error", "list",
                      "Interface"]).stdout
    bad = []
    for name, ofport, error in json.loads(out)["data"]:
        if name in intfs and (error not in ("", ["set", []]) or not isinstance(ofport, int)
                              or ofport <= 0):
            bad.append(f"{name}: {error if isinstance(error, str) else 'no port number'}")
    if bad:
        raise CapabilityError(f"OVS could not open AF_XDP ports ({'; '.join(sorted(bad)[:3])}); "
                              f"run with {PORTS_ENV}=af_packet")
