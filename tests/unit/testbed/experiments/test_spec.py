"""testbed.experiments.spec: experiment specs are checked in full before anything starts,
naming the offending key; the sweep expands with conditions outermost, and each point says
where t_hold/t_end are measured, which nodes take part, its completion and its send order.
The shipped specs are valid, the default one as `make testbed` promises."""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import tomllib
from pathlib import Path

import pytest

from testbed.emulation.environment import Capabilities
from testbed.experiments.kinds import from_dict, load
from testbed.experiments.spec import Point, SpecError, check_machine

SPEC = {"name": "t", "network": {"topology": "star:hosts=4,bw=100"},
        "sweep": {"algorithms": ["scout-linear", "nack", "binomial"], "sizes": [1024]}}


def test_a_spec_checks_the_completion_and_every_point_records_it() -> None:
    from testbed.experiments.run import point_config

    bad = copy.deepcopy(SPEC) | {"completion": "silent"}
    with pytest.raises(SpecError, match="completion: unknown 'silent' .one of report, none."):
        from_dict(bad)
    for raw, want in ((copy.deepcopy(SPEC), "report"), (SPEC | {"completion": "none"}, "none")):
        spec = from_dict(copy.deepcopy(raw))
        by_alg = {p.algorithm: point_config(spec, p) for p in spec.points()}
        assert by_alg["scout-linear"]["completion"] == want
        assert by_alg["nack"]["completion"] is None and by_alg["binomial"]["completion"] is None

ROOT = Path(__file__).resolve().parents[4]

BASE = {
    "name": "t",
    "network": {"topology": "star:hosts=8,bw=100"},
    "sweep": {"algorithms": ["binomial", "nack"], "sizes": [1024, 65536],
              "traffic": ["none", "bg"], "loss": [0.0, 0.05]},
    "traffic": {"bg": {"pattern": "uniform", "load": 0.1, "hosts": "all"}},
    "faults": {"h3down": {"events": [{"at": 0.5, "down": "h3"}, {"at": 0.2, "up": "h3"}]}},
}


def spec_with(path: str, value: object) -> dict:
    raw = copy.deepcopy(BASE)
    *parents, last = path.split(".")
    t = raw
    for p in parents:
        t = t.setdefault(p, {})
    t[last] = value
    return raw


def test_expansion_conditions_outermost() -> None:
    spec = from_dict(copy.deepcopy(BASE))
    points = spec.points()
    assert len(points) == 2 * 2 * 2 * 2
    assert [p.index for p in points] == list(range(16))
    # the first four share one condition: one MPI job
    assert {p.condition for p in points[:4]} == {(8, "none", 0.0, "none", 1, 0.0)}
    assert [(p.algorithm, p.size) for p in points[:4]] == [
        ("binomial", 1024), ("binomial", 65536), ("nack", 1024), ("nack", 65536)]
    assert len({p.key for p in points}) == 16  # keys identify points (resume)
    assert spec.points()[5].key == points[5].key
    assert spec.hosts == (8,) and not spec.needs_params
    # events are sorted by time
    assert [e.at for e in spec.faults["h3down"]] == [0.2, 0.5]


@pytest.mark.parametrize("path,value,needle", [
    ("sweep.algorithms", ["binomial", "warp"], "sweep.algorithms[1]: unknown broadcast 'warp'"),
    ("sweep.algorithms", ["binomial", "opt-mesh"], "sweep.algorithms[1]: opt-mesh runs on a mesh"),
    ("network.topology", "blob:hosts=3", "network.topology:"),
    ("network.topology", "mesh:rows=0", "network.topology:"),
    ("sweep.sizes", [1024, -1], "sweep.sizes[1]: must be in"),
    ("sweep.sizes", [1 << 40], "sweep.sizes[0]: must be in"),
    ("sweep.sizes", [], "sweep.sizes: must be a non-empty list"),
    ("sweep.hosts", [9], "sweep.hosts[0]: must be in [1, 8]"),
    ("sweep.loss", [0.5], "sweep.loss[0]: 0.5 of every packet"),
    ("sweep.loss", [1.5], "sweep.loss[0]: 1.5 (150% of the packets) is not a fraction"),
    ("sweep.loss", [1], "sweep.loss[0]: 1 would drop every packet"),
    ("sweep.loss", ["lots"], "sweep.loss[0]: 'lots' is not a fraction"),
    ("sweep.traffic", ["none", "storm"], "sweep.traffic[1]: no [traffic.storm] table"),
    ("sweep.faults", ["nope"], "sweep.faults[0]: no [faults.nope] table"),
    ("sweep.groups", [2], "sweep.groups: 2 groups of 8 hosts need 16 hosts"),
    ("sweep.interval", [-0.1], "sweep.interval[0]: must be in"),
    ("sweep.colour", ["red"], "sweep.colour: unknown key"),
    ("traffic.bg.load", -1, "traffic.bg.load:"),
    ("traffic.bg.pattern", "tornado", "traffic.bg.pattern:"),
    ("traffic.bg.hosts", ["h1", "h99"], "traffic.bg: no host 'h99'"),
    ("traffic.bg.hosts", "others", "traffic.bg.hosts: \"others\" needs two hosts"),
    ("faults.h3down.events", [{"at": 1, "down": "h42"}], "faults.h3down.events[0].down: no host"),
    ("faults.h3down.events", [{"at": 1}], "faults.h3down.events[0]: give exactly one of"),
    ("faults.h3down.events", [{"down": "h1"}], "faults.h3down.events[0].at: missing"),
    ("faults.h3down.events", [{"at": 1, "fail": "77"}], "fail: no node id '77'"),
    ("faults.h3down.events", [{"at": 1, "loss": 2.0, "on": "h1"}],
     "events[0].loss: 2.0 (200% of the packets) is not a fraction"),
    ("network.mode", "hub", "network.mode: unknown 'hub'"),
    ("network.switching", "magic", "network.switching: unknown 'magic'"),
    ("repetitions", 0, "repetitions: must be >= 1"),
    ("rounds", 0, "rounds: must be >= 1"),
    ("params.budget_bytes", 0, "params.budget_bytes: must be >= 1"),
    ("params.hold_sends", 0, "params.hold_sends: must be >= 1"),
    ("seed", "x", "seed: must be an integer"),
    ("wibble", 1, "wibble: unknown key"),
    ("send_order", "lifo", "send_order: unknown 'lifo' (one of fifo, overlapped)"),
    ("cluster", {"servers": []}, "cluster.servers: a list of the other servers"),
    ("cluster", {"servers": ["b"], "placement": "random"}, "cluster.placement: unknown"),
    ("cluster", {"servers": ["b"]}, "cluster: star-8 has 1 switch(es), and a host runs"),
])
def test_bad_specs_name_the_key(path: str, value: object, needle: str) -> None:
    with pytest.raises(SpecError) as exc:
        from_dict(spec_with(path, value))
    assert needle in str(exc.value)
    assert exc.value.exit_code == 2


def test_t_holds_sends_are_every_other_host_unless_the_spec_says() -> None:
    assert from_dict(copy.deepcopy(BASE)).param_hold_sends is None
    assert from_dict(spec_with("params.hold_sends", 16)).param_hold_sends == 16


def test_the_points_of_a_condition_take_turns_in_rounds_when_asked() -> None:
    assert from_dict(copy.deepcopy(BASE)).rounds == 1
    assert from_dict(copy.deepcopy(BASE) | {"rounds": 5}).rounds == 5


def test_network_aware_algorithms_need_their_network() -> None:
    raw = spec_with("network.topology", "mesh:rows=2,cols=4")
    raw["sweep"]["algorithms"] = ["opt-mesh", "range-tree"]
    with pytest.raises(SpecError, match=r"sweep.algorithms\[1\]: range-tree runs on a fat"):
        from_dict(raw)
    raw["sweep"]["algorithms"] = ["opt-mesh", "u-mesh"]
    assert from_dict(raw).needs_params
    raw = spec_with("network.topology", "fattree:k=4,n=2,hosts=8")
    raw["sweep"]["algorithms"] = ["range-tree"]
    assert not from_dict(raw).needs_params


def test_missing_algorithms_and_bad_toml(tmp_path: Path) -> None:
    raw = copy.deepcopy(BASE)
    del raw["sweep"]["algorithms"]
    with pytest.raises(SpecError, match=r"sweep.algorithms: missing"):
        from_dict(raw)
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load(bad)
    with pytest.raises(SpecError, match="no spec file"):
        load(tmp_path / "absent.toml")


def caps(netem: bool, statistic: bool) -> Capabilities:
    return Capabilities(root=True, ovs_installed=True, ovs_running=True,
                        ovs_datapaths=["netdev"], kernel_ovs_module=False, sch_htb=True,
                        sch_netem=netem, netfilter_statistic=statistic, mininet=True, mpi=True,
                        controller_importable=True)


def test_machine_check_names_the_key() -> None:
    netem_less = caps(False, True)
    raw = spec_with("network.topology", "star:hosts=8,delay_ms=5")
    with pytest.raises(SpecError, match=r"network.topology: .*no sch_netem"):
        check_machine(from_dict(raw), netem_less)
    no_stat = caps(False, False)
    with pytest.raises(SpecError, match=r"sweep.loss: .*statistic"):
        check_machine(from_dict(copy.deepcopy(BASE)), no_stat)


def test_shipped_specs_are_valid() -> None:
    files = sorted([*(ROOT / "experiments").glob("*.toml"), *(ROOT / "labs").glob("*.toml")])
    assert any(f.name == "default.toml" for f in files)
    for f in files:
        spec = load(f)
        assert spec.points(), f
        assert tomllib.loads(f.read_text())["name"] == spec.name


def test_default_spec_is_what_make_testbed_promises() -> None:
    spec = load(ROOT / "experiments" / "default.toml")
    assert spec.topology.name.startswith("star") and len(spec.topology.hosts) == 16
    assert spec.auto_rate  # the calibrated rate: no flagged points
    assert set(spec.algorithms) == {"mpich", "binomial", "sequential", "nack"}
    assert spec.sizes == (65536, 262144) and spec.hosts == (2, 4, 8, 16)
    assert spec.traffic_names == ("none",) and spec.losses == (0.0,)
    assert not spec.needs_params
    study = load(ROOT / "experiments" / "study.toml")  # the first release's broad default
    assert study.auto_rate and len(study.points()) == 96


def test_params_are_measured_among_the_broadcasting_hosts() -> None:
    raw = spec_with("network.topology", "mesh:rows=8,cols=8,bw=10")
    raw["sweep"]["hosts"] = [8, 16]
    raw["traffic"]["bg"]["hosts"] = "others"
    # the largest broadcast's hosts in rank order, its root first (not the most distant pair
    # of them: t_hold from the root to each in turn, t_end at their median hop count)
    assert from_dict(raw).param_hosts() == [f"h{i}" for i in range(16)]
    raw["sweep"]["groups"] = [1, 2]  # the first group's: every group's root alike
    assert from_dict(raw).param_hosts() == [f"h{i}" for i in range(16)]


def test_excluded_nodes_take_no_part_in_broadcasts() -> None:
    raw = spec_with("network.exclude", [1, 4])
    raw["network"]["mode"] = "contiguous"
    raw["sweep"] |= {"hosts": [3], "groups": [1, 2]}
    spec = from_dict(raw)
    two = next(p for p in spec.points() if p.groups == 2)
    assert spec.groups_of(two) == [["h0", "h2", "h3"], ["h5", "h6", "h7"]]
    raw["sweep"]["hosts"] = [4]
    with pytest.raises(SpecError, match="sweep.groups: 2 groups of 4 hosts need 8 hosts; "
                                        "star-8 has 6 not excluded"):
        from_dict(raw)
    raw = spec_with("network.exclude", list(range(8)))
    with pytest.raises(SpecError, match="network.exclude: every host is excluded"):
        from_dict(raw)


def test_an_order_places_the_communicators_and_leaves_the_rest_to_the_traffic() -> None:
    from testbed.conditions.traffic import resolve_hosts

    raw = spec_with("network.order", [6, 1, 3])
    raw["sweep"] |= {"hosts": [4], "groups": [1, 2]}
    spec = from_dict(raw)
    two = next(p for p in spec.points() if p.groups == 2)
    assert spec.groups_of(two) == [["h6", "h1", "h3", "h0"], ["h2", "h4", "h5", "h7"]]
    assert spec.param_hosts() == ["h6", "h1", "h3", "h0"]  # the root first
    raw["sweep"]["groups"] = [1]
    raw["traffic"]["bg"]["hosts"] = "others"
    spec = from_dict(raw)
    one = spec.groups_of(spec.points()[0])[0]
    assert resolve_hosts(spec.traffic["bg"], spec.topology, one) == ["h2", "h4", "h5", "h7"]
    for order, why in (([1, 9], r"network.order\[1\]: must be"),
                       ([2, 2], r"network.order\[1\]: node 2 is listed twice")):
        with pytest.raises(SpecError, match=why):
            from_dict(spec_with("network.order", order))
    raw = spec_with("network.order", [4])
    raw["network"]["exclude"] = [4]
    with pytest.raises(SpecError, match=r"network.order\[0\]: node 4 is excluded"):
        from_dict(raw)


def test_a_cluster_table_spreads_the_network_and_refuses_what_needs_one_clock() -> None:
    raw = spec_with("cluster", {"servers": ["root@10.1.0.2"], "tunnel": "vxlan"})
    raw["network"]["topology"] = "tree:leaves=2,hosts_per_leaf=4,bw=100"
    spec = from_dict(raw)
    assert spec.cluster is not None and spec.cluster.names == ["localhost", "10.1.0.2"]
    assert spec.cluster.tunnel == "vxlan" and from_dict(copy.deepcopy(BASE)).cluster is None
    raw["sweep"]["interval"] = [0.0, 0.01]
    with pytest.raises(SpecError, match=r"^cluster: injected broadcasts \(sweep.interval"):
        from_dict(raw)
    raw["sweep"]["interval"] = [0.0]
    raw["network"]["switching"] = "linux-bridge"
    with pytest.raises(SpecError, match="^cluster: a network across servers runs on Open"):
        from_dict(raw)
    raw["network"] = {"topology": "star:hosts=8,bw=100"}  # one switch: nothing to spread
    with pytest.raises(SpecError, match="^cluster: star-8 has 1 switch.*10.1.0.2 would run"):
        from_dict(raw)


def test_the_trees_send_order_is_recorded_with_every_point() -> None:
    """fifo unless the spec says otherwise; a point of an algorithm without one records None."""
    from testbed.experiments.run import point_config

    for raw, order in ((copy.deepcopy(BASE), "fifo"), (spec_with("send_order", "overlapped"),
                                                       "overlapped")):
        spec = from_dict(raw)
        assert spec.send_order == order
        by_alg = {p.algorithm: point_config(spec, p) for p in spec.points()}
        assert by_alg["binomial"]["send_order"] == order
        assert by_alg["nack"]["send_order"] is None


def test_loss_as_a_fraction_or_a_percentage() -> None:
    spec = from_dict(spec_with("sweep.loss", [0, "2%", 0.01]))
    assert spec.losses == (0.0, 0.02, 0.01)
    raw = spec_with("faults.h3down.events", [{"at": 1, "loss": "3%", "on": "h1"}])
    assert [e.value for e in from_dict(raw).faults["h3down"]] == [0.03]


# ---- collective = "allgather" ------------------------------------------------------------------
AG = {"name": "ag", "collective": "allgather", "network": {"topology": "star:hosts=4"},
      "sweep": {"algorithms": ["ring", "mpich"], "sizes": [0, 1024], "loss": [0, "5%"]}}


def test_an_allgather_spec_and_its_points():
    spec = from_dict(AG)
    pts = spec.points()
    assert spec.collective == "allgather" and not spec.needs_params and spec.timeout == 600.0
    assert len(pts) == 2 * 2 * 2 and {p.collective for p in pts} == {"allgather"}
    assert {p.hosts for p in pts} == {4} and {p.loss for p in pts} == {0.0, 0.05}
    bcast_twin = from_dict({**AG, "collective": "bcast",
                            "sweep": {**AG["sweep"], "algorithms": ["mpich"]}}).points()[0]
    same = next(p for p in pts if (p.algorithm, p.size, p.loss) == ("mpich", 0, 0.0))
    assert same.condition == bcast_twin.condition and same.key != bcast_twin.key


@pytest.mark.parametrize("change, needle", [
    ({"collective": "allreduce"},
     "collective: unknown 'allreduce' \\(one of bcast, allgather, or a \\[multinode\\] table\\)"),
    ({"sweep": {"algorithms": ["binomial"], "sizes": [1]}},
     "sweep.algorithms\\[0\\]: unknown allgather 'binomial'"),
    ({"sweep": {"algorithms": ["ring"], "sizes": [1], "traffic": ["none"]}},
     "sweep.traffic: an Allgather spec .* reads only algorithms, hosts, loss, loss_scope, "
     "sizes"),
    ({"faults": {}}, "faults: an Allgather spec"),
    ({"sweep": {"algorithms": ["ring"], "sizes": [1], "hosts": [1]}},
     "sweep.hosts\\[0\\]: must be in \\[2, 4\\]"),
    ({"sweep": {"algorithms": ["ring"], "sizes": [1], "loss": [0.3]}}, "sweep.loss\\[0\\]: 0.3"),
    ({"network": {"topology": "star:hosts=4", "mode": "contiguous"}}, "network.mode: an All"),
    ({"sweep": {"algorithms": ["ring"], "sizes": [1], "loss": [0.3],
                "loss_scope": ["multicast", "all"]}},
     "sweep.loss\\[0\\], sweep.loss_scope\\[1\\]: 0.3 of every packet"),
])
def test_allgather_spec_errors_name_the_key(change, needle):
    with pytest.raises(SpecError, match=needle):
        from_dict({**AG, **change})


def test_an_allgather_spec_sweeps_the_loss_scope_as_a_broadcasts_does():
    spec = from_dict({**AG, "sweep": {**AG["sweep"], "loss_scope": ["multicast", "all"]}})
    pts = spec.points()
    # loss 0 once per algorithm and size; 5 % under each scope
    assert len(pts) == 2 * 2 * 3
    assert [(p.loss, p.loss_scope) for p in pts[::4]] == [
        (0.0, None), (0.05, "multicast"), (0.05, "all")]
    assert from_dict({**AG, "network": {**AG["network"], "loss_scope": "multicast"}}
                     ).loss_scope == "multicast"


# ---- loss scopes ---------------------------------------------------------------------------
# every axis a broadcast sweep has, with network.loss_scope: its points' keys as the code
# before sweep.loss_scope made them (a results folder of then must --resume now)
PINNED = {"name": "pin", "network": {"topology": "star:hosts=8,bw=100", "loss_scope": "multicast"},
          "sweep": {"algorithms": ["binomial", "nack"], "sizes": [1024, 65536], "hosts": [4, 8],
                    "traffic": ["none", "bg"], "loss": [0.0, 0.05], "faults": ["none", "lossy"],
                    "interval": [0.0, 0.01]},
          "traffic": {"bg": {"pattern": "uniform", "load": 0.1, "hosts": "all"}},
          "faults": {"lossy": {"events": [{"at": 0.1, "loss": 0.1, "on": "h1"}]}}}


def _keys_digest(points: list[Point]) -> str:
    return hashlib.sha1(json.dumps([(p.index, p.key) for p in points]).encode()).hexdigest()[:16]


def test_the_keys_of_a_spec_without_sweep_loss_scope_are_as_they_were():
    assert Point(0, "binomial", 65536, 8, "none", 0.05, "none", 1, 0.0).key == "38910e5e1bd9"
    assert Point(0, "ring", 4096, 8, "none", 0.01, "none", 1, 0.0,
                 collective="allgather").key == "66afa718dd79"
    points = from_dict(copy.deepcopy(PINNED)).points()
    assert len(points) == 128 and _keys_digest(points) == "c0d86d51cf17c713"
    ag = {**AG, "network": {"topology": "star:hosts=4,bw=100"},
          "sweep": {"algorithms": ["ring", "mcast-concurrent"], "sizes": [1024],
                    "loss": [0.0, 0.01]}}
    assert _keys_digest(from_dict(ag).points()) == "1517bcd224338383"


def test_sweep_loss_scope_runs_each_loss_under_each_scope_and_no_loss_once():
    spec = from_dict(spec_with("sweep.loss_scope", ["multicast", "all"]))
    points = spec.points()
    # per traffic: loss 0 one condition (no scope), 5 % one per scope; 2 x 2 points each
    assert len(points) == 2 * 3 * 4 and [p.index for p in points] == list(range(24))
    conds = [c for c, _ in itertools.groupby(points, key=lambda p: p.condition)]
    assert len(conds) == len(set(conds)) == 6  # a condition's points together: one job
    assert [(p.traffic, p.loss, p.loss_scope) for p in points[::4]] == [
        ("none", 0.0, None), ("none", 0.05, "multicast"), ("none", 0.05, "all"),
        ("bg", 0.0, None), ("bg", 0.05, "multicast"), ("bg", 0.05, "all")]
    assert [spec.scope_of(p) for p in points[::4]] == [None, "multicast", "all"] * 2
    assert len({p.key for p in points}) == 24
    # a point without loss is the same point, and key, as without the sweep's scopes
    plain = from_dict(copy.deepcopy(BASE))
    assert {p.key for p in points if not p.loss} == {p.key for p in plain.points() if not p.loss}
    assert {plain.scope_of(p) for p in plain.points()} == {"all"}  # network.loss_scope's


def test_a_point_whose_fault_sets_a_loss_runs_under_each_scope():
    raw = spec_with("sweep.loss_scope", ["multicast-in", "all"])
    raw["sweep"] |= {"traffic": ["none"], "loss": [0.0], "faults": ["none", "lossy"],
                     "algorithms": ["nack"], "sizes": [1024]}
    raw["faults"]["lossy"] = {"events": [{"at": 0.1, "loss": 0.1, "on": "h1"}]}
    spec = from_dict(raw)
    assert [(p.fault, p.loss_scope) for p in spec.points()] == [
        ("none", None), ("lossy", "multicast-in"), ("lossy", "all")]
    assert spec.loses(0.0, "lossy") and not spec.loses(0.0, "h3down")


@pytest.mark.parametrize("network, sweep, needle", [
    ({"loss_scope": "all"}, {"loss_scope": ["all"]},
     "network.loss_scope, sweep.loss_scope: give one"),
    ({}, {"loss_scope": ["multicast", "some"]},
     "sweep.loss_scope[1]: unknown 'some' (one of all, multicast, multicast-in)"),
    ({}, {"loss_scope": ["all", "all"]}, "sweep.loss_scope[1]: 'all' is listed twice"),
    ({}, {"loss_scope": []}, "sweep.loss_scope: must be a non-empty list"),
    # the cap on loss of every packet: each (loss, scope) that would run, both keys named
    ({}, {"loss": [0.0, 0.3], "loss_scope": ["multicast", "all"]},
     "sweep.loss[1], sweep.loss_scope[1]: 0.3 of every packet leaves TCP, and so MPI, "
     "crawling; at most 0.2 under \"all\""),
    ({}, {"loss": [0.0, 0.3]}, "sweep.loss[1]: 0.3 of every packet leaves TCP, and so MPI, "
     "crawling; above 0.2 set network.loss_scope = \"multicast\""),
])
def test_loss_scope_errors_name_the_keys(network: dict, sweep: dict, needle: str) -> None:
    raw = copy.deepcopy(BASE)
    raw["network"] |= network
    raw["sweep"] |= sweep
    with pytest.raises(SpecError) as exc:
        from_dict(raw)
    assert needle in str(exc.value)


def test_the_cap_spares_losses_of_multicast_datagrams_alone():
    for scopes in (["multicast", "multicast-in"], None):
        raw = spec_with("sweep.loss", [0.0, 0.3])
        if scopes:
            raw["sweep"]["loss_scope"] = scopes
        else:
            raw["network"]["loss_scope"] = "multicast"
        assert {p.loss for p in from_dict(raw).points()} == {0.0, 0.3}
