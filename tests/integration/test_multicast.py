"""IP multicast through the controller, checked at the hosts: datagrams are counted on every
host's interface (joined or not) and in the members' sockets."""

from __future__ import annotations

import json
import time

from controller import igmp
from controller.config import ControllerConfig
from controller.timers import IgmpTimers
from testbed.emulation.controller_proc import api_get
from testbed.emulation.network import Emulation
from testbed.hostprogs import command
from topologies import parse_spec

from .mcast import (
    Receiver,
    deliver_to_exactly_the_members,
    members,
    results,
    send,
    send_igmp,
    until,
    wire_counts,
)
from .shared import shared_network

FAST = ControllerConfig(timers=IgmpTimers(query_interval=2.0, query_response_interval=1.0,
                                          last_member_interval=0.3))


# the mesh's two tests leave it as they found it: one network (tests/integration/shared.py)
mesh, mesh_network = shared_network("mesh", "mesh:rows=3,cols=3", controller_config=FAST)


def test_socket_joins_deliver_to_exactly_themembers_on_a_mesh(mesh, tmp_path):
    """On a 3x3 mesh; test_shapes checks the same on the fat tree and the torus it brings
    up (a network each, saved here)."""
    deliver_to_exactly_the_members(mesh, tmp_path)


def test_two_groups_and_link_local(mesh, tmp_path):
    """Two groups with a member in common, each sent to from a host of its own, on the
    mesh's first two rows (on a 2x3 mesh of its own, as it was, the test brought up a
    network more); link-local multicast from a host in the middle of the mesh."""
    groups = {"239.1.1.1": {"h1", "h2"}, "239.2.2.2": {"h2", "h5"}}
    # told to stop with the last count (also=rx): their time is only an upper bound
    rx = [Receiver(mesh.host(h), g, 30.0, tmp_path) for g, hs in groups.items()
          for h in sorted(hs)]
    for r in rx:
        r.wait_ready()
    until(lambda: all(members(mesh.controller.api, g) == hs for g, hs in groups.items()),
          time.monotonic() + 5)  # the joins arrived: each sender's first datagram asks for
    w1 = wire_counts(mesh, "h0", "239.1.1.1", tmp_path, settle=0)  # its tree then
    w2 = wire_counts(mesh, "h3", "239.2.2.2", tmp_path, settle=0)
    # Link-local multicast (not IGMP) reaches every host, as on a snooping switch.
    ll = wire_counts(mesh, "h4", "224.0.0.123", tmp_path, settle=0, also=rx)
    results(rx)
    hosts = [h.name for h in mesh.topo.hosts]
    assert w1 == {h: 5 if h in groups["239.1.1.1"] else 0 for h in hosts}, w1
    assert w2 == {h: 5 if h in groups["239.2.2.2"] else 0 for h in hosts}, w2
    assert ll == {h: 0 if h == "h4" else 5 for h in hosts}, ll


# the star's tests that leave it as they found it (their members gone, no group joined)
# share one network (tests/integration/shared.py). Its general queries 3 s apart: crafted
# joins that nothing refreshes last 7 s (test_v1_v2_v3_joins_leave_and_expiry)
STAR = ControllerConfig(timers=IgmpTimers(query_interval=3.0, query_response_interval=1.0,
                                          last_member_interval=0.3))
star, star_network = shared_network("star", "star:hosts=4", controller_config=STAR)


def test_socket_joins_deliver_to_exactly_themembers_on_a_star(star, tmp_path):
    deliver_to_exactly_the_members(star, tmp_path)


def test_unregistered_groups_are_dropped_and_counted(star, tmp_path):
    wire = wire_counts(star, "h0", "239.9.9.9", tmp_path)
    groups = api_get(star.controller.api, "/groups")
    assert wire == {"h0": 0, "h1": 0, "h2": 0, "h3": 0}
    src = groups["239.9.9.9"]["sources"]["h0"]
    assert src["kind"] == "unregistered"
    assert src["dropped_packets"] >= 4  # the first one went to the controller


def test_the_igmp_load_host_program_is_taken_in_whole(star):
    """The forwarding bench's IGMP load (testbed.hostprogs.igmp_load: v2 reports and leaves
    built by controller.igmp) reaches the controller as valid reports and leaves, each
    message counted once (100/s, under the controller's 200/s per host)."""
    h3 = star.host("h3")

    def counted() -> tuple[int, int]:
        c = api_get(star.controller.api, "/state")["counters"]
        return c.get("igmp_v2_report", 0), c.get("igmp_v2_leave", 0)

    before = counted()
    out = h3.popen(command("igmp_load", "h3-eth0", h3.IP(), h3.MAC(), 100, 1.0, 7), text=True)
    stdout, stderr = out.communicate(timeout=30)
    assert out.returncode == 0, stderr
    sent = json.loads(stdout)["sent"]
    assert 90 <= sent <= 110
    until(lambda: sum(counted()) - sum(before) >= sent, time.monotonic() + 5)
    reports, leaves = (a - b for a, b in zip(counted(), before, strict=True))
    assert (reports, leaves) == ((sent + 1) // 2, sent // 2)
    assert "igmp_bad_checksum" not in api_get(star.controller.api, "/state")["counters"]
    # an odd count ends on a report: leave that group, as the shared network was
    held = [g for g, v in api_get(star.controller.api, "/groups").items()
            if "h3" in v.get("members", {})]
    send_igmp(h3, *(igmp.leave(g, h3.IP(), 2) for g in held))
    until(lambda: not any("h3" in members(star.controller.api, g) for g in held),
          time.monotonic() + 5)


def test_v1_v2_v3_joins_leave_and_expiry(star, tmp_path):
    """Joins crafted in three IGMP versions; a v2 leave stops delivery at once (after the
    group queries); members that stop reporting expire (and leave the star as it was)."""
    group = "239.7.7.7"

    def igmp_from(host, kind):
        send_igmp(host, {"v1": igmp.join(group, host.IP(), 1),
                         "v2": igmp.join(group, host.IP(), 2),
                         "leave": igmp.leave(group, host.IP(), 2),
                         "v3": igmp.join(group, host.IP(), 3)}[kind])

    def reports() -> dict[str, int]:
        c = api_get(port, "/state")["counters"]
        return {v: c.get(f"igmp_{v}_report", 0) for v in ("v1", "v2", "v3")}

    # The joins, a check, the leave, its last-member time and a check take about 4 s: the
    # members (by the crafted joins) last 7 s without reports, after those checks.
    timers = STAR.timers
    emu, port = star, star.controller.api
    before = reports()  # the shared star's counters count the earlier tests' reports too
    for h, kind in (("h1", "v1"), ("h2", "v2"), ("h3", "v3")):
        igmp_from(emu.host(h), kind)
    joined = time.monotonic()
    until(lambda: members(port, group) == {"h1", "h2", "h3"}, joined + 5)
    got = {v: n - before[v] for v, n in reports().items()}
    assert got["v1"] == 1 and got["v2"] == 1 and got["v3"] >= 1, got
    assert wire_counts(emu, "h0", group, tmp_path) == {"h0": 0, "h1": 5, "h2": 5, "h3": 5}

    igmp_from(emu.host("h2"), "leave")  # h2 is gone after the group's queries
    until(lambda: "h2" not in members(port, group),
          time.monotonic() + timers.last_member_time + 0.5)
    assert wire_counts(emu, "h0", group, tmp_path) == {"h0": 0, "h1": 5, "h2": 0, "h3": 5}

    # Nothing answers the queries for the crafted joins: they expire.
    until(lambda: not members(port, group), joined + timers.membership_interval + 0.5)
    assert wire_counts(emu, "h0", group, tmp_path) == {"h0": 0, "h1": 0, "h2": 0, "h3": 0}
    assert group not in api_get(emu.controller.api, "/state")["groups"] or \
        not api_get(emu.controller.api, "/groups")[group]["members"]


def test_forced_igmp_versions_and_socket_leave(caps, clean_after, tmp_path):
    """Hosts forced to IGMPv1/v2 join through real sockets; closing a socket (its leave)
    stops delivery to that host while the others keep receiving."""
    group = "239.3.3.3"
    with Emulation(parse_spec("star:hosts=4"), caps=caps, controller_config=FAST) as emu:
        emu.host(1).cmd("echo 1 > /proc/sys/net/ipv4/conf/h1-eth0/force_igmp_version")
        emu.host(2).cmd("echo 2 > /proc/sys/net/ipv4/conf/h2-eth0/force_igmp_version")
        short = Receiver(emu.host(2), group, 1.5, tmp_path)
        long = {h: Receiver(emu.host(h), group, 6.0, tmp_path) for h in ("h1", "h3")}
        for r in [short, *long.values()]:
            r.wait_ready()
        port = emu.controller.api
        until(lambda: members(port, group) == {"h1", "h2", "h3"}, time.monotonic() + 5)
        send(emu.host(0), group, 3)
        assert short.result()["count"] == 3  # and h2's socket closes: an IGMPv2 leave
        counters = api_get(emu.controller.api, "/state")["counters"]
        assert counters.get("igmp_v1_report", 0) >= 1
        assert counters.get("igmp_v2_report", 0) >= 1 and counters.get("igmp_v2_leave", 0) >= 1
        until(lambda: "h2" not in members(port, group),
               time.monotonic() + FAST.timers.last_member_time + 0.5)
        wire = wire_counts(emu, "h0", group, tmp_path, count=4, also=long.values())
        assert {h: r["count"] for h, r in zip(long, results(long.values()), strict=True)} \
            == {"h1": 7, "h3": 7}
    assert wire == {"h0": 0, "h1": 4, "h2": 0, "h3": 4}
