"""testbed.bench.groups' pure parts: who joins what (three members a group, spread evenly,
never the sender or the prober), percentiles, the table."""

from __future__ import annotations

from collections import Counter

from testbed.bench import groups


def test_every_group_gets_three_members_spread_evenly_never_the_sender_or_prober():
    per_host = Counter(m for i in range(1000) for m in groups.members_of(i, 16))
    assert sum(per_host.values()) == 3000 and not {"h0", "h1"} & set(per_host)
    assert max(per_host.values()) - min(per_host.values()) <= 1
    assert all(len(set(groups.members_of(i, 16))) == 3 for i in range(1000))
    assert groups.group_address(0) == "239.80.0.1" and groups.group_address(999) == "239.80.3.250"


def test_percentile_and_markdown():
    assert groups.percentile([], 0.99) is None
    assert groups.percentile([float(x) for x in range(1, 101)], 0.99) == 99.0
    row = {"groups": 2, "memberships": 6, "joins_absorbed_s": 0.5, "joins_per_s": 12.0,
           "join_ms": {"median": 11.0, "p99": 12.5}, "leave_ms": {"median": 10.0, "p99": None},
           "all_left_s": None, "flows": 4, "openflow_groups": 2, "snooping_entries": 0,
           "delivered": {"h1": 0, "h2": 1, "h3": 1}, "expected": {"h1": 0, "h2": 1, "h3": 1},
           "controller": {"cpu_s_joins": 0.1, "cpu_s_total": 0.5, "rss_mb": 70.0,
                          "peak_rss_mb": 80.0}}
    lines = groups.markdown({"spec": "star:hosts=16", "stream_gap_ms": 0.5, "controller": row})
    assert "| controller | 0.5 | 12 | 11.00 / 12.50 | 10 / - | - | 4 | 2 | 0 | 0/1/1 (0/1/1) |" \
        in lines
    assert "| controller | 0.10 | 0.50 | 70 | 80 |" in lines
