"""controller.app as `python -m controller` builds it from its environment, in this process:
`hub.spawn` records the threads it would start, its clock is moved by hand, and switches
record what they are sent. Covered: switches connecting, refused and coming back; the state
and groups the API gives; failed and restored nodes; the querier and a leave's queries; and,
in a subprocess, a failing timer step, multicast data floods, forged queries and decisions
for groups nobody joined."""

from __future__ import annotations

import dataclasses
import importlib
import io
import itertools
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from os_ken.controller.handler import DEAD_DISPATCHER
from os_ken.ofproto import ofproto_v1_3, ofproto_v1_3_parser

from controller import igmp
from controller.compat import hub
from controller.config import ENV_API_SOCKET, ENV_CONFIG, ENV_TOPOLOGY, ControllerConfig
from controller.ofutil import COOKIE_MCAST, PRIO_MCAST
from controller.timers import IgmpTimers
from topologies import parse_spec

TOPO = parse_spec("tree:leaves=2,hosts_per_leaf=2,bw=100")  # s1 over s2 (h0 h1), s3 (h2 h3)
G, NOBODYS = "239.1.2.3", "239.9.9.9"
NOBODY = 65534
# short timers: a leave's queries 0.5 s apart, another querier quiet for 2 x QQI + QRI / 2
TIMERS = IgmpTimers(robustness=2, query_interval=20.0, query_response_interval=2.0,
                    last_member_interval=0.5)


class Clock:
    """controller.app's `time`, its monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    # the wall clock and perf_counter (how long IGMP handling took): the real ones
    perf_counter = staticmethod(time.perf_counter)
    time = staticmethod(time.time)  # last: from here on `time` in this class is this


class Switch:
    """A switch's connection as os-ken's Datapath gives it to the app: what the controller
    sends it is recorded; a flow-stats request is answered at once with `flows`."""

    _xids = itertools.count(1)

    def __init__(self, dpid: int, address: Any = None, app: Any = None) -> None:
        self.id, self.address, self.app = dpid, address, app  # address None: a Unix socket
        self.ofproto, self.ofproto_parser = ofproto_v1_3, ofproto_v1_3_parser
        self.sent: list[Any] = []
        self.is_active, self.closed = True, False
        self.flows: list[Any] = []

    def send_msg(self, msg: Any) -> None:
        if msg.xid is None:  # as os-ken's Datapath.send_msg numbers a message
            self.set_xid(msg)
        self.sent.append(msg)
        if isinstance(msg, ofproto_v1_3_parser.OFPFlowStatsRequest):
            reply = SimpleNamespace(xid=msg.xid, body=self.flows, flags=0, datapath=self)
            self.app.on_stats_reply(SimpleNamespace(msg=reply))

    def set_xid(self, msg: Any) -> None:
        msg.set_xid(next(self._xids))

    def close(self) -> None:
        self.is_active, self.closed = False, True

    def kinds(self) -> list[str]:
        return [type(m).__name__ for m in self.sent]

    def packets(self) -> list[tuple[list[int], igmp.IgmpMessage]]:
        """The IGMP packet-outs sent: (ports, message)."""
        return [([a.port for a in m.actions], igmp.parse(m.data)) for m in self.sent
                if isinstance(m, ofproto_v1_3_parser.OFPPacketOut)
                and igmp.ipv4_payload(m.data)[2] == igmp.IPPROTO_IGMP]


def features(app: Any, dp: Switch) -> None:
    app.on_features(SimpleNamespace(msg=SimpleNamespace(datapath=dp)))


def dead(app: Any, dp: Switch) -> None:
    app.on_state_change(SimpleNamespace(datapath=dp, state=DEAD_DISPATCHER))


def barriers(app: Any, dp: Switch) -> None:
    """The switch answers every barrier request it was sent (os-ken's reply carries the
    request's xid)."""
    for m in dp.sent:
        if isinstance(m, ofproto_v1_3_parser.OFPBarrierRequest):
            app.on_barrier(SimpleNamespace(msg=SimpleNamespace(datapath=dp, xid=m.xid)))


def connect(app: Any, dpid: int) -> Switch:
    """A switch connected, programmed and ready (its barrier answered)."""
    dp = Switch(dpid, app=app)
    features(app, dp)
    barriers(app, dp)
    return dp


def packet_in(app: Any, host: str, data: bytes) -> None:
    """`data` from `host`, as its switch sends it up."""
    sw, port = TOPO.host_attachment(host)
    dp = app.datapaths[app.dpid_of[sw]]
    app.on_packet_in(SimpleNamespace(msg=SimpleNamespace(datapath=dp, match={"in_port": port},
                                                         data=data)))


def says(app: Any, host: str, msg: igmp.IgmpMessage) -> None:
    packet_in(app, host, igmp.frame(msg, TOPO.host(host).mac))


def sends(app: Any, host: str, group: str) -> None:
    """A UDP datagram from `host` to `group`."""
    h = TOPO.host(host)
    packet_in(app, host, igmp.ipv4_frame(h.mac, h.ip, group, bytes(16), proto=17))


@pytest.fixture
def appmod() -> Any:
    """controller.app, imported when its tests run, as test_api.py and test_lane.py
    import it: it imports eventlet, which then warns at every fork() (collectives/range_trees/'s
    tests fork, before these run) and once that it is itself deprecated."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
        return importlib.import_module("controller.app")


@pytest.fixture
def clock(appmod: Any, monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(appmod, "time", c)
    return c


@pytest.fixture
def build(appmod: Any, monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[Callable[..., tuple[Any, dict[str, tuple]]]]:
    """Builds the app from its environment; returns it and what it spawned (name -> args).
    Its API socket is in a folder of its own under /tmp (mode 0700, as the testbed's)."""
    made: list[dict[str, tuple]] = []
    folder = Path(tempfile.mkdtemp(prefix="mcastlab-app-"))

    def make(config: ControllerConfig | None = None, topology: bool = True
             ) -> tuple[Any, dict[str, tuple]]:
        spawned: dict[str, tuple] = {}
        monkeypatch.setattr(hub, "spawn", lambda f, *a, **_kw: spawned.setdefault(
            getattr(f, "__name__", repr(f)), a))
        if topology:
            TOPO.save(folder / "topo.json")
            monkeypatch.setenv(ENV_TOPOLOGY, str(folder / "topo.json"))
        else:
            monkeypatch.delenv(ENV_TOPOLOGY, raising=False)
        monkeypatch.setenv(ENV_API_SOCKET, str(folder / f"api-{len(made)}.sock"))
        monkeypatch.setenv(ENV_CONFIG, (config or ControllerConfig()).to_json())
        app = appmod.McastlabController()
        made.append(spawned)
        return app, spawned

    yield make
    for spawned in made:
        spawned["server"][0].close()  # the API's listening socket
    shutil.rmtree(folder)


def call(spawned: dict[str, tuple], method: str, path: str,
         body: Any = None) -> tuple[str, Any]:
    """Ask the WSGI app the app handed to the API's server."""
    data = b"" if body is None else json.dumps(body).encode()
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "wsgi.input": io.BytesIO(data),
               "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data))}
    got: list[str] = []
    out = spawned["server"][1](environ, lambda status, _headers: got.append(status))
    return got[0], json.loads(b"".join(out))


# ---- built from its environment, and its state -------------------------------------------
STATE_KEYS = {"ready", "framework", "topology", "discovered", "hosts", "routing", "mode",
              "config", "uptime_s", "switches", "groups", "failed", "querier", "refusals",
              "counters", "listener", "igmp_handling_ms", "unconfirmed"}


def test_the_app_is_built_from_its_environment(build) -> None:
    config = ControllerConfig(igmp_rate=50.0, timers=TIMERS)
    app, spawned = build(config)
    assert list(spawned) == ["server", "_expiry_loop", "_querier_loop"]  # no LLDP
    sock = Path(os.environ[ENV_API_SOCKET])
    assert stat.S_ISSOCK(sock.stat().st_mode) and stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert app.config == config and app.discovery is None
    state = app.state()
    assert set(state) == STATE_KEYS and json.loads(json.dumps(state)) == state
    assert ControllerConfig.from_json(state["config"]) == config
    assert state["ready"] is False and state["topology"] == TOPO.name
    assert state["hosts"]["h2"] == {"ip": "10.0.0.3", "mac": TOPO.host("h2").mac, "at": "s3:2"}
    assert state["switches"] == {str(d): {"name": f"s{d}", "connected": False, "ready": False,
                                          "flows": 0, "connects": 0} for d in (1, 2, 3)}
    assert (state["groups"], state["failed"], state["refusals"], state["counters"]) == \
        ({}, [], [], {})
    assert state["querier"]["role"] == "querier" and state["igmp_handling_ms"] == {"n": 0}
    assert call(spawned, "GET", "/ready") == ("503 Service Unavailable", {"ready": False})

    found, spawned = build(ControllerConfig(querier=False), topology=False)
    assert list(spawned) == ["_lldp_loop", "server", "_expiry_loop"]  # no querier loop
    state = found.state()
    assert state["discovered"] is True and state["topology"] == "(discovering)"
    assert (state["hosts"], state["switches"], state["ready"]) == ({}, {}, False)
    s7 = connect(found, 7)  # any dpid: a switch found, its ports asked for
    assert found.switches[7]["name"] == "s7" and "OFPPortDescStatsRequest" in s7.kinds()


def test_a_switch_is_programmed_and_ready_at_its_barrier(build) -> None:
    app, spawned = build()
    s2 = Switch(2)
    features(app, s2)
    assert app.datapaths == {2: s2} and app.switches[2]["connected"]
    assert not app.switches[2]["ready"] and app.switches[2]["connects"] == 1
    kinds = s2.kinds()  # emptied, then its entries, then a barrier
    assert kinds[:2] == ["OFPFlowMod", "OFPGroupMod"] and kinds[-1] == "OFPBarrierRequest"
    assert "OFPPortDescStatsRequest" not in kinds  # its ports are in the topology
    adds = [m for m in s2.sent if isinstance(m, ofproto_v1_3_parser.OFPFlowMod)
            and m.command == ofproto_v1_3.OFPFC_ADD]
    assert len(adds) == 3 + len(app.entries[2]) == app.switches[2]["flows"]
    barriers(app, s2)
    app.on_barrier(SimpleNamespace(msg=SimpleNamespace(datapath=Switch(99), xid=1)))  # not ours
    assert app.switches[2]["ready"] and not app.state()["ready"]
    connect(app, 1)
    connect(app, 3)
    assert app.state()["ready"]
    assert call(spawned, "GET", "/ready") == ("200 OK", {"ready": True})


def test_switches_it_must_not_take_are_refused_and_counted(build) -> None:
    app, _ = build(ControllerConfig(listen="10.9.0.1", allow=("10.9.0.2",)))
    stranger = Switch(2, ("10.9.0.3", 40000))
    features(app, stranger)
    assert stranger.closed and stranger.sent == [] and app.datapaths == {}
    unknown = Switch(99, ("127.0.0.1", 40001))  # loopback: admitted, but not in the topology
    features(app, unknown)
    assert unknown.sent == [] and 99 not in app.switches and app.datapaths == {}
    live = Switch(2, ("10.9.0.2", 40002))  # an allowed server
    features(app, live)
    assert app.datapaths == {2: live} and not live.closed

    impostor = Switch(2, ("10.9.0.2", 40003))  # a second connection claiming s2
    features(app, impostor)
    assert impostor.closed and impostor.sent == [] and app.datapaths[2] is live
    dead(app, impostor)  # its connection ends: the live one is not forgotten
    assert app.datapaths[2] is live and app.switches[2]["connected"]
    assert app.switches[2]["connects"] == 1
    assert app.state()["counters"] == {"refused_switch": 1, "unknown_switch": 1,
                                       "duplicate_switch": 1}

    live.close()  # s2 reconnects before its old connection's DEAD event comes
    again = Switch(2, ("10.9.0.2", 40004))
    features(app, again)
    assert app.datapaths[2] is again and app.switches[2]["connects"] == 2
    dead(app, live)
    assert app.datapaths[2] is again and app.switches[2]["connected"]
    dead(app, again)
    assert 2 not in app.datapaths and not app.switches[2]["connected"]
    assert not app.switches[2]["ready"] and app.counters["duplicate_switch"] == 1


# ---- groups: their state, and the trees a switch gets back ---------------------------------
def test_groups_state_and_a_reconnecting_switch_gets_its_trees(build, clock) -> None:
    app, spawned = build()
    s = {d: connect(app, d) for d in (1, 2, 3)}
    for host in ("h0", "h1", "h2"):  # the source a member too
        says(app, host, igmp.join(G, TOPO.host(host).ip))
    sends(app, "h0", G)
    sends(app, "h3", NOBODYS)  # a group nobody joined: a drop entry at h3's switch
    up = next(p for p, n in TOPO.ports("s2").items() if n == "s1")
    groups = app.groups_state(live=False)
    assert list(groups) == [G, NOBODYS]
    members = groups[G]["members"]
    assert list(members) == ["h0", "h1", "h2"]
    assert {k: members["h1"][k] for k in ("switch", "port")} == {"switch": "s2", "port": 3}
    assert {k: members["h2"][k] for k in ("switch", "port")} == {"switch": "s3", "port": 2}
    assert members["h1"]["mode"] == "exclude"
    tree = groups[G]["sources"]["h0"]
    assert tree["kind"] == "tree" and tree["receivers"] == ["h1", "h2"]
    assert tree["tree"]["s2"] == sorted([3, up]) and tree["tree"]["s3"] == [2]
    assert groups[NOBODYS] == {"members": {}, "sources": {
        "h3": {"kind": "unregistered", "reason": "nobody joined"}}}
    state = app.state()
    assert state["groups"] == groups
    assert state["igmp_handling_ms"]["n"] == 3
    assert state["counters"]["igmp_v3_report"] == 3 and state["counters"]["mcast_new_flows"] == 2

    # live: the drop entry's packets, read from h3's switch (its cookie names the key)
    key_id = app.key_ids[(NOBODYS, "h3")]
    s[3].flows = [ofproto_v1_3_parser.OFPFlowStats(cookie=COOKIE_MCAST | key_id,
                                                   packet_count=7, instructions=[]),
                  ofproto_v1_3_parser.OFPFlowStats(cookie=COOKIE_MCAST | 999,
                                                   packet_count=50, instructions=[])]
    live = app.groups_state()
    assert live[NOBODYS]["sources"]["h3"]["dropped_packets"] == 7
    assert "dropped_packets" not in live[G]["sources"]["h0"]
    assert call(spawned, "GET", "/groups") == ("200 OK", live)

    dead(app, s[3])  # s3 comes back: emptied, then its tree and its drop entry again
    back = Switch(3, app=app)
    features(app, back)
    gm = [m for m in back.sent if isinstance(m, ofproto_v1_3_parser.OFPGroupMod)
          and m.command == ofproto_v1_3.OFPGC_ADD]
    assert [[a.port for b in m.buckets for a in b.actions] for m in gm] == [[2]]
    mcast = {(m.match.get("ipv4_dst"), m.match.get("ipv4_src")): m for m in back.sent
             if isinstance(m, ofproto_v1_3_parser.OFPFlowMod) and m.priority == PRIO_MCAST}
    assert set(mcast) == {(G, "10.0.0.1"), (NOBODYS, "10.0.0.4")}
    assert type(mcast[(G, "10.0.0.1")].instructions[0].actions[0]).__name__ == "OFPActionGroup"
    assert mcast[(NOBODYS, "10.0.0.4")].instructions == []  # the drop entry
    assert back.kinds()[-1] == "OFPBarrierRequest"


# ---- failed nodes through the API -------------------------------------------------------
BAD_BODIES = [{}, {"nodes": 2}, {"nodes": "2"}, {"nodes": [4]}, {"nodes": [-1]},
              {"nodes": [1.0]}, {"nodes": [True]}, {"nodes": None}, {"node": [1]}]


def test_a_change_is_unconfirmed_until_every_switch_it_touched_answers(build, clock) -> None:
    app, _ = build()
    s = {d: connect(app, d) for d in (1, 2, 3)}
    assert app.state()["unconfirmed"] == 0
    for host in ("h1", "h2"):
        says(app, host, igmp.join(G, TOPO.host(host).ip))
    sends(app, "h0", G)  # a new source: its tree on the switches to h1 and h2
    touched = set(app.installed[(G, "h0")])  # every switch of the tree got its entry
    assert app.state()["unconfirmed"] == len(touched) == 3
    for d in sorted(touched)[:-1]:
        barriers(app, s[d])
    assert app.state()["unconfirmed"] == 1  # one switch has not said it applied its part
    dead(app, s[max(touched)])  # gone: it answers nothing, its reconnection reprograms it
    assert app.state()["unconfirmed"] == 0


def test_nodes_fail_and_restore_and_bad_bodies_are_refused(build, clock) -> None:
    app, spawned = build()
    s = {d: connect(app, d) for d in (1, 2, 3)}
    says(app, "h1", igmp.join(G, "10.0.0.2"))
    says(app, "h2", igmp.join(G, "10.0.0.3"))
    sends(app, "h0", G)
    why = 'give {"nodes": [ids]} with node ids in 0..3'
    for body in BAD_BODIES:
        for action in (app._fail_nodes, app._restore_nodes):
            with pytest.raises(ValueError) as exc:
                action(body)
            assert str(exc.value) == why, body
        assert call(spawned, "POST", "/nodes/fail", body) == ("400 Bad Request",
                                                               {"error": why})
    assert app.failed == set() and app.policy.failed == set()

    s[3].sent.clear()
    assert call(spawned, "POST", "/nodes/fail", {"nodes": [2]}) == ("200 OK", {"failed": [2]})
    assert app._fail_nodes({"nodes": [3]}) == {"failed": [2, 3]}  # added to those failed
    assert app.policy.failed == {2, 3} and app.state()["failed"] == [2, 3]
    tree = app.groups_state(live=False)[G]["sources"]["h0"]
    assert tree["receivers"] == ["h1"] and "s3" not in tree["tree"]
    assert "OFPGroupMod" in s[3].kinds()  # the tree taken off h2's switch
    assert app._restore_nodes({"nodes": [3]}) == {"failed": [2]}
    assert call(spawned, "POST", "/nodes/restore", {"nodes": [2]}) == ("200 OK",
                                                                        {"failed": []})
    assert app.groups_state(live=False)[G]["sources"]["h0"]["receivers"] == ["h1", "h2"]


@pytest.mark.skipif(os.geteuid() != 0, reason="connects as another user (make test runs as root)")
def test_a_refused_api_connection_is_counted(build, caplog) -> None:
    """The socket's mode keeps other users out; past it (opened here), the app's peer check
    refuses them, counts it and says so."""
    app, spawned = build()
    listening, path = spawned["server"][0], Path(os.environ[ENV_API_SOCKET])
    os.chmod(path.parent, 0o711)
    os.chmod(path, 0o666)
    theirs, ours = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)
    try:
        os.seteuid(NOBODY)
        try:
            theirs.connect(str(path))
        finally:
            os.seteuid(0)
        ours.connect(str(path))
        listening.settimeout(5.0)
        conn, _ = listening.accept()  # nobody's refused and closed; root's taken
        conn.close()
    finally:
        theirs.close()
        ours.close()
    assert app.counters["api_refused"] == 1
    assert f"API connection from uid {NOBODY} refused" in caplog.text


# ---- querier and timers ------------------------------------------------------------------
def queries(switches: dict[int, Switch]) -> list[tuple[int, list[int], igmp.QueryFields]]:
    """The queries sent since the last look: (dpid, ports, its fields)."""
    out = [(d, ports, m.query) for d, dp in switches.items() for ports, m in dp.packets()
           if m.kind == "query"]
    for dp in switches.values():
        dp.sent.clear()
    return out


def test_the_querier_queries_at_startup_yields_and_takes_over_again(build, clock) -> None:
    app, _ = build(ControllerConfig(timers=TIMERS))
    s = {d: connect(app, d) for d in (1, 2, 3)}
    t0 = clock.now
    state = {"startup": 2, "due": t0 + TIMERS.startup_interval, "was": True}  # as the loop
    app._querier_step(state)
    assert queries(s) == []
    general = igmp.QueryFields("0.0.0.0", 2.0, False, 2, 20.0)
    for at in (5.0, 10.0):  # robustness startup queries, a quarter interval apart
        clock.now = t0 + at
        app._querier_step(state)
        assert queries(s) == [(2, [2, 3], general), (3, [2, 3], general)]
    clock.now = t0 + 29.0
    app._querier_step(state)
    assert queries(s) == [] and app.counters["queries_sent"] == 2

    says(app, "h1", igmp.IgmpMessage(3, "query", src_ip="10.0.0.1",  # h0's address
                                     query=igmp.QueryFields("0.0.0.0", 1.0)))
    assert app.counters["igmp_query_not_from_its_host"] == 1 and queries(s) == []
    assert app.state()["querier"]["role"] == "querier"
    clock.now = t0 + 29.5  # h1 queries from a lower address, every 10 s: it is querier
    says(app, "h1", igmp.IgmpMessage(3, "query", src_ip="10.0.0.2", query=igmp.QueryFields(
        "0.0.0.0", 1.0, False, 2, 10.0)))
    assert [(d, p) for d, p, _ in queries(s)] == [(2, [2]), (3, [2, 3])]  # passed on
    assert app.state()["querier"]["role"] == "non-querier"
    assert app.membership.timers.query_interval == 10.0 and app.policy.routers == {"h1"}
    for at in (30.0, 50.0):  # quiet while it is present: 2 x 10 + 2 / 2 s from its query
        clock.now = t0 + at
        app._querier_step(state)
        assert queries(s) == []
    clock.now = t0 + 51.0  # gone: querier again, a query at once, our own timers
    app._querier_step(state)
    assert [(d, q.group) for d, _, q in queries(s)] == [(2, "0.0.0.0"), (3, "0.0.0.0")]
    assert app.membership.timers == TIMERS and app.counters["queries_sent"] == 3


def test_a_leave_is_asked_about_lmqi_apart_then_the_member_dropped(build, clock,
                                                                  appmod) -> None:
    timers = dataclasses.replace(TIMERS, robustness=3)  # three queries, LMQT 1.5 s
    app, _ = build(ControllerConfig(timers=timers))
    s = {d: connect(app, d) for d in (1, 2, 3)}
    says(app, "h1", igmp.join(G, "10.0.0.2"))
    says(app, "h2", igmp.join(G, "10.0.0.3"))
    sends(app, "h0", G)
    queries(s)
    t0 = clock.now
    says(app, "h2", igmp.leave(G, "10.0.0.3"))
    specific = (3, [2], igmp.QueryFields(G, 0.5, False, 3, 20.0))  # to h2's port alone
    assert queries(s) == [specific]
    for at, want in ((0.4, []), (0.5, [specific]), (0.9, []), (1.0, [specific]), (1.4, [])):
        clock.now = t0 + at
        app._expiry_step()
        assert queries(s) == want, at
    assert list(app.groups_state(live=False)[G]["members"]) == ["h1", "h2"]  # until LMQT
    clock.now = t0 + 1.5
    app._expiry_step()
    assert list(app.groups_state(live=False)[G]["members"]) == ["h1"]
    assert "s3" not in app.groups_state(live=False)[G]["sources"]["h0"]["tree"]
    deleted = [m for m in s[3].sent if isinstance(m, ofproto_v1_3_parser.OFPGroupMod)]
    assert [m.command for m in deleted] == [ofproto_v1_3.OFPGC_DELETE]
    clock.now = t0 + 5.0
    app._expiry_step()
    assert queries(s) == [] and not app._asking and app.counters["queries_sent"] == 3

    sends(app, "h3", NOBODYS)  # unregistered: a drop entry at s3, gone after the TTL
    s[3].sent.clear()
    clock.now += appmod.UNREGISTERED_TTL + 1.0
    app._expiry_step()
    gone = [(m.command, m.match.get("ipv4_dst")) for m in s[3].sent
            if isinstance(m, ofproto_v1_3_parser.OFPFlowMod)]
    assert gone == [(ofproto_v1_3.OFPFC_DELETE_STRICT, NOBODYS)]
    assert (NOBODYS, "h3") not in app.decisions and app.counters["unregistered_forgotten"] == 1


APP = """
import logging, time
from collections import Counter
from controller.app import McastlabController, UNREGISTERED_TTL
from controller.config import ControllerConfig
from controller.multicast import Decision

app = McastlabController.__new__(McastlabController)
app.logger, app.counters = logging.getLogger("test"), Counter()
app.logger.disabled = True  # the failing steps' tracebacks: counted below
app.config = ControllerConfig(data_rate=5)

# a timer loop's step that raises: counted, and the loop goes on
def boom():
    raise KeyError("a step went wrong")
for _ in range(3):
    app._guarded("expiry", boom)
assert app.counters["loop_errors_expiry"] == 3

# multicast data packet-ins from one host: twice the rate at once, then cut
app.host_by_ip, app._data_buckets = {"10.0.0.1": "h0"}, {}
key = ("239.1.1.1", "h0")
app.decisions, app.installed = {key: Decision("unregistered")}, {key: {}}
class Switch:
    id = 1
for _ in range(30):
    app._on_mcast_data(Switch(), 1, "h0", "10.0.0.1", "239.1.1.1", b"x")
assert app.counters["mcast_rate_limited"] == 20, app.counters

# a query whose source is not the sending host's address: ignored before the election
app.ip_of = {"h0": "10.0.0.1"}
class Msg:
    src_ip, query = "10.0.0.7", object()
app._on_query("h0", Msg(), b"", 0.0)
assert app.counters["igmp_query_not_from_its_host"] == 1

# a decision for a group nobody joined is forgotten after UNREGISTERED_TTL
app.datapaths, app._matches, app.key_ids = {}, {key: 1}, {key: 1}
app.sources_of, app._unregistered = {"239.1.1.1": {"h0"}}, {key: 0.0}
app._forget_unregistered(UNREGISTERED_TTL / 2)
assert key in app.decisions
app._forget_unregistered(UNREGISTERED_TTL + 1)
assert key not in app.decisions and not app.sources_of and not app._unregistered
assert app.counters["unregistered_forgotten"] == 1
print("ok")
"""


def test_the_app_survives_floods_failed_steps_and_forged_queries() -> None:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(APP)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
