"""Discovery mode of the controller (no topology file): LLDP finds the links, ARP and IP
traffic on edge ports find the hosts; `Discovered` turns them into a Topology."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import lldp
from .compat import MAIN_DISPATCHER, hub, ofp_event, set_ev_cls
from .forwarding import ETH_TYPE_ARP, ETH_TYPE_IPV4
from .ofutil import LLDP_PERIOD, packet_out

if TYPE_CHECKING:
    from topologies import Topology

    from .discovered_network import Discovered


class DiscoveryMixin:
    """Needs from the app: discovery, datapaths, counters, logger, _last_connect,
    _set_topology."""

    if TYPE_CHECKING:  # what the app provides, as the type checker is to see it
        discovery: Discovered | None
        datapaths: dict[int, Any]
        counters: Counter[str]
        logger: logging.Logger
        _last_connect: float

        def _set_topology(self, topo: Topology) -> None: ...
        def _guarded(self, loop: str, step: Callable[[], None]) -> None: ...

    def _on_discovery_frame(self, dp: Any, in_port: int, data: bytes) -> bool:
        """LLDP and ARP in discovery mode (learn links and hosts); True when consumed.
        IGMP and IPv4 multicast from unknown hosts also teach the controller a host."""
        assert self.discovery is not None
        eth_type = int.from_bytes(data[12:14], "big") if len(data) >= 14 else 0
        if eth_type == lldp.ETH_TYPE_LLDP:
            other = lldp.parse(data)
            if other is None or other[0] not in self.datapaths:
                self.counters["lldp_foreign"] += 1
            elif self.discovery.add_link(other, (dp.id, in_port)):
                self.logger.info("link s%d:%d - s%d:%d", other[0], other[1], dp.id, in_port)
                self._rediscover()
            return True
        if eth_type == ETH_TYPE_ARP and len(data) >= 42:
            sender_mac = ":".join(f"{b:02x}" for b in data[22:28])
            sender_ip = ".".join(map(str, data[28:32]))
            target_ip = ".".join(map(str, data[38:42]))
            if time.monotonic() - self._last_connect > 2 * LLDP_PERIOD and \
                    self.discovery.learn_host(sender_ip, sender_mac, (dp.id, in_port)):
                self._rediscover()
            self._deliver(dp.id, in_port, target_ip, data, flood=True)
            return True
        if eth_type == ETH_TYPE_IPV4 and len(data) >= 34 and \
                time.monotonic() - self._last_connect > 2 * LLDP_PERIOD:
            src_ip = ".".join(map(str, data[26:30]))
            if src_ip not in self.discovery.hosts and self.discovery.learn_host(
                    src_ip, ":".join(f"{b:02x}" for b in data[6:12]), (dp.id, in_port)):
                self._rediscover()
        return False

    def _rediscover(self) -> None:
        assert self.discovery is not None
        topo = self.discovery.topology()
        if topo is not None:
            self._set_topology(topo)
            self.logger.info("network now %d switches, %d hosts", len(topo.switches),
                             len(topo.hosts))

    def _deliver(self, dpid: int, in_port: int, target_ip: str, data: bytes,
                 flood: bool = False) -> None:
        """Straight to the target host's port if it is known; else, with `flood`, to every
        edge port (never between switches, so no loops)."""
        assert self.discovery is not None
        known = self.discovery.hosts.get(target_ip)
        ports = [known[1]] if known else self.discovery.edge_ports() if flood else []
        by_dp: dict[int, list[int]] = {}
        for d, p in ports:
            if (d, p) != (dpid, in_port):
                by_dp.setdefault(d, []).append(p)
        for d, plist in by_dp.items():
            dp = self.datapaths.get(d)
            if dp is not None:
                packet_out(dp, plist, data)

    @set_ev_cls(ofp_event.EventOFPPortDescStatsReply, MAIN_DISPATCHER)
    def on_port_desc(self, ev: Any) -> None:
        if self.discovery is None:
            return
        dp = ev.msg.datapath
        ports = {p.port_no for p in ev.msg.body if p.port_no < dp.ofproto.OFPP_MAX}
        self.discovery.ports.setdefault(dp.id, set()).update(ports)

    def _lldp_loop(self) -> None:
        while True:
            self._guarded("lldp", self._lldp_step)
            hub.sleep(LLDP_PERIOD)

    def _lldp_step(self) -> None:
        assert self.discovery is not None
        for dpid, dp in list(self.datapaths.items()):
            for port in sorted(self.discovery.ports.get(dpid, ())):
                packet_out(dp, [port], lldp.frame(dpid, port))
