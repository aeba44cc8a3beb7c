"""The OpenFlow app: programs every switch of the topology proactively and reports readiness.

Loaded by ``python -m controller`` (os-ken) or ``ryu-manager controller.app`` (Ryu). The
topology file and the JSON port come from the environment (``MCASTLAB_TOPOLOGY``,
``MCASTLAB_API_PORT``) so that both launchers configure it the same way.
"""

from __future__ import annotations

import os
import time
from typing import Any

from topologies import Topology

from . import api
from .compat import (
    CONFIG_DISPATCHER,
    DEAD_DISPATCHER,
    MAIN_DISPATCHER,
    BaseApp,
    framework_version,
    ofp_event,
    ofproto_v1_3,
    set_ev_cls,
)
from .forwarding import FlowEntry, unicast_entries

ENV_TOPOLOGY = "MCASTLAB_TOPOLOGY"
ENV_API_PORT = "MCASTLAB_API_PORT"


class McastlabController(BaseApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        path = os.environ.get(ENV_TOPOLOGY)
        if not path:
            raise SystemExit(f"controller: set {ENV_TOPOLOGY} to the topology file")
        self.topo = Topology.load_json(path)
        self.entries = unicast_entries(self.topo)
        self.started = time.time()
        self.switches: dict[int, dict[str, Any]] = {
            sw.dpid: {"name": sw.name, "connected": False, "ready": False, "flows": 0,
                      "connects": 0}
            for sw in self.topo.switches
        }
        self.datapaths: dict[int, Any] = {}
        api.serve(int(os.environ.get(ENV_API_PORT) or 8080), self.state)

    # ---- state ------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        ready = all(s["ready"] for s in self.switches.values())
        return {
            "ready": ready,
            "framework": framework_version(),
            "topology": self.topo.name,
            "routing": self.topo.routing,
            "uptime_s": round(time.time() - self.started, 3),
            "switches": {str(dpid): dict(s) for dpid, s in sorted(self.switches.items())},
        }

    # ---- OpenFlow events ----------------------------------------------------------------
    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def on_features(self, ev: Any) -> None:
        dp = ev.msg.datapath
        info = self.switches.get(dp.id)
        if info is None:
            self.logger.warning("switch dpid=%s is not in topology %s; ignored",
                                dp.id, self.topo.name)
            return
        info.update(connected=True, ready=False, connects=info["connects"] + 1)
        self.datapaths[dp.id] = dp
        self._program(dp, self.entries.get(dp.id, []))
        info["flows"] = len(self.entries.get(dp.id, [])) + 1
        # The barrier reply tells us every flow-mod before it has been processed.
        dp.send_msg(dp.ofproto_parser.OFPBarrierRequest(dp))

    @set_ev_cls(ofp_event.EventOFPBarrierReply, MAIN_DISPATCHER)
    def on_barrier(self, ev: Any) -> None:
        info = self.switches.get(ev.msg.datapath.id)
        if info is not None and info["connected"] and not info["ready"]:
            info["ready"] = True
            self.logger.info("switch %s programmed (%d flows)", info["name"], info["flows"])

    @set_ev_cls(ofp_event.EventOFPStateChange, [MAIN_DISPATCHER, DEAD_DISPATCHER])
    def on_state_change(self, ev: Any) -> None:
        dp = ev.datapath
        if ev.state == DEAD_DISPATCHER and dp.id in self.switches:
            self.switches[dp.id].update(connected=False, ready=False)
            self.datapaths.pop(dp.id, None)

    # ---- flow programming ---------------------------------------------------------------
    def _program(self, dp: Any, entries: list[FlowEntry]) -> None:
        ofp, parser = dp.ofproto, dp.ofproto_parser
        # Start from an empty table so a reconnecting switch holds exactly our flows.
        dp.send_msg(parser.OFPFlowMod(dp, command=ofp.OFPFC_DELETE, table_id=ofp.OFPTT_ALL,
                                      out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY))
        # Table miss: drop (no instructions). Unknown traffic never floods.
        dp.send_msg(parser.OFPFlowMod(dp, priority=0, match=parser.OFPMatch(), instructions=[]))
        for e in entries:
            actions = [parser.OFPActionOutput(e.out_port)]
            inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)]
            dp.send_msg(parser.OFPFlowMod(dp, priority=e.priority,
                                          match=parser.OFPMatch(**e.match_dict()),
                                          instructions=inst))
