"""Which switch ports facing hosts are AF_XDP ports in one run: the kind asked for (one of
PORT_TYPES, default $MCASTLAB_PORTS, else auto) checked against the switch kind and the
machine, and, across servers, narrowed to the servers that can open AF_XDP sockets."""

from __future__ import annotations

import os

from topologies import Topology

from ..errors import CapabilityError, UsageError
from .environment import AFXDP_PORT, Capabilities
from .ports import LINUX_BRIDGE_PORT, PORT_TYPES, PORTS_ENV, host_links, host_port_type
from .servers import OneMachine


class PortPlan:
    """The host-facing switch ports of one emulation."""

    def __init__(self, asked: str | None, *, kernel_bridges: bool, caps: Capabilities,
                 spread: OneMachine) -> None:
        self.asked = asked or os.environ.get(PORTS_ENV) or "auto"
        if self.asked not in PORT_TYPES:
            raise UsageError(f"switch port type {self.asked!r} (from "
                             f"{'--ports' if asked else PORTS_ENV}) is not one of "
                             f"{', '.join(PORT_TYPES)}")
        if kernel_bridges and asked == "afxdp":
            raise UsageError("AF_XDP switch ports are OVS ports: Linux bridges have none")
        self.kernel_bridges, self.caps, self.spread = kernel_bridges, caps, spread
        self.xdp: set[str] | None = None  # as the servers of a running network allowed

    @property
    def kind(self) -> str:
        """The OVS interface type of the ports (LINUX_BRIDGE_PORT with kernel bridges)."""
        if self.kernel_bridges:
            return LINUX_BRIDGE_PORT
        return host_port_type(self.caps, self.asked)

    def xdp_intfs(self, topo: Topology) -> set[str]:
        """Switch ends of host links that are AF_XDP ports (refuses ports the machine
        cannot give)."""
        if self.kernel_bridges or self.kind != AFXDP_PORT:
            return set()
        if self.xdp is not None:
            return set(self.xdp)
        return {end for end, _lk in host_links(topo).values()}

    def where_possible(self, xdp: set[str]) -> set[str]:
        """Across servers, AF_XDP ports only on the servers that can open them (each one's
        hold says); asked for everywhere (ports 'afxdp'), one that cannot is refused."""
        lacking = set(self.spread.lacking_afxdp()) if xdp else set()
        if lacking and self.asked == "afxdp":
            raise CapabilityError(f"AF_XDP switch ports: {', '.join(sorted(lacking))} cannot "
                                  f"open them; use ports 'auto' or 'af_packet' ({PORTS_ENV})")
        self.xdp = {i for i in xdp if self.spread.server_of(i.split("-")[0]) not in lacking}
        return set(self.xdp)
