"""Counters read from the switches on demand: per-port packets and bytes, and the packets
that refusal and unregistered entries dropped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .compat import MAIN_DISPATCHER, hub, ofp_event, set_ev_cls
from .ofutil import COOKIE_MASK, COOKIE_MCAST

if TYPE_CHECKING:
    from topologies import Topology

    from .multicast import Decision

Key = tuple[str, str]


class CountersMixin:
    """Needs from the app: datapaths, name_of, dpid_of, topo, key_ids, decisions, port_of,
    _replies."""

    if TYPE_CHECKING:  # what the app provides, as the type checker is to see it
        datapaths: dict[int, Any]
        name_of: dict[int, str]
        dpid_of: dict[str, int]
        topo: Topology | None
        key_ids: dict[Key, int]
        decisions: dict[Key, Decision]
        port_of: dict[str, tuple[int, int]]
        _replies: dict[int, tuple[Any, list[Any]]]

    def _ask(self, dp: Any, req: Any, timeout: float = 2.0) -> list[Any]:
        """Send a multipart request, wait (green thread) for all its replies."""
        dp.set_xid(req)
        event = hub.Event()
        self._replies[req.xid] = (event, [])
        dp.send_msg(req)
        event.wait(timeout=timeout)
        return self._replies.pop(req.xid, (None, []))[1]

    @set_ev_cls([ofp_event.EventOFPPortStatsReply, ofp_event.EventOFPFlowStatsReply],
                MAIN_DISPATCHER)
    def on_stats_reply(self, ev: Any) -> None:
        waiting = self._replies.get(ev.msg.xid)
        if waiting is None:
            return
        waiting[1].extend(ev.msg.body)
        if not ev.msg.flags & ev.msg.datapath.ofproto.OFPMPF_REPLY_MORE:
            waiting[0].set()

    def port_stats(self) -> dict[str, Any]:
        """switch -> port -> {neighbour, tx/rx packets and bytes, drops}, read now."""
        out: dict[str, Any] = {}
        for dpid, dp in sorted(self.datapaths.items()):
            parser, ofp = dp.ofproto_parser, dp.ofproto
            name = self.name_of.get(dpid, f"s{dpid}")
            neighbours = self.topo.ports(name) if self.topo and name in self.dpid_of else {}
            ports = {}
            for st in self._ask(dp, parser.OFPPortStatsRequest(dp, 0, ofp.OFPP_ANY)):
                if st.port_no >= ofp.OFPP_MAX:
                    continue
                ports[str(st.port_no)] = {
                    "neighbour": neighbours.get(st.port_no, "?"),
                    "tx_packets": st.tx_packets, "tx_bytes": st.tx_bytes,
                    "rx_packets": st.rx_packets, "rx_bytes": st.rx_bytes,
                    "tx_dropped": st.tx_dropped, "rx_dropped": st.rx_dropped}
            out[name] = dict(sorted(ports.items(), key=lambda kv: int(kv[0])))
        return out

    def _drop_counts(self) -> dict[Key, int]:
        """Packets dropped by refusal / unregistered entries, read from the source switches."""
        by_id = {v: k for k, v in self.key_ids.items()}
        counts: dict[Key, int] = {}
        dps = {self.port_of[s][0] for (g, s), d in self.decisions.items() if d.kind != "tree"}
        for dpid in dps:
            dp = self.datapaths.get(dpid)
            if dp is None:
                continue
            parser, ofp = dp.ofproto_parser, dp.ofproto
            req = parser.OFPFlowStatsRequest(dp, 0, ofp.OFPTT_ALL, ofp.OFPP_ANY, ofp.OFPG_ANY,
                                             COOKIE_MCAST, COOKIE_MASK, parser.OFPMatch())
            for st in self._ask(dp, req):
                key = by_id.get(st.cookie & ~COOKIE_MASK)
                if key is not None and not st.instructions:
                    counts[key] = counts.get(key, 0) + st.packet_count
        return counts
