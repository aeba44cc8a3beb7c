"""testbed.fidelity.flags: the rates loaded links should carry, and when a point is flagged: a
starved switch, slow or short links, hosts waiting longer than a frame time, frames a switch
port dropped on arrival, each server of a cluster on its own readings. Links under loss are
recorded, not judged."""

from __future__ import annotations

import random

import pytest

from testbed.fidelity.flags import (
    HOST_WAIT_LIMIT,
    LINK_LIMIT,
    SWITCH_WAIT_LIMIT,
    SWITCH_WORK_LIMIT,
    Monitor,
    expected_rates,
    judge,
    link_floor,
)
from testbed.specs.traffic_model import MessageSource, TrafficSpec, burstiness, plan


def switch(run_ns: int, wait_ns: int, pid: int = 1) -> dict[str, object]:
    """A reading of a switch whose one (main) thread ran and waited this long."""
    return {"pid": pid, "threads": {str(pid): [run_ns, wait_ns]}}


def test_expected_rates_uniform_below_capacity() -> None:
    offered = {h: 20.0 for h in ("a", "b", "c")}
    share = {s: {d: 0.5 for d in offered if d != s} for s in offered}
    cap = dict.fromkeys(offered, 100.0)
    assert expected_rates(offered, share, cap) == pytest.approx(offered)


def test_a_hot_spot_caps_what_its_senders_can_carry() -> None:
    # four senders put 60 Mbit/s each towards "hot" (100 Mbit/s link): 240 in, 100 taken
    offered = {s: 60.0 for s in ("a", "b", "c", "d")}
    share = {s: {"hot": 1.0} for s in offered}
    cap = {**dict.fromkeys(offered, 100.0), "hot": 100.0}
    got = expected_rates(offered, share, cap)
    assert got == pytest.approx(dict.fromkeys(offered, 25.0))


def test_own_link_caps_the_offer() -> None:
    got = expected_rates({"a": 150.0}, {"a": {"b": 1.0}}, {"a": 100.0, "b": 1000.0})
    assert got == {"a": 100.0}


def test_judge_flags_a_starved_switch_and_slow_links() -> None:
    quiet = judge(0.5, [], 2.0, switch_waited=0.1)
    assert quiet["ok"] and quiet["flags"] == []
    busy = judge(1.0, [], 2.0)  # polling ranks keep every core busy: that alone is no flag
    assert busy["ok"] and busy["cpu_busy"] == 1.0
    starved = judge(1.0, [], 2.0, switch_waited=SWITCH_WAIT_LIMIT + 0.01)
    assert not starved["ok"] and "switch waited for a core" in starved["flags"][0]
    slow = judge(0.5, [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 20.0,
                        "ratio": 0.4}], 2.0)
    assert slow["flags"] == ["s1-eth2 carried 20.0 of 50.0 Mbit/s expected"]
    fine = judge(0.5, [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 48.0,
                        "ratio": 0.96}], 2.0)
    assert fine["ok"]


def test_a_random_source_short_by_chance_is_no_flag_a_stalled_one_is() -> None:
    """Chapter 6's hot-2 generator (1 KiB messages at 1 Mbit/s, exponential think times) over
    windows as short as a point's: by chance alone it carries less than LINK_LIMIT of its
    mean in some of them (which flagged the reproduce run's hot spots), never less than its
    floor; a steady source's floor is LINK_LIMIT, and over a long window so is a random one's,
    so a generator that carried half its rate there is flagged."""
    spec = TrafficSpec("hotspot", load=0.1, size=1024, hot_fraction=0.5)
    group = [f"h{i}" for i in range(8, 16)]
    src = MessageSource.from_config(plan(spec, group, {}, 10.0, seed=1)["h13"])
    rng, below_limit, below_floor, tries = random.Random(5), 0, 0, 2000
    for i in range(tries):
        window = 0.05 + 0.45 * i / tries  # 6 to 61 messages expected
        t, got = 0.0, 0
        while True:
            think, _, size = src.next(rng)
            t += think
            if t >= window:
                break
            got += size
        ratio = got / (1e6 / 8 * window)
        messages = window / src.think_mean
        below_limit += ratio < LINK_LIMIT
        below_floor += ratio < link_floor(messages, burstiness(spec))
    assert below_limit > 0.05 * tries and below_floor == 0
    assert link_floor(61, 0.0) == link_floor(None, burstiness(spec)) == LINK_LIMIT
    assert link_floor(250, burstiness(spec)) == LINK_LIMIT  # 2 s of this source
    assert 0.3 < link_floor(61, burstiness(spec)) < 0.5 and link_floor(6, 4 / 3) == 0.0


def test_the_window_judges_each_link_against_its_floor() -> None:
    from topologies import parse_spec

    topo = parse_spec("star:hosts=2,bw=10")
    mon = Monitor(topo)
    (a, b), _ = mon.reads["localhost"]
    host_a, host_b = (h for h in mon.links if mon.links[h][0] in (a, b))
    rx = {mon.links[host_a][0]: 125_000 * 0.3 * 0.6, mon.links[host_b][0]: 0}  # 0.6 Mbit/s
    before = {"t": 0.0, "cpu": (0, 100), "switch": switch(0, 0), "tunnels": {},
              "rx": dict.fromkeys(rx, 0)}
    mon.samples = {"localhost": [before, before | {"t": 0.3, "rx": rx}]}
    steady = mon.window(0.1, 0.2, {host_a: 1.0})
    assert steady["flags"] == [f"{mon.links[host_a][0]} carried 0.6 of 1.0 Mbit/s expected"]
    random_source = mon.window(0.1, 0.2, {host_a: 1.0, host_b: 1.0}, message_bytes=1024,
                               burstiness=4 / 3)  # 37 messages expected: floor 0.24
    assert random_source["links"][0]["floor"] == pytest.approx(0.24, abs=0.01)
    assert random_source["flags"] == [f"{mon.links[host_b][0]} carried 0.0 of 1.0 Mbit/s "
                                      f"expected"]


def test_links_under_loss_are_recorded_not_judged() -> None:
    slow = [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 20.0, "ratio": 0.4}]
    got = judge(0.5, slow, 2.0, judge_links=False)
    assert got["ok"] and got["links"] == slow and got["links_judged"] is False


def test_many_short_links_are_one_flag_naming_the_worst() -> None:
    links = [{"link": f"s{i}-eth1", "expected_mbit": 1.0, "achieved_mbit": i / 10,
              "ratio": i / 10} for i in range(1, 9)]  # 0.1 .. 0.8: six short of 0.7
    got = judge(1.0, links, 2.0)
    assert got["flags"] == ["6 of 8 loaded links carried less than 70% of their expected "
                            "rate (worst: s1-eth1 carried 0.1 of 1.0 Mbit/s expected)"]


def test_hosts_waiting_longer_than_a_frame_time_flag_the_point() -> None:
    frame = 1538 * 8 / 30e6  # 0.41 ms at 30 Mbit/s
    keeping = judge(0.9, [], 2.0, host_wait_s=0.5 * frame, frame_s=frame)
    assert keeping["ok"] and keeping["host_wait_frames"] == pytest.approx(0.5)
    behind = judge(0.9, [], 2.0, host_wait_s=(HOST_WAIT_LIMIT + 0.5) * frame, frame_s=frame)
    assert not behind["ok"]
    assert behind["flags"] == [f"hosts waited for a core {HOST_WAIT_LIMIT + 0.5:.0%} of a "
                               f"frame time each turn (limit {HOST_WAIT_LIMIT:.0%})"]
    unshaped = judge(0.9, [], 2.0, host_wait_s=1.0, frame_s=None)  # no link rate: no yardstick
    assert unshaped["ok"] and unshaped["host_wait_frames"] is None


def test_across_servers_each_server_is_judged_on_its_own_readings() -> None:
    """A cluster's servers are sampled apart (each has its own /proc and /sys): the worst
    switch is named with its server, links are read where they live, and a tunnel that
    dropped frames flags the point (the servers' link, not the emulated one, lost them)."""
    from testbed.cluster.spread import Spread
    from testbed.fidelity.flags import Monitor
    from testbed.specs.cluster import ClusterSpec, Server
    from topologies import parse_spec

    topo = parse_spec("fattree:k=4,n=2,hosts=16,bw=10")
    spread = Spread(topo, ClusterSpec((Server("localhost"), Server("b"))))
    mon = Monitor(topo, spread)
    far_host = next(h.name for h in topo.hosts if spread.server_of(h.name) == "b")
    far_link = mon.links[far_host][0]
    (intfs_b, tunnels_b), (_, tunnels_a) = mon.reads["b"], mon.reads["localhost"]
    assert far_link in intfs_b and len(tunnels_a) == len(tunnels_b) == len(spread.placement.cut)

    def reading(t, busy, sched, rx, sent, dropped, tunnels):
        return {"t": t, "cpu": (busy, 100 * t), "switch": switch(*sched), "rx": rx,
                "tunnels": {e: (sent, dropped) for e in tunnels}}

    mon.samples = {
        "localhost": [reading(0, 0, (0, 0), {}, 0, 0, tunnels_a),
                      reading(2, 100, (100, 10), {}, 2_500_000, 0, tunnels_a)],
        "b": [reading(0, 0, (0, 0), {far_link: 0}, 0, 0, tunnels_b),
              reading(2, 150, (100, 900), {far_link: 2_000_000}, 0, 7, tunnels_b)]}
    got = mon.window(0.5, 1.5, expected_mbit={far_host: 10.0})
    assert got["servers"]["b"]["switch_waited"] == pytest.approx(0.9)
    assert got["servers"]["localhost"]["switch_waited"] == pytest.approx(10 / 110)
    assert got["switch_waited"] == pytest.approx(0.9) and got["cpu_busy"] == pytest.approx(0.75)
    assert got["links"][0]["achieved_mbit"] == pytest.approx(8.0)  # read on b
    assert {t["server"] for t in got["tunnels"]} == {"localhost", "b"}
    assert got["tunnels"][0]["mbit"] == pytest.approx(10.0)
    assert got["flags"][0].startswith("switch on b waited for a core 90%")
    assert got["flags"][-1].startswith(f"tunnels between servers dropped {7 * len(tunnels_b)}")


def test_frames_a_switch_port_dropped_on_arrival_flag_the_point() -> None:
    """A host port of the switch that dropped frames on arrival (an AF_XDP ring the switch
    did not empty in time) lost what the emulated network would have carried: flagged, with
    the ports that dropped most; a port that dropped nothing in the window is not named."""
    from testbed.fidelity.flags import Monitor
    from topologies import parse_spec

    topo = parse_spec("star:hosts=3,bw=100")
    mon = Monitor(topo)
    (a, b, c), _ = mon.reads["localhost"]
    before = {"t": 0, "cpu": (0, 100), "switch": switch(0, 0), "rx": {}, "tunnels": {},
              "dropped": {a: 5, b: 0, c: 2}}
    after = before | {"t": 2, "cpu": (50, 300), "switch": switch(10, 0),
                      "dropped": {a: 5, b: 40, c: 3}}
    mon.samples = {"localhost": [before, after]}
    got = mon.window(0.5, 1.5)
    assert got["port_drops"] == [{"port": b, "server": "localhost", "frames": 40},
                                 {"port": c, "server": "localhost", "frames": 1}]
    assert got["flags"] == [f"switch ports dropped 41 frames from hosts that the switch did "
                            f"not take in time ({b}, {c})"] and not got["ok"]
    mon.samples = {"localhost": [before, before | {"t": 2}]}
    assert mon.window(0.5, 1.5)["ok"]


def test_a_switch_whose_forwarding_thread_never_slept_flags_the_point() -> None:
    """The 8 x 8 mesh at 64 hosts: the switch's one forwarding thread ran 72 % of the window
    and waited for a core the rest (28 % of its time: no flag of its own); a 16-host star's
    switch had work 41 % of its window."""
    mesh = judge(1.0, [], 14.5, switch_waited=0.28, switch_busy=0.72, switch_had_work=1.0)
    assert mesh["flags"] == [f"switch's forwarding thread had work 100% of the time "
                             f"(limit {SWITCH_WORK_LIMIT:.0%})"] and not mesh["ok"]
    assert mesh["switch_busy"] == 0.72 and mesh["switch_had_work"] == 1.0
    star = judge(0.96, [], 1.3, switch_waited=0.26, switch_busy=0.30, switch_had_work=0.41)
    assert star["ok"] and star["switch_had_work"] == 0.41
    edge = judge(1.0, [], 2.0, switch_had_work=SWITCH_WORK_LIMIT - 0.01)
    assert edge["ok"]
    assert not judge(1.0, [], 2.0, switch_had_work=SWITCH_WORK_LIMIT)["ok"]
    assert judge(1.0, [], 2.0)["switch_had_work"] is None  # no reading: no judgement


def test_the_window_judges_the_forwarding_thread_over_its_readings() -> None:
    from topologies import parse_spec

    mon = Monitor(parse_spec("star:hosts=2,bw=10"))
    s = 1_000_000_000
    before = {"t": 0.0, "cpu": (0, 200), "rx": {}, "tunnels": {},
              "switch": {"pid": 5, "threads": {"5": [0, 0], "6": [0, 0]}}}
    busy = before | {"t": 2.0, "cpu": (400, 600),
                     "switch": {"pid": 5, "threads": {"5": [int(1.5 * s), int(0.5 * s)],
                                                      "6": [int(0.1 * s), 0]}}}
    mon.samples = {"localhost": [before, busy]}
    got = mon.window(0.5, 1.5)
    assert got["switch_busy"] == pytest.approx(0.75) and got["switch_had_work"] == 1.0
    assert got["switch_waited"] == pytest.approx(0.5 / 2.1)
    assert got["flags"] == [f"switch's forwarding thread had work 100% of the time "
                            f"(limit {SWITCH_WORK_LIMIT:.0%})"]
    calm = busy | {"switch": {"pid": 5, "threads": {"5": [int(0.6 * s), int(0.2 * s)]}}}
    mon.samples = {"localhost": [before, calm]}
    assert mon.window(0.5, 1.5)["switch_had_work"] == pytest.approx(0.4)
    assert mon.window(0.5, 1.5)["ok"]


def test_across_servers_the_busiest_forwarding_thread_is_named_with_its_server() -> None:
    from testbed.cluster.spread import Spread
    from testbed.specs.cluster import ClusterSpec, Server
    from topologies import parse_spec

    topo = parse_spec("fattree:k=4,n=2,hosts=16,bw=10")
    mon = Monitor(topo, Spread(topo, ClusterSpec((Server("localhost"), Server("b")))))

    def reading(t: float, run_s: float) -> dict[str, object]:
        return {"t": t, "cpu": (0, 100 * (t + 1)), "rx": {}, "tunnels": {},
                "switch": switch(int(run_s * 1e9), 0)}

    mon.samples = {"localhost": [reading(0, 0), reading(2, 0.4)],
                   "b": [reading(0, 0), reading(2, 1.96)]}
    got = mon.window(0.5, 1.5)
    assert got["servers"]["localhost"]["switch_had_work"] == pytest.approx(0.2)
    assert got["switch_had_work"] == pytest.approx(0.98)
    assert got["flags"] == [f"switch's forwarding thread on b had work 98% of the time "
                            f"(limit {SWITCH_WORK_LIMIT:.0%})"]
