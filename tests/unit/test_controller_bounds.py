"""The controller's state stays bounded against hostile hosts: queries split to fit the MTU,
groups and sources per port capped, another querier's QRV/QQI kept within range; and, in
the app (run in a subprocess: importing os-ken patches the process with eventlet), a timer
loop's failing step, multicast data floods, queries that speak for another address and
decisions for groups nobody joined."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from controller import igmp
from controller.membership import Membership
from controller.querier import Querier, adopted
from controller.timers import IgmpTimers

GROUP = "239.1.2.3"


def sources(n: int) -> tuple[str, ...]:
    return tuple(f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(n))


def test_a_query_naming_many_sources_is_split_to_fit_the_mtu() -> None:
    many = sources(1000)
    frames = igmp.queries("10.0.255.254", GROUP, 1.0, 125.0, 2, many)
    assert len(frames) == 3 and all(len(f) <= 14 + 1500 for f in frames)
    parsed = [igmp.parse(f).query for f in frames]
    assert sum((q.sources for q in parsed), ()) == many
    assert len(igmp.queries("10.0.255.254", GROUP, 1.0, 125.0, 2, sources(70000))) == 192
    assert len(igmp.queries("10.0.255.254", None, 10.0, 125.0)) == 1  # a general query


def test_a_port_holds_at_most_its_groups_and_sources() -> None:
    m = Membership(IgmpTimers(), max_groups=3, max_sources=4)
    for g in range(3):
        assert not m.record(f"239.0.0.{g}", "h1", "is_ex", set(), 0.0).ignored
    assert m.record("239.0.0.9", "h1", "is_ex", set(), 0.0).ignored == "groups_cap"
    assert not m.record("239.0.0.0", "h1", "is_ex", set(), 1.0).ignored  # one it holds
    assert not m.record("239.0.0.9", "h2", "is_ex", set(), 0.0).ignored  # another port
    assert m.record(GROUP, "h2", "allow", set(sources(5)), 0.0).ignored == "sources_cap"
    assert not m.record(GROUP, "h2", "allow", set(sources(4)), 0.0).ignored
    assert m.record(GROUP, "h2", "allow", {"10.9.9.9"}, 0.0).ignored == "sources_cap"
    assert m.members("239.0.0.9", 0.0) == {"h2"}


def test_another_queriers_timers_are_adopted_within_range() -> None:
    ours = IgmpTimers(query_interval=125.0, query_response_interval=10.0)
    big = adopted(ours, 7, igmp.decode(0xFF))  # QQIC 0xFF: 31744 s
    assert big.query_interval == 125.0 and big.robustness == 7
    assert adopted(ours, 0, 0).query_interval == 125.0 and adopted(ours, 0, 0).robustness == 2
    assert adopted(ours, 3, 1.0).query_interval == 10.0 and adopted(ours, 3, 60).robustness == 3
    q = Querier("10.0.255.254", ours)
    assert q.heard_query("h1", "10.0.0.2", 7, igmp.decode(0xFF), now=0.0)
    assert not q.is_querier(879.0) and q.is_querier(881.0)  # 7 x 125 + 10 / 2: not 18 hours


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
