"""testbed.specs.traffic_model: the background-traffic model's distributions (think times,
message sizes, destinations per pattern), pacing, validation naming the bad key, the
accepted load, and the per-host plans and their destination shares."""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter

import pytest

from testbed.specs.traffic_model import (
    BULK_TCP_CHUNK,
    PATTERNS,
    UDP_PAYLOAD,
    MessageSource,
    Pacer,
    TrafficSpec,
    accepted_load,
    burstiness,
    plan,
    think_mean_s,
)

GROUP = ["h0", "h1", "h2", "h3", "h4"]
N = 20_000


def source(spec: TrafficSpec, src: str = "h1", group: list[str] = GROUP,
           nbrs: dict[str, list[str]] | None = None, link_mbit: float = 100.0) -> MessageSource:
    return MessageSource.from_config(plan(spec, group, nbrs or {}, link_mbit, seed=7)[src])


def draws(src: MessageSource, n: int = N, seed: int = 3) -> list[tuple[float, str, int]]:
    rng = random.Random(seed)
    return [src.next(rng) for _ in range(n)]


# ---- distributions ----------------------------------------------------------------------
def test_think_time_is_exponential_with_the_load_mean() -> None:
    spec = TrafficSpec("uniform", load=0.25, size=1000)
    mean = think_mean_s(spec, 100.0)
    assert mean == pytest.approx(1000 * 8 / (0.25 * 100e6))
    thinks = [t for t, _, _ in draws(source(spec))]
    assert statistics.fmean(thinks) == pytest.approx(mean, rel=0.03)
    cv = statistics.pstdev(thinks) / statistics.fmean(thinks)
    assert cv == pytest.approx(1.0, abs=0.05)
    # memoryless shape: P(T > mean) = 1/e
    assert sum(t > mean for t in thinks) / N == pytest.approx(math.exp(-1), abs=0.02)


def test_load_zero_never_sends() -> None:
    spec = TrafficSpec("uniform", load=0)
    assert think_mean_s(spec, 100.0) == math.inf
    src = source(spec)
    assert not src.sends
    with pytest.raises(ValueError):
        src.next(random.Random(1))


def test_message_size_is_uniform_with_the_given_mean() -> None:
    sizes = [m for _, _, m in draws(source(TrafficSpec("uniform", load=0.1, size=500)))]
    assert min(sizes) >= 1 and max(sizes) <= 999
    assert min(sizes) < 20 and max(sizes) > 980  # the whole range is used
    assert statistics.fmean(sizes) == pytest.approx(500, rel=0.02)
    one = {m for _, _, m in draws(source(TrafficSpec("uniform", load=0.1, size=1)), 100)}
    assert one == {1}


def test_burstiness_sets_how_much_a_window_of_messages_varies() -> None:
    """The bytes in windows of n expected messages vary by sqrt(burstiness / n) of their
    mean (what fidelity.link_floor allows a random source); a paced stream hardly at all."""
    spec = TrafficSpec("hotspot", load=0.1, size=1024, hot_fraction=0.5)
    sizes = range(1, 2 * 1024)  # every size a message can have, equally likely
    exact = statistics.fmean(x * x for x in sizes) / statistics.fmean(sizes) ** 2
    assert burstiness(spec) == pytest.approx(exact)
    assert burstiness(spec) == pytest.approx(4 / 3, rel=1e-3)
    src, n = source(spec, link_mbit=10.0), 50
    window, t, sums = n * src.think_mean, 0.0, [0.0]
    for think, _, size in draws(src):
        t += think
        while t >= window * len(sums):
            sums.append(0.0)
        sums[-1] += size
    sums = sums[:-1]  # the last window is cut off
    assert statistics.pstdev(sums) / statistics.fmean(sums) == pytest.approx(
        math.sqrt(burstiness(spec) / n), rel=0.15)
    assert burstiness(TrafficSpec("bulk-tcp", load=0.5)) == 0.0


def test_uniform_destinations_are_even_and_never_self() -> None:
    counts = Counter(d for _, d, _ in draws(source(TrafficSpec("uniform", load=0.1))))
    assert "h1" not in counts
    assert set(counts) == {"h0", "h2", "h3", "h4"}
    for c in counts.values():
        assert c / N == pytest.approx(0.25, abs=0.02)


def test_hotspot_fraction_on_top_of_the_uniform_share() -> None:
    spec = TrafficSpec("hotspot", load=0.1, hot_fraction=0.3)
    counts = Counter(d for _, d, _ in draws(source(spec, "h1")))
    # hot (default: the group's first host) gets p plus its uniform share of the rest
    assert counts["h0"] / N == pytest.approx(0.3 + 0.7 / 4, abs=0.02)
    for d in ("h2", "h3", "h4"):
        assert counts[d] / N == pytest.approx(0.7 / 4, abs=0.02)
    assert "h1" not in counts


def test_hotspot_node_itself_sends_uniformly() -> None:
    spec = TrafficSpec("hotspot", load=0.1, hot_fraction=0.9, hot="h2")
    counts = Counter(d for _, d, _ in draws(source(spec, "h2")))
    assert "h2" not in counts
    for d in ("h0", "h1", "h3", "h4"):
        assert counts[d] / N == pytest.approx(0.25, abs=0.02)
    other = Counter(d for _, d, _ in draws(source(spec, "h4")))
    assert other["h2"] / N == pytest.approx(0.9 + 0.1 / 4, abs=0.02)


def test_local_sends_only_to_neighbours() -> None:
    nbrs = {"h0": ["h1"], "h1": ["h0", "h2"], "h2": ["h1", "h3"], "h3": ["h2", "h4"],
            "h4": ["h3"]}
    spec = TrafficSpec("local", load=0.1)
    counts = Counter(d for _, d, _ in draws(source(spec, "h2", nbrs=nbrs)))
    assert set(counts) == {"h1", "h3"}
    assert counts["h1"] / N == pytest.approx(0.5, abs=0.02)
    assert {d for _, d, _ in draws(source(spec, "h0", nbrs=nbrs), 200)} == {"h1"}


def test_bulk_is_a_paced_stream_to_the_next_host() -> None:
    udp = source(TrafficSpec("bulk-udp", load=0.5), "h4")
    (think, dst, size), *_ = draws(udp, 3)
    assert (dst, size) == ("h0", UDP_PAYLOAD)
    assert think == pytest.approx(UDP_PAYLOAD * 8 / 50e6)
    assert {d for _, d, _ in draws(udp, 50)} == {"h0"}
    assert think_mean_s(TrafficSpec("bulk-tcp", load=1.0), 100.0) == 0.0  # unpaced
    tcp = source(TrafficSpec("bulk-tcp", load=2.0), "h1")
    assert tcp.next(random.Random(1)) == (0.0, "h2", BULK_TCP_CHUNK)


# ---- pacing -----------------------------------------------------------------------------
def test_pacer_keeps_the_rate_and_resets_when_far_behind() -> None:
    p = Pacer(start=0.0, think_mean=0.01)  # slack: max(4 x 10 ms, 20 ms) = 40 ms
    assert p.advance(0.01, now=0.0) == pytest.approx(0.01)
    assert p.advance(0.01, now=0.045) == pytest.approx(0.02)  # 25 ms late: catch up
    assert p.resets == 0
    assert p.advance(0.01, now=0.5) == 0.5  # far behind (back-pressure): restart from now
    assert p.resets == 1
    assert p.advance(0.01, now=0.5) == pytest.approx(0.51)


# ---- validation -------------------------------------------------------------------------
@pytest.mark.parametrize(("table", "start"), [
    ({"pattern": "uniform", "load": 0.1, "colour": "red"}, "colour: unknown key (known: "),
    ({"load": 0.1}, "pattern: missing"),
    ({"pattern": "uniform"}, "load: missing"),
    ({"pattern": "foo", "load": 0.1}, "pattern: unknown 'foo' (one of uniform, hotspot, "),
    ({"pattern": "uniform", "load": -1}, "load: must be a number >= 0, got -1"),
    ({"pattern": "uniform", "load": "high"}, "load: must be a number >= 0"),
    ({"pattern": "uniform", "load": True}, "load: must be a number >= 0"),
    ({"pattern": "uniform", "load": float("nan")}, "load: must be a number >= 0"),
    ({"pattern": "uniform", "load": 0.1, "size": 0}, "size: must be an integer >= 1"),
    ({"pattern": "uniform", "load": 0.1, "size": 2.5}, "size: must be an integer >= 1"),
    ({"pattern": "uniform", "load": 0.1, "size": 40000, "transport": "udp"}, "size: a UDP"),
    ({"pattern": "hotspot", "load": 0.1, "hot_fraction": 1.5}, "hot_fraction: must be a "),
    ({"pattern": "hotspot", "load": 0.1, "hot_fraction": -0.1}, "hot_fraction: must be a "),
    ({"pattern": "uniform", "load": 0.1, "hot_fraction": 0.2}, "hot_fraction: only applies"),
    ({"pattern": "local", "load": 0.1, "hot": "h1"}, "hot: only applies"),
    ({"pattern": "hotspot", "load": 0.1, "hot": 3}, "hot: must be a host name"),
    ({"pattern": "uniform", "load": 0.1, "transport": "sctp"}, "transport: unknown 'sctp'"),
    ({"pattern": "bulk-udp", "load": 0.1, "transport": "tcp"}, "transport: bulk-udp always"),
    ({"pattern": "uniform", "load": 0.1, "hosts": "everyone"}, "hosts: unknown 'everyone'"),
    ({"pattern": "uniform", "load": 0.1, "hosts": ["h1", 2]}, "hosts: a list must hold"),
    ({"pattern": "uniform", "load": 0.1, "hosts": ["h1", "h1"]}, "hosts: listed more than"),
    ({"pattern": "uniform", "load": 0.1, "hosts": 3}, "hosts: must be one of"),
])
def test_from_dict_names_the_bad_key(table: dict, start: str) -> None:
    with pytest.raises(ValueError) as err:
        TrafficSpec.from_dict(table)
    assert str(err.value).startswith(start), str(err.value)


def test_from_dict_accepts_a_full_table() -> None:
    spec = TrafficSpec.from_dict({"pattern": "hotspot", "load": 1, "size": 64,
                                  "hot_fraction": 0.5, "hot": "h3", "transport": "udp",
                                  "hosts": ["h1", "h3"]})
    assert spec == TrafficSpec("hotspot", 1.0, 64, 0.5, "h3", "udp", ["h1", "h3"])
    assert TrafficSpec.from_dict({"pattern": "bulk-udp", "load": 0.5}).transport_used == "udp"
    assert TrafficSpec.from_dict(spec.to_dict()) == spec


def test_accepted_load_arithmetic() -> None:
    # 4 generators on 100 Mbit/s links, 10 s: 50 MB delivered = 40 Mbit/s of 400
    assert accepted_load(50_000_000, 10.0, 4, 100.0) == pytest.approx(0.1)
    assert accepted_load(125_000, 1.0, 1, 1.0) == pytest.approx(1.0)
    assert accepted_load(1000, 0.0, 4, 100.0) == 0.0
    assert accepted_load(1000, 1.0, 0, 100.0) == 0.0


# ---- plans ------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", PATTERNS)
def test_plan_for_every_pattern(pattern: str) -> None:
    nbrs = {h: [GROUP[(i + 1) % 5]] for i, h in enumerate(GROUP)}
    spec = TrafficSpec(pattern, load=0.2, hot_fraction=0.4 if pattern == "hotspot" else 0.0)
    cfgs = plan(spec, GROUP, nbrs, 100.0, seed=5)
    assert list(cfgs) == GROUP
    json.dumps(cfgs, allow_nan=False)  # the host program gets it as strict JSON
    assert len({c["seed"] for c in cfgs.values()}) == len(GROUP)
    for host, c in cfgs.items():
        assert c["host"] == host and host not in c["dests"] and c["dests"]
        assert c["think_mean_s"] == pytest.approx(think_mean_s(spec, 100.0))
        src = MessageSource.from_config(c)
        assert src.sends
        assert src.next(random.Random(1))[1] in c["dests"] + [c["hot"]]
    if pattern in ("uniform", "hotspot"):
        assert all(len(c["dests"]) == 4 for c in cfgs.values())
    if pattern == "hotspot":
        assert {c["hot"] for c in cfgs.values()} == {"h0"}
    if pattern == "local":
        assert cfgs["h4"]["dests"] == ["h0"]
    if pattern.startswith("bulk"):
        assert [c["dests"] for c in cfgs.values()] == [["h1"], ["h2"], ["h3"], ["h4"], ["h0"]]
        assert all(c["transport"] == pattern[5:] for c in cfgs.values())


def test_plan_edge_cases() -> None:
    assert plan(TrafficSpec("uniform", load=0.1), [], {}, 100.0, 1) == {}
    alone = plan(TrafficSpec("uniform", load=0), ["h3"], {}, 100.0, 1)
    assert alone["h3"]["think_mean_s"] is None  # receives only
    with pytest.raises(ValueError, match="^hosts: uniform traffic needs at least 2"):
        plan(TrafficSpec("uniform", load=0.1), ["h3"], {}, 100.0, 1)
    with pytest.raises(ValueError, match="^hot: 'h9' is not one of the generator hosts"):
        plan(TrafficSpec("hotspot", load=0.1, hot="h9"), GROUP, {}, 100.0, 1)
    with pytest.raises(ValueError, match="^neighbours: h0 has no neighbour"):
        plan(TrafficSpec("local", load=0.1), GROUP, {}, 100.0, 1)
    pair = plan(TrafficSpec("bulk-udp", load=0.5), ["h0", "h1"], {}, 100.0, 1)
    assert pair["h0"]["dests"] == ["h1"] and pair["h1"]["dests"] == ["h0"]


def test_destination_shares_follow_the_sources() -> None:
    import random as _random

    from testbed.specs.traffic_model import destination_shares

    group = ["h0", "h1", "h2", "h3", "h4"]
    spec = TrafficSpec.from_dict({"pattern": "hotspot", "load": 0.1, "hot_fraction": 0.3})
    shares = destination_shares(plan(spec, group, {}, 100.0, 3))
    assert set(shares) == set(group)
    for s, mine in shares.items():
        assert sum(mine.values()) == pytest.approx(1.0) and s not in mine
    assert shares["h1"]["h0"] == pytest.approx(0.3 + 0.7 / 4)
    assert shares["h0"]["h1"] == pytest.approx(0.25)  # the hot node sends uniformly
    cfg = plan(spec, group, {}, 100.0, 3)["h2"]
    src, rng = MessageSource.from_config(cfg), _random.Random(5)
    draws = [src.next(rng)[1] for _ in range(20000)]
    assert draws.count("h0") / len(draws) == pytest.approx(shares["h2"]["h0"], abs=0.02)
    bulk = TrafficSpec.from_dict({"pattern": "bulk-udp", "load": 0.5})
    assert destination_shares(plan(bulk, ["a", "b"], {}, 100.0, 3)) == \
        {"a": {"b": 1.0}, "b": {"a": 1.0}}
