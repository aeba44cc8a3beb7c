"""The OpenFlow app: unicast along the topology's routing rule, IGMP snooping and querier,
per-(group, source) multicast trees in OpenFlow 1.3 group tables, contiguous-range mode.

Loaded by ``python -m controller`` (os-ken) or ``ryu-manager controller.app`` (Ryu); both
configure it through the environment (see controller.config).
"""

from __future__ import annotations

import heapq
import ipaddress
import itertools
import os
import statistics
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from topologies import Topology

from . import api, igmp, lane, listener, lldp
from .compat import (
    CONFIG_DISPATCHER,
    DEAD_DISPATCHER,
    MAIN_DISPATCHER,
    BaseApp,
    framework_version,
    hub,
    ofp_event,
    ofproto_v1_3,
    set_ev_cls,
)
from .config import ENV_API_SOCKET, ENV_TOPOLOGY, ControllerConfig
from .counters import CountersMixin
from .discovered_network import Discovered
from .discovery_mode import DiscoveryMixin
from .forwarding import ETH_TYPE_ARP, ETH_TYPE_IPV4, unicast_entries
from .membership import Membership
from .multicast import Decision, MulticastPolicy
from .ofutil import (
    COOKIE_LANE,
    COOKIE_MASK,
    COOKIE_MCAST,
    COOKIE_UNICAST,
    LLDP_PERIOD,
    MCAST_NET,
    PRIO_ARP,
    PRIO_IGMP,
    PRIO_LLDP,
    PRIO_MCAST,
    PRIO_MCAST_MISS,
    packet_out,
)
from .querier import Querier

Key = tuple[str, str]  # (group, source host)
REFUSALS_KEPT = 100  # the latest refusals the state shows
UNREGISTERED_TTL = 60.0  # s a decision for a group nobody joined is held (then asked again)
FORGET_EVERY = 1.0  # s between looks for such decisions
LOOP_ERRORS_LOGGED = 5  # exceptions of a timer loop logged whole (all are counted)


class McastlabController(DiscoveryMixin, CountersMixin, BaseApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.config = ControllerConfig.from_env()
        self.started = time.time()
        self.switches: dict[int, dict[str, Any]] = {}
        self.datapaths: dict[int, Any] = {}
        path = os.environ.get(ENV_TOPOLOGY)
        # Without a topology file the network is discovered: LLDP for links, ARP/IGMP for hosts.
        self.discovery: Discovered | None = None if path else Discovered()
        self._last_connect = time.monotonic()
        self.topo: Topology | None = None
        self.ip_of: dict[str, str] = {}
        self.host_by_ip: dict[str, str] = {}
        self.port_of: dict[str, tuple[int, int]] = {}
        self.host_at: dict[tuple[int, int], str] = {}
        self.dpid_of: dict[str, int] = {}
        self.name_of: dict[int, str] = {}
        self.entries: dict[int, list[Any]] = {}
        self.membership = Membership(self.config.timers, self.config.max_groups,
                                     self.config.max_sources)
        self.querier = Querier(self.config.querier_ip, self.config.timers)
        self.policy: MulticastPolicy | None = None
        self.failed: set[int] = set()
        self.decisions: dict[Key, Decision] = {}
        self.sources_of: dict[str, set[str]] = {}  # group -> sources with a decision
        self._asking: set[tuple[str, str]] = set()  # (group, host) queries being repeated
        self._repeats: list[tuple[float, str, str]] = []  # heap: (when, group, host)
        self._matches: dict[Key, Any] = {}  # OFPMatch per key, built once
        self.installed: dict[Key, dict[int, frozenset[int]]] = {}  # key -> dpid -> ports
        self.group_ids: dict[tuple[int, Key], int] = {}
        self._next_gid: Counter[int] = Counter()
        self.key_ids: dict[Key, int] = {}
        self._key_seq = itertools.count(1)
        self.counters: Counter[str] = Counter()
        self.unconfirmed: set[tuple[int, int]] = set()  # (dpid, barrier xid) not yet answered
        self.igmp_handling: deque[float] = deque(maxlen=2000)  # s per IGMP message, latest
        self.refusals: deque[dict[str, Any]] = deque(maxlen=REFUSALS_KEPT)
        self._buckets: dict[str, tuple[float, float]] = {}  # IGMP, per host
        self._data_buckets: dict[str, tuple[float, float]] = {}  # data packet-ins, per host
        self._unregistered: dict[Key, float] = {}  # since when a key is unregistered
        self._forget_due = 0.0
        self._replies: dict[int, tuple[Any, list[Any]]] = {}

        if path:
            topo = Topology.load_json(path)
            for sw in topo.switches:
                self.switches[sw.dpid] = self._switch_info(sw.name)
            self._set_topology(topo)
        else:
            hub.spawn(self._lldp_loop)
        api.serve(os.environ[ENV_API_SOCKET], self.state,
                  getters={"/ports": self.port_stats, "/groups": self.groups_state},
                  actions={"/nodes/fail": self._fail_nodes,
                           "/nodes/restore": self._restore_nodes},
                  refused=self._api_refused)
        hub.spawn(self._expiry_loop)
        if self.config.querier:
            hub.spawn(self._querier_loop)

    @staticmethod
    def _switch_info(name: str) -> dict[str, Any]:
        return {"name": name, "connected": False, "ready": False, "flows": 0, "connects": 0}

    def _set_topology(self, topo: Topology) -> None:
        """Adopt a topology: host and port maps, unicast entries, multicast re-decided (hosts
        of a discovered network may have been renumbered: state follows them by IP)."""
        by_ip = {h.ip: h.name for h in topo.hosts}
        rename = {name: by_ip.get(ip) for name, ip in self.ip_of.items()}
        self.topo = topo
        self.entries = unicast_entries(topo, arp=self.discovery is None)
        self.dpid_of = {sw.name: sw.dpid for sw in topo.switches}
        self.name_of = {sw.dpid: sw.name for sw in topo.switches}
        self.host_at, self.port_of = {}, {}
        for h in topo.hosts:
            sw, port = topo.host_attachment(h.name)
            self.host_at[(self.dpid_of[sw], port)] = h.name
            self.port_of[h.name] = (self.dpid_of[sw], port)
        self.host_by_ip = by_ip
        self.ip_of = {h.name: h.ip for h in topo.hosts}
        self._matches.clear()
        self.policy = MulticastPolicy(topo, self.config, self.membership)
        self.policy.failed = {i for i in self.failed if i < len(topo.hosts)}
        self.policy.routers = self.querier.router_hosts(time.monotonic())
        for dp in self.datapaths.values():  # every switch again from its unicast entries
            self._program_unicast(dp)
            self._program_lane(dp)
        if not rename:
            return
        self.membership.rename(rename)
        keys = {(g, new) for g, src in self.decisions if (new := rename.get(src))}
        for dp in self.datapaths.values():
            self._clear_multicast(dp)
        self.decisions.clear()
        self.sources_of.clear()
        self.installed.clear()
        for key in sorted(keys):
            self._apply(key)

    # ---- state ------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        ready = bool(self.switches) and all(s["ready"] for s in self.switches.values())
        if self.discovery is not None:  # and LLDP has had time to find the links
            ready = ready and time.monotonic() - self._last_connect > 2.5 * LLDP_PERIOD
        topo = self.topo
        return {
            "ready": ready,
            "framework": framework_version(),
            "topology": topo.name if topo else "(discovering)",
            "discovered": self.discovery is not None,
            "hosts": {h.name: {"ip": h.ip, "mac": h.mac,
                               "at": ":".join(map(str, topo.host_attachment(h.name)))}
                      for h in topo.hosts} if topo else {},
            "routing": topo.routing if topo else "shortest",
            "mode": self.config.mode,
            "config": self.config.to_json(),
            "uptime_s": round(time.time() - self.started, 3),
            "switches": {str(dpid): dict(s) for dpid, s in sorted(self.switches.items())},
            "groups": self.groups_state(live=False),
            "unconfirmed": len(self.unconfirmed),
            "failed": sorted(self.failed),
            "querier": self.querier.state(time.monotonic()),
            "refusals": list(self.refusals),
            "counters": dict(sorted(self.counters.items())),
            "listener": dict(sorted(listener.STATS.items())),
            "igmp_handling_ms": self._handling(),
        }

    def _handling(self) -> dict[str, float]:
        """Time the controller spent on each of the latest IGMP messages (packet-in to the
        last flow or group message sent)."""
        ms = sorted(x * 1000 for x in self.igmp_handling)
        if not ms:
            return {"n": 0}
        return {"n": len(ms), "median": round(statistics.median(ms), 4),
                "p99": round(ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))], 4)}

    def groups_state(self, live: bool = True) -> dict[str, Any]:
        """Per group: members (switch, port, and the port's source-filter state: mode,
        compatibility mode, seconds left, sources with their timers, blocked sources) and, per
        source, the installed tree or the refusal. `live` adds drop counts read from the
        switches."""
        now = time.monotonic()
        drops = self._drop_counts() if live else {}
        out: dict[str, Any] = {}
        for g, members in self.membership.snapshot(now).items():
            out[g] = {"members": {m: {"switch": self.name_of[self.port_of[m][0]],
                                      "port": self.port_of[m][1], **state}
                                  for m, state in members.items() if m in self.port_of},
                      "sources": {}}
        for (g, s), d in sorted(self.decisions.items()):
            entry = out.setdefault(g, {"members": {}, "sources": {}})
            src: dict[str, Any] = {"kind": d.kind}
            if d.kind == "tree":
                src["tree"] = {sw: sorted(p) for sw, p in sorted(d.tree.items())}
                src["receivers"] = [m for m in d.members if m != s]
            else:
                src["reason"] = d.reason or "nobody joined"
                if live:
                    src["dropped_packets"] = drops.get((g, s), 0)
            entry["sources"][s] = src
        return out

    # ---- switch connection ------------------------------------------------------------------
    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev: Any) -> None:
        dp = ev.msg.datapath
        if not self.config.admits(dp.address):  # off loopback: the cluster's servers only
            self.counters["refused_switch"] += 1
            self.logger.warning("switch dpid=%s from %s is not an allowed address; closed",
                                dp.id, dp.address[0])
            dp.close()
            return
        live = self.datapaths.get(dp.id)
        if live is not None and live is not dp and live.is_active:
            # A second connection claiming a connected switch's dpid: refused, so that it
            # can neither take the switch's place nor, closing, mark the real one gone.
            self.counters["duplicate_switch"] += 1
            self.logger.warning("a second connection for connected switch dpid=%s from %s; "
                                "closed", dp.id, dp.address or "a Unix socket")
            dp.close()
            return
        if self.discovery is not None and dp.id not in self.switches:
            self.switches[dp.id] = self._switch_info(f"s{dp.id}")
        info = self.switches.get(dp.id)
        if info is None:
            self.counters["unknown_switch"] += 1
            self.logger.warning("switch dpid=%s is not in topology %s; ignored",
                                dp.id, self.topo.name if self.topo else "")
            return
        info.update(connected=True, ready=False, connects=info["connects"] + 1)
        self.datapaths[dp.id] = dp
        self._last_connect = time.monotonic()
        self._program_base(dp)
        if self.discovery is not None:
            dp.send_msg(dp.ofproto_parser.OFPPortDescStatsRequest(dp, 0))
        for key, per_dp in self.installed.items():  # a reconnecting switch gets its trees
            if dp.id in per_dp:
                self._install_on(dp, key, per_dp[dp.id])
        dp.send_msg(dp.ofproto_parser.OFPBarrierRequest(dp))

    @set_ev_cls(ofp_event.EventOFPBarrierReply, MAIN_DISPATCHER)
    def on_barrier(self, ev: Any) -> None:
        self.unconfirmed.discard((ev.msg.datapath.id, ev.msg.xid))
        info = self.switches.get(ev.msg.datapath.id)
        if info is not None and info["connected"] and not info["ready"]:
            info["ready"] = True
            self.logger.info("switch %s programmed (%d flows)", info["name"], info["flows"])

    @set_ev_cls(ofp_event.EventOFPStateChange, [MAIN_DISPATCHER, DEAD_DISPATCHER])
    def on_state_change(self, ev: Any) -> None:
        dp = ev.datapath
        dpid = dp.id
        if ev.state == DEAD_DISPATCHER and self.datapaths.get(dpid) is dp:
            self.switches[dpid].update(connected=False, ready=False)
            del self.datapaths[dpid]
            # a gone switch answers no barrier: its reconnection reprograms it whole
            self.unconfirmed = {u for u in self.unconfirmed if u[0] != dpid}

    def _program_base(self, dp: Any) -> None:
        ofp, parser = dp.ofproto, dp.ofproto_parser
        # Start from empty tables so a reconnecting switch holds exactly our state.
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE, table_id=ofp.OFPTT_ALL,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_DELETE, group_id=ofp.OFPG_ALL))
        for k in [k for k in self.group_ids if k[0] == dp.id]:
            del self.group_ids[k]
        self._next_gid[dp.id] = 0
        # Table miss: drop. Unknown traffic never floods.
        self._flow(dp, 0, parser.OFPMatch(), [])
        to_ctrl = [parser.OFPActionOutput(ofp.OFPP_CONTROLLER, ofp.OFPCML_NO_BUFFER)]
        self._flow(dp, PRIO_IGMP, parser.OFPMatch(eth_type=ETH_TYPE_IPV4, ip_proto=2), to_ctrl)
        # Multicast from a source the switch has no entry for: ask the controller.
        self._flow(dp, PRIO_MCAST_MISS, parser.OFPMatch(eth_type=ETH_TYPE_IPV4,
                                                        ipv4_dst=MCAST_NET), to_ctrl)
        if self.discovery is not None:
            self._flow(dp, PRIO_LLDP, parser.OFPMatch(eth_type=lldp.ETH_TYPE_LLDP), to_ctrl)
            # All ARP: the controller learns the sender and delivers it.
            self._flow(dp, PRIO_ARP, parser.OFPMatch(eth_type=ETH_TYPE_ARP), to_ctrl)
            # IPv4 with no entry yet (its destination was just learnt): via the controller.
            self._flow(dp, 1, parser.OFPMatch(eth_type=ETH_TYPE_IPV4), to_ctrl)
        self._program_unicast(dp)
        lane_flows = self._program_lane(dp)
        self.switches[dp.id]["flows"] = len(self.entries.get(dp.id, [])) + 3 + lane_flows

    def _program_unicast(self, dp: Any) -> None:
        """This switch's unicast entries (replacing any older set)."""
        ofp, parser = dp.ofproto, dp.ofproto_parser
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE, table_id=ofp.OFPTT_ALL,
                                      cookie=COOKIE_UNICAST, cookie_mask=COOKIE_MASK,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        for e in self.entries.get(dp.id, []):
            self._flow(dp, e.priority, parser.OFPMatch(**e.match_dict()),
                       [parser.OFPActionOutput(e.out_port)], cookie=COOKIE_UNICAST)

    def _clear_multicast(self, dp: Any) -> None:
        ofp, parser = dp.ofproto, dp.ofproto_parser
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE, table_id=ofp.OFPTT_ALL,
                                      cookie=COOKIE_MCAST, cookie_mask=COOKIE_MASK,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_DELETE, group_id=ofp.OFPG_ALL))
        for k in [k for k in self.group_ids if k[0] == dp.id]:
            del self.group_ids[k]

    def _flow(self, dp: Any, prio: int, match: Any, actions: list[Any], cookie: int = 0,
              command: int | None = None) -> None:
        ofp, parser = dp.ofproto, dp.ofproto_parser
        inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)] if actions else []
        dp.send_msg(parser.OFPFlowMod(dp, cookie=cookie, priority=prio, match=match,
                                      instructions=inst,
                                      command=ofp.OFPFC_ADD if command is None else command,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))

    # ---- packet-in --------------------------------------------------------------------------
    @set_ev_cls(ofp_event.EventOFPPacketIn, MAIN_DISPATCHER)
    def on_packet_in(self, ev: Any) -> None:
        msg = ev.msg
        dp = msg.datapath
        in_port = msg.match.get("in_port")
        data = bytes(msg.data)
        if self.discovery is not None and self._on_discovery_frame(dp, in_port, data):
            return
        if self.topo is None:
            return
        try:
            src_ip, dst_ip, proto, _payload = igmp.ipv4_payload(data)
        except igmp.IgmpError as exc:
            self.counters[f"ignored_{exc}"] += 1
            return
        host = self.host_at.get((dp.id, in_port))
        if proto == igmp.IPPROTO_IGMP:
            if host is None:
                self.counters["igmp_not_from_a_host_port"] += 1
                return
            t0 = time.perf_counter()
            self._on_igmp(host, data)
            self.igmp_handling.append(time.perf_counter() - t0)
        elif ipaddress.IPv4Address(dst_ip).is_multicast:
            self._on_mcast_data(dp, in_port, host, src_ip, dst_ip, data)
        elif self.discovery is not None:  # sent before the entries for a new host existed
            self._deliver(dp.id, in_port, dst_ip, data)
        else:
            self.counters["ignored_unicast"] += 1

    def _allow(self, host: str, buckets: dict[str, tuple[float, float]] | None = None,
               rate: float | None = None) -> bool:
        """Token bucket per host (IGMP by default; data packet-ins with theirs): a flood
        beyond the rate (burst: twice it) is ignored."""
        buckets = self._buckets if buckets is None else buckets
        now, rate = time.monotonic(), rate or self.config.igmp_rate
        tokens, last = buckets.get(host, (2 * rate, now))
        tokens = min(2 * rate, tokens + (now - last) * rate)
        if tokens < 1:
            buckets[host] = (tokens, now)
            return False
        buckets[host] = (tokens - 1, now)
        return True

    def _on_igmp(self, host: str, data: bytes) -> None:
        """IGMP as a snooping switch treats it (RFC 4541 2.1.1): reports and leaves change
        the port's state and go on to router ports only; queries elect the querier and go to
        every other host; unrecognised types are flooded; malformed frames are dropped."""
        if not self._allow(host):
            self.counters["igmp_rate_limited"] += 1
            return
        try:
            msg = igmp.parse(data)
        except igmp.IgmpError as exc:
            self.counters[f"igmp_{exc}"] += 1
            if str(exc) == igmp.UNKNOWN_TYPE:
                self._flood_igmp(data, self.port_of, host)
            return
        now = time.monotonic()
        if msg.kind == "query":
            self.counters["igmp_foreign_query"] += 1
            self._on_query(host, msg, data, now)
            return
        self.counters[f"igmp_v{msg.version}_{msg.kind}"] += 1
        changed = []
        for r in msg.records:
            out = self.membership.record(r.group, host, r.record, r.sources, now, msg.version,
                                         fast=self.config.fast_leave)
            if out.ignored:
                self.counters[f"igmp_ignored_{out.ignored}"] += 1
            if out.changed:
                changed.append(r.group)
            self._send_group_queries(r.group, host, out.queries)
            if self.membership.querying(r.group, host) and (r.group, host) not in self._asking:
                self._asking.add((r.group, host))
                heapq.heappush(self._repeats, (now + self.config.timers.last_member_interval,
                                               r.group, host))
        for g in dict.fromkeys(changed):
            self._recompute(g)
            self.logger.debug("%s changed what it takes of %s", host, g)
        assert self.policy is not None  # set with the topology, which packet-in has
        self._flood_igmp(data, self.policy.routers, host)

    def _on_query(self, host: str, msg: igmp.IgmpMessage, data: bytes, now: float) -> None:
        """Another querier: the election, its timers adopted (within RFC 3376's ranges,
        controller.querier), and the query flooded. A query whose source address is not the
        sending host's is ignored: a host must not speak for another querier."""
        q = msg.query
        assert q is not None
        if msg.src_ip != self.ip_of.get(host):
            self.counters["igmp_query_not_from_its_host"] += 1
            return
        if self.querier.heard_query(host, msg.src_ip, q.qrv, q.qqi_s, now):
            self.logger.info("%s queries from a lower address: not querier for now", msg.src_ip)
        self.membership.timers = self.querier.timers
        if q.group != "0.0.0.0" and not q.suppress:
            self.membership.heard_query(q.group, q.sources, now)
        self._flood_igmp(data, self.port_of, host)
        self._routers_changed(now)

    def _flood_igmp(self, data: bytes, hosts: Any, but: str) -> None:
        """Packet-out `data` to the ports of `hosts` except `but`'s."""
        ports = self._host_ports(h for h in hosts if h != but)
        self._packet_out(ports, data)
        if ports:
            self.counters["igmp_forwarded"] += 1

    def _host_ports(self, hosts: Any = None) -> dict[int, list[int]]:
        """The switch ports of `hosts` (all hosts when None), per switch."""
        ports: dict[int, list[int]] = {}
        for h in self.port_of if hosts is None else hosts:
            if h in self.port_of:
                dpid, port = self.port_of[h]
                ports.setdefault(dpid, []).append(port)
        return ports

    def _packet_out(self, ports: dict[int, list[int]], data: bytes) -> None:
        for dpid, plist in ports.items():
            dp = self.datapaths.get(dpid)
            if dp is not None and plist:
                packet_out(dp, sorted(plist), data)

    def _routers_changed(self, now: float) -> None:
        """Router ports take every group (RFC 4541 2.1.2): re-decide when they change."""
        routers = self.querier.router_hosts(now)
        if self.policy is not None and routers != self.policy.routers:
            self.policy.routers = routers
            self.logger.info("router ports now %s", sorted(routers))
            self._recompute()

    def _on_mcast_data(self, dp: Any, in_port: int, host: str | None, src_ip: str, group: str,
                       data: bytes) -> None:
        source = self.host_by_ip.get(src_ip)
        if source is None or (host is not None and host != source):
            self.counters["mcast_spoofed_source"] += 1
            return
        if not self._allow(source, self._data_buckets, self.config.data_rate):
            self.counters["mcast_rate_limited"] += 1
            return
        key = (group, source)
        if key not in self.decisions:
            if host is None:  # not at the source's switch and no state: stale, drop
                self.counters["mcast_not_from_a_host_port"] += 1
                return
            self.counters["mcast_new_flows"] += 1
            self._apply(key)
        # Deliver this datagram (it reached the controller before the flows existed).
        ports = self.installed.get(key, {}).get(dp.id, frozenset())
        if ports:
            packet_out(dp, [p for p in sorted(ports) if p != in_port], data, in_port=in_port)

    # ---- trees ------------------------------------------------------------------------------
    def _recompute(self, group: str | None = None) -> None:
        """Re-decide every known source of `group` (all groups when None)."""
        groups = [group] if group is not None else list(self.sources_of)
        for g in groups:
            for source in sorted(self.sources_of.get(g, ())):
                self._apply((g, source))

    def _apply(self, key: Key) -> None:
        group, source = key
        assert self.policy is not None  # set with the topology, before any source is known
        decision = self.policy.decide(group, source, time.monotonic())
        old = self.decisions.get(key)
        self.decisions[key] = decision
        self.sources_of.setdefault(group, set()).add(source)
        if decision.kind == "unregistered":
            self._unregistered.setdefault(key, time.monotonic())
        else:
            self._unregistered.pop(key, None)
        if decision.kind == "refused" and (old is None or old.reason != decision.reason):
            self.counters["refusals"] += 1
            self.refusals.append({"group": group, "source": source, "reason": decision.reason,
                                  "time": round(time.time(), 3)})
            self.logger.warning("refused %s from %s: %s", group, source, decision.reason)
        if decision.kind == "tree":
            want = {self.dpid_of[sw]: ports for sw, ports in decision.tree.items()}
        else:  # a drop entry at the source's switch, so it is counted and not asked again
            want = {self.port_of[source][0]: frozenset()}
        have = self.installed.get(key, {})
        touched = set()
        for dpid in set(have) - set(want):
            self._uninstall_on(self.datapaths.get(dpid), key)
            touched.add(dpid)
        for dpid, ports in want.items():
            if have.get(dpid) != ports and dpid in self.datapaths:
                self._install_on(self.datapaths[dpid], key, ports)
                touched.add(dpid)
        self.installed[key] = want
        self._confirm(touched)

    def _confirm(self, dpids: set[int]) -> None:
        """A barrier after a change to these switches: /state's `unconfirmed` counts the
        changes a switch has not yet said it applied, so that a client can wait for the
        forwarding itself (not only the controller's decision) before it sends."""
        for dpid in dpids:
            dp = self.datapaths.get(dpid)
            if dp is not None:
                req = dp.ofproto_parser.OFPBarrierRequest(dp)
                dp.send_msg(req)  # sets req.xid
                self.unconfirmed.add((dpid, req.xid))

    def _match(self, dp: Any, key: Key) -> Any:
        match = self._matches.get(key)
        if match is None:
            match = self._matches[key] = dp.ofproto_parser.OFPMatch(
                eth_type=ETH_TYPE_IPV4, ipv4_dst=key[0], ipv4_src=self.ip_of[key[1]])
        return match

    def _cookie(self, key: Key) -> int:
        if key not in self.key_ids:
            self.key_ids[key] = next(self._key_seq)
        return COOKIE_MCAST | self.key_ids[key]

    def _install_on(self, dp: Any, key: Key, ports: frozenset[int]) -> None:
        """The key's entry on one switch: its group to `ports` (into the range lane, one
        tagged copy per port, in strict mode: controller.lane), or a drop entry when `ports`
        is empty."""
        ofp, parser = dp.ofproto, dp.ofproto_parser
        if not ports:
            gid = self.group_ids.pop((dp.id, key), None)
            self._flow(dp, PRIO_MCAST, self._match(dp, key), [], cookie=self._cookie(key))
            if gid is not None:
                dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_DELETE, group_id=gid))
            return
        buckets = [parser.OFPBucket(actions=self._bucket_actions(dp, b))
                   for b in lane.buckets(self.config.strict, key[0], ports)]
        gid = self.group_ids.get((dp.id, key))
        if gid is None:
            self._next_gid[dp.id] += 1
            gid = self.group_ids[(dp.id, key)] = self._next_gid[dp.id]
            dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_ADD, type_=ofp.OFPGT_ALL,
                                           group_id=gid, buckets=buckets))
        else:
            dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_MODIFY, type_=ofp.OFPGT_ALL,
                                           group_id=gid, buckets=buckets))
        self._flow(dp, PRIO_MCAST, self._match(dp, key), [parser.OFPActionGroup(gid)],
                   cookie=self._cookie(key))

    @staticmethod
    def _bucket_actions(dp: Any, bucket: lane.Bucket) -> list[Any]:
        parser = dp.ofproto_parser
        out = parser.OFPActionOutput(bucket.port)
        if bucket.tag is None:
            return [out]
        return [parser.OFPActionPushVlan(lane.ETH_TYPE_VLAN),
                parser.OFPActionSetField(vlan_vid=dp.ofproto.OFPVID_PRESENT | bucket.tag), out]

    def _program_lane(self, dp: Any) -> int:
        """In strict mode, the switch's lane exits (controller.lane), replacing older ones:
        what leaves the lane tagged with a port goes to that port, anything else is
        dropped. Returns the number of entries sent."""
        name = self.name_of.get(dp.id)
        if not self.config.strict or self.topo is None or name is None:
            return 0
        ofp, parser = dp.ofproto, dp.ofproto_parser
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE, table_id=ofp.OFPTT_ALL,
                                      cookie=COOKIE_LANE, cookie_mask=COOKIE_MASK,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        self._flow(dp, lane.PRIO_LANE, parser.OFPMatch(in_port=lane.LANE_OUT), [],
                   cookie=COOKIE_LANE)
        exits = lane.exits(self.topo.ports(name))
        for e in exits:
            self._flow(dp, lane.PRIO_EXIT,
                       parser.OFPMatch(in_port=lane.LANE_OUT,
                                       vlan_vid=ofp.OFPVID_PRESENT | e.tag),
                       [parser.OFPActionPopVlan(), parser.OFPActionOutput(e.port)],
                       cookie=COOKIE_LANE)
        return len(exits) + 1

    def _uninstall_on(self, dp: Any, key: Key) -> None:
        if dp is None:
            return
        ofp, parser = dp.ofproto, dp.ofproto_parser
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE_STRICT, priority=PRIO_MCAST,
                                      match=self._match(dp, key),
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        gid = self.group_ids.pop((dp.id, key), None)
        if gid is not None:
            dp.send_msg(parser.OFPGroupMod(dp, command=ofp.OFPGC_DELETE, group_id=gid))

    # ---- failed nodes -----------------------------------------------------------------------
    def _node_ids(self, body: dict[str, Any]) -> set[int]:
        ids = body.get("nodes")
        n = len(self.topo.hosts) if self.topo else 0
        if not isinstance(ids, list) or not all(
                type(i) is int and 0 <= i < n for i in ids):  # JSON true is no node id
            raise ValueError(f"give {{\"nodes\": [ids]}} with node ids in 0..{n - 1}")
        return set(ids)

    def _api_refused(self, why: str) -> None:
        self.counters["api_refused"] += 1
        self.logger.warning("%s", why)

    def _fail_nodes(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._set_failed(self.failed | self._node_ids(body))

    def _restore_nodes(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._set_failed(self.failed - self._node_ids(body))

    def _set_failed(self, failed: set[int]) -> dict[str, Any]:
        self.failed = failed
        if self.policy is not None:
            self.policy.failed = set(failed)
        self.logger.info("failed nodes now %s", sorted(failed))
        self._recompute()
        return {"failed": sorted(failed)}

    # ---- querier and timers -----------------------------------------------------------------
    def _send_query(self, group: str | None, ports: dict[int, list[int]], max_resp: float,
                    sources: frozenset[str] = frozenset(), suppress: bool = False) -> None:
        t = self.config.timers
        for frame in igmp.queries(self.config.querier_ip, group, max_resp, t.query_interval,
                                  t.robustness, tuple(sorted(sources)), suppress):
            self._packet_out(ports, frame)
        self.counters["queries_sent"] += 1

    def _send_group_queries(self, group: str, host: str, queries: Any) -> None:
        """Group(-and-source)-specific queries, to the port of the host they concern (only
        the querier sends them, RFC 3376 6.6.3)."""
        if not queries or not self.config.querier or \
                not self.querier.is_querier(time.monotonic()):
            return
        for q in queries:
            self._send_query(group, self._host_ports([host]),
                             self.config.timers.last_member_interval, q.sources, q.suppress)

    def _querier_loop(self) -> None:
        """General queries: robustness startup queries a quarter interval apart, then one
        per query interval while this controller is the elected querier; one at once when it
        becomes querier again."""
        t = self.config.timers
        state = {"startup": t.robustness, "due": time.monotonic() + t.startup_interval,
                 "was": True}
        while True:
            hub.sleep(0.1)
            self._guarded("querier", lambda: self._querier_step(state))

    def _querier_step(self, state: dict[str, Any]) -> None:
        t, now = self.config.timers, time.monotonic()
        querier = self.querier.is_querier(now)
        if querier and not state["was"]:
            self.logger.info("other querier gone: querier again")
            self.membership.timers = self.querier.timers
            state["due"] = now
        state["was"] = querier
        if now < state["due"]:
            return
        state["startup"] -= 1
        state["due"] = now + (t.startup_interval if state["startup"] > 0 else t.query_interval)
        if querier:
            self._send_query(None, self._host_ports(), t.query_response_interval)

    def _repeat_queries(self, now: float) -> None:
        """The retransmissions of ports' group(-and-source)-specific queries that are due,
        LMQI apart (one heap for all ports: no thread per query)."""
        lmqi = self.config.timers.last_member_interval
        while self._repeats and self._repeats[0][0] <= now:
            due, group, host = heapq.heappop(self._repeats)
            queries = self.membership.retransmissions(group, host, now)
            if host in self.port_of:
                self._send_group_queries(group, host, queries)
            if self.membership.querying(group, host):
                heapq.heappush(self._repeats, (due + lmqi, group, host))
            else:
                self._asking.discard((group, host))

    def _forget_unregistered(self, now: float) -> None:
        """Drop the decisions (and drop entries) of keys unregistered for UNREGISTERED_TTL:
        every (S,G) a host ever sent to must not stay held for the rest of the run. A later
        datagram of the key asks again (rate-limited)."""
        for key in [k for k, t in self._unregistered.items() if now - t > UNREGISTERED_TTL]:
            for dpid in self.installed.pop(key, {}):
                self._uninstall_on(self.datapaths.get(dpid), key)
            del self._unregistered[key], self.decisions[key]
            self._matches.pop(key, None)
            self.key_ids.pop(key, None)
            sources = self.sources_of.get(key[0], set())
            sources.discard(key[1])
            if not sources:
                self.sources_of.pop(key[0], None)
            self.counters["unregistered_forgotten"] += 1

    def _expiry_step(self) -> None:
        now = time.monotonic()
        self._repeat_queries(now)
        changed = self.membership.expire(now)
        for group in dict.fromkeys(g for g, _m in changed):
            self.logger.info("membership of %s changed as timers ran out", group)
            self._recompute(group)
        self._routers_changed(now)
        if now >= self._forget_due:
            self._forget_due = now + FORGET_EVERY
            self._forget_unregistered(now)

    def _expiry_loop(self) -> None:
        while True:
            hub.sleep(0.02)
            self._guarded("expiry", self._expiry_step)

    def _guarded(self, loop: str, step: Callable[[], None]) -> None:
        """One step of a timer loop: an exception in it is logged (the first few) and
        counted, and the loop goes on: it must not end for the rest of the run."""
        try:
            step()
        except Exception:  # noqa: BLE001 - whatever a step raises, the loop survives it
            self.counters[f"loop_errors_{loop}"] += 1
            if self.counters[f"loop_errors_{loop}"] <= LOOP_ERRORS_LOGGED:
                self.logger.exception("the %s loop's step failed; it goes on", loop)
