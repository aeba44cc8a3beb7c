"""testbed.experiments.operating_point without a network: which points the probe measures
(the sweep's heaviest), how a probed record is judged (flags, failures and calibration's
margin), the walk down the ladder (only what failed is probed again; what set the rate is
named), the cache (keyed by everything the choice depends on; a second run of the same
work takes it and probes nothing) and when a run is probed at all.

Real specs and results folders; the network is a stand-in that records retunes, and the
probe of a rung (a real run on the network) is replaced where a test walks the ladder."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from testbed.experiments import calibration
from testbed.experiments import operating_point as op
from testbed.experiments.kinds import from_dict
from testbed.experiments.run import new_run
from testbed.experiments.spec import ExperimentSpec, Point
from testbed.fidelity.flags import judge
from testbed.fidelity.link_rate import LinkRate, operating_point_text
from testbed.fidelity.wire_units import frame_time_s

from ..emulation.machines import caps

LOSS = """name = "loss"
repetitions = 5
warmup = 2
budget = 30
[network]
topology = "star:hosts=18"
loss_scope = "multicast"
[sweep]
algorithms = ["binomial", "two-stage", "nack"]
sizes = [65536, 1048576, 1024]
hosts = [4, 8, 2]
groups = [1, 2]
loss = [0.0, 0.3, 0.05]
traffic = ["none", "bg"]
faults = ["none", "cut"]
[traffic.bg]
pattern = "uniform"
load = 0.2
hosts = "all"
[faults.cut]
events = [{at = 0.0, down = "h3"}]
"""
HERE = {"cpu_model": "x", "cpus": "2", "host_ports": "afxdp-nonpmd", "calibration": 2}


def spec_of(text: str = LOSS, path: Path | None = None) -> ExperimentSpec:
    return from_dict(tomllib.loads(text), path=path)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCASTLAB_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / op.CACHE_NAME


# ---- the probe set -----------------------------------------------------------------------
def test_the_probe_measures_every_algorithm_and_traffic_at_the_heaviest_of_the_rest() -> None:
    spec = spec_of()
    points = op.heaviest(spec)
    assert [(p.algorithm, p.traffic) for p in points] == [
        (a, t) for t in ("none", "bg") for a in ("binomial", "two-stage", "nack")]
    for p in points:  # largest size, most hosts and groups, highest loss, no fault
        assert (p.size, p.hosts, p.groups, p.loss, p.fault) == (1048576, 8, 2, 0.3, "none")
    keys = {p.key for p in spec.points()}
    assert {p.key for p in points} <= keys  # the run's own points, measured as it would
    assert op.point_text(spec, points[4]) == \
        "two-stage 1 MiB, 8 hosts, 2 groups, traffic bg, loss 30% of multicast datagrams"


def test_the_probe_is_short_and_runs_without_faults_where_the_sweep_has_only_faults() -> None:
    spec = spec_of(LOSS.replace('faults = ["none", "cut"]', 'faults = ["cut"]'))
    probe = op.probe_spec(spec)
    assert (probe.repetitions, probe.warmup, probe.budget, probe.rounds) == \
        (op.PROBE_REPETITIONS, op.PROBE_WARMUP, op.PROBE_BUDGET_S, 1)
    assert {p.fault for p in op.heaviest(spec)} == {"none"}
    few = spec_of(LOSS.replace("repetitions = 5", "repetitions = 2").replace("budget = 30",
                                                                               "budget = 1"))
    assert (op.probe_spec(few).repetitions, op.probe_spec(few).budget) == (2, 1)
    # a probe spec's points are its keys' alone, whatever its sweep holds
    one = op.probe_spec(spec)
    one.keys = frozenset([op.heaviest(spec)[0].key])
    assert [p.key for p in one.points()] == [op.heaviest(spec)[0].key]


def test_the_heaviest_loss_is_taken_per_loss_scope() -> None:
    """A sweep over loss scopes is probed at the highest loss under each scope; a sweep
    without loss at its lossless points."""
    spec = spec_of(LOSS.replace('loss_scope = "multicast"\n', "").replace(
        "loss = [0.0, 0.3, 0.05]", 'loss = [0.0, 0.2, 0.05]\nloss_scope = ["multicast", "all"]'))
    points = op.heaviest(spec)
    got = {(p.algorithm, p.traffic, spec.scope_of(p)): p.loss for p in points}
    assert len(points) == len(got) == 12 and set(got.values()) == {0.2}
    assert {s for _, _, s in got} == {"multicast", "all"}
    assert op.point_text(spec, points[0]) == \
        "binomial 1 MiB, 8 hosts, 2 groups, loss 20% of multicast datagrams"
    quiet = spec_of(LOSS.replace("loss = [0.0, 0.3, 0.05]", "loss = [0.0]"))
    assert [(p.loss, op.scope(quiet, p)) for p in op.heaviest(quiet)] == [(0.0, None)] * 6
    assert op.describe(quiet, op.heaviest(quiet)[0])["scope"] is None


def test_an_allgather_spec_is_probed_at_its_largest_block_and_loss() -> None:
    spec = spec_of('name = "ag"\ncollective = "allgather"\n[network]\ntopology = '
                   '"star:hosts=8"\n[sweep]\nalgorithms = ["ring", "mcast-concurrent"]\n'
                   'sizes = [1024, 65536]\nhosts = [4, 8]\nloss = [0.0, 0.05]\n')
    points = op.heaviest(spec)
    assert [(p.algorithm, p.size, p.hosts, p.loss, p.collective) for p in points] == [
        ("ring", 65536, 8, 0.05, "allgather"), ("mcast-concurrent", 65536, 8, 0.05,
                                                "allgather")]


# ---- judging a probed point ----------------------------------------------------------------
def record(frames: float = 0.5, switch: float = 0.1, work: float | None = None,
           **over: Any) -> dict[str, Any]:
    frame = frame_time_s(50.0)
    fid = judge(0.5, [], 1.0, True, switch, frames * frame, frame, switch_had_work=work)
    return {"status": "ok", "verified": True, "error": None, "fidelity": fid} | over


def test_a_probed_point_keeps_up_only_inside_calibrations_margin() -> None:
    assert op.shortfall(record()) is None
    assert op.shortfall(record(frames=1.2)) == (
        "hosts waited for a core 120% of a frame time each turn (the probe's margin 100%, "
        "the flag's 150%)")
    assert "hosts waited for a core 300% of a frame time each turn (limit 150%)" in \
        op.shortfall(record(frames=3.0))  # the flag itself
    assert op.shortfall(record(switch=0.6)).startswith("switch waited for a core 60%")
    assert op.shortfall(record(work=0.6)) is None  # a star of 64 hosts at its rate
    assert op.shortfall(record(work=0.92)) == (
        "switch's forwarding thread had work 92% of the time (the probe's margin 90%, the "
        "flag's 95%)")
    assert "had work 98%" in op.shortfall(record(work=0.98))  # the flag itself
    assert op.shortfall(record(status="failed", error="nack gave up")) == \
        "failed (nack gave up)"
    assert op.shortfall(record(verified=False)).startswith("failed")
    assert op.shortfall(None) == "not measured"


# ---- down the ladder ------------------------------------------------------------------------
def fake_trial(limits: dict[str, float], calls: list[tuple[float, list[str]]],
               flukes: frozenset[tuple[int, float]] = frozenset()) -> op.Trial:
    """Each point keeps up at and below its limit (by algorithm), but not in the probes
    (attempt, rate) of `flukes`."""
    def trial(mbit: float, points: list[Point], attempt: int) -> op.Rung:
        calls.append((mbit, [p.algorithm for p in points]))
        failed = {p.key: f"hosts waited at {mbit:g}" for p in points
                  if mbit > limits[p.algorithm] or (attempt, mbit) in flukes}
        return op.Rung(mbit, points, failed, 1.0, f"probe/{mbit:g}", attempt)
    return trial


def test_the_walk_steps_down_probing_only_what_failed_and_names_what_set_the_rate() -> None:
    spec = spec_of()
    points = [p for p in op.heaviest(spec) if p.traffic == "none"]
    calls: list[tuple[float, list[str]]] = []
    tried = op.walk(50, points, fake_trial({"binomial": 100, "two-stage": 20, "nack": 30},
                                           calls))
    assert calls == [(50, ["binomial", "two-stage", "nack"]), (30, ["two-stage", "nack"]),
                     (20, ["two-stage"]), (20, ["two-stage"])]  # kept up twice in a row
    v = op.verdict(spec, tried, 50, 3.0)
    assert v["mbit"] == 20 and v["keeps_up"] and v["calibrated_mbit"] == 50
    assert [(f["algorithm"], f["mbit"], f["why"]) for f in v["set_by"]] == \
        [("two-stage", 30, "hosts waited at 30")]
    assert v["set_by"][0]["loss"] == 0.3 and v["set_by"][0]["scope"] == "multicast"
    assert [(r["mbit"], r["attempt"], r["ok"], r["probed"]) for r in v["rungs"]] == \
        [(50, 1, False, 3), (30, 1, False, 2), (20, 1, True, 1), (20, 2, True, 1)]
    assert v["still_failing"] == [] and len(v["points"]) == 3
    text = operating_point_text(v)
    assert text.startswith("operating point 20 Mbit/s, below the calibrated 50")
    assert "two-stage 1 MiB, 8 hosts, 2 groups, loss 30% of multicast datagrams: hosts " \
        "waited at 30" in text


def test_the_calibrated_rate_stands_where_the_heaviest_points_keep_up_there() -> None:
    spec = spec_of()
    calls: list[tuple[float, list[str]]] = []
    tried = op.walk(50, op.heaviest(spec), fake_trial(
        {"binomial": 100, "two-stage": 100, "nack": 100}, calls))
    assert [c[0] for c in calls] == [50, 50]
    v = op.verdict(spec, tried, 50, 1.0)
    assert (v["mbit"], v["keeps_up"], v["set_by"]) == (50, True, [])
    assert "the calibrated rate" in operating_point_text(v)


def test_a_rate_that_keeps_up_once_by_chance_is_not_taken() -> None:
    """The second probe at 30 Mbit/s fails: 30 is not the operating point, and what failed
    there (in the second probe) set the rate."""
    spec = spec_of()
    calls: list[tuple[float, list[str]]] = []
    points = [p for p in op.heaviest(spec) if p.traffic == "none"]
    tried = op.walk(50, points, fake_trial({"binomial": 100, "two-stage": 30, "nack": 100},
                                           calls, frozenset([(1, 30)])))
    assert calls == [(50, ["binomial", "two-stage", "nack"]), (30, ["two-stage"]),
                     (30, ["two-stage"]), (20, ["two-stage"]), (20, ["two-stage"])]
    v = op.verdict(spec, tried, 50, 1.0)
    assert v["mbit"] == 20
    assert [(f["algorithm"], f["mbit"]) for f in v["set_by"]] == [("two-stage", 30)]
    assert [(r["mbit"], r["attempt"], r["ok"]) for r in v["rungs"]][1:3] == \
        [(30, 1, True), (30, 2, False)]


def test_where_no_rung_keeps_up_the_lowest_runs_and_says_what_does_not() -> None:
    spec = spec_of()
    calls: list[tuple[float, list[str]]] = []
    points = [p for p in op.heaviest(spec) if p.traffic == "none"]
    tried = op.walk(20, points, fake_trial({"binomial": 100, "two-stage": 0.5, "nack": 10},
                                           calls))
    assert [c[0] for c in calls] == [20, 10, 5, 3, 2, 1]  # down to the ladder's 1 Mbit/s
    v = op.verdict(spec, tried, 20, 1.0)
    assert (v["mbit"], v["keeps_up"], v["set_by"]) == (1, False, [])
    assert [f["algorithm"] for f in v["still_failing"]] == ["two-stage"]
    text = operating_point_text(v)
    assert "the lowest rung" in text and "two-stage 1 MiB" in text and "carry flags" in text


# ---- the cache -------------------------------------------------------------------------------
def test_the_cache_key_holds_what_the_choice_depends_on() -> None:
    spec = spec_of()
    base = op.workload(spec, op.heaviest(spec), 50)
    same = [LOSS.replace("sizes = [65536, 1048576, 1024]", "sizes = [1048576]"),
            LOSS.replace("repetitions = 5", "repetitions = 50"),
            LOSS.replace("loss = [0.0, 0.3, 0.05]", "loss = [0.3]"),
            LOSS.replace('faults = ["none", "cut"]', 'faults = ["none"]')]
    for text in same:
        other = spec_of(text)
        assert op.workload(other, op.heaviest(other), 50) == base, text
    changed = [LOSS.replace('"binomial", ', ""),
               LOSS.replace("1048576", "262144"),
               LOSS.replace("hosts = [4, 8, 2]", "hosts = [4, 2]"),
               LOSS.replace("groups = [1, 2]", "groups = [1]"),
               LOSS.replace("0.3", "0.2"),
               LOSS.replace('loss_scope = "multicast"', 'loss_scope = "multicast-in"'),
               LOSS.replace("load = 0.2", "load = 0.3"),
               LOSS.replace('traffic = ["none", "bg"]', 'traffic = ["none"]'),
               LOSS.replace("star:hosts=18", "star:hosts=17"),
               LOSS.replace("budget = 30", 'budget = 30\nwait = "spin"'),
               LOSS.replace("budget = 30", 'budget = 30\nsend_order = "overlapped"'),
               LOSS.replace("budget = 30", 'budget = 30\ncompletion = "none"'),
               LOSS.replace('loss_scope = "multicast"',
                            'loss_scope = "multicast"\nswitching = "ovs-snooping"'),
               LOSS.replace('loss_scope = "multicast"',
                            'loss_scope = "multicast"\nmode = "contiguous"'),
               LOSS.replace('loss_scope = "multicast"',
                            'loss_scope = "multicast"\nexclude = [17]')]
    keys = {op.cache_key(base)}
    for text in changed:
        other = spec_of(text)
        work = op.workload(other, op.heaviest(other), 50)
        assert work != base, text
        keys.add(op.cache_key(work))
    assert len(keys) == len(changed) + 1
    assert op.workload(spec, op.heaviest(spec), 30) != base  # another calibrated rate


def test_the_cache_answers_the_same_work_on_the_same_machine(cache: Path) -> None:
    spec = spec_of()
    work = op.workload(spec, op.heaviest(spec), 50)
    assert op.lookup(HERE, work) is None
    op.remember(HERE, work, {"mbit": 20, "keeps_up": True})
    assert op.lookup(HERE, work)["mbit"] == 20
    assert op.lookup({**HERE, "cpus": "4"}, work) is None  # another machine
    assert op.lookup(HERE, {**work, "calibrated_mbit": 70}) is None
    data = json.loads(cache.read_text())
    assert data["machine"] == HERE and len(data["entries"]) == 1
    assert not (cache.parent / "calibration.json").exists()  # the calibrations untouched


# ---- choosing on a run -----------------------------------------------------------------------
class Network:
    """A network up at some rate: what choose() asks of it."""

    def __init__(self, topo: Any) -> None:
        self.topo, self.host_ports, self.retuned = topo, "afxdp-nonpmd", []

    def retune(self, topo: Any) -> None:
        self.retuned.append(topo.host_rate())
        self.topo = topo


def auto_run(tmp_path: Path, mbit: float = 50.0) -> Any:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "loss.toml"
    path.write_text(LOSS)
    spec = spec_of(path=path)
    spec.topology = op.at_rate(spec, mbit)
    (tmp_path / "res").mkdir()
    run = new_run(spec, tmp_path / "res", LinkRate(100.0, mbit, True, "calibration cache"),
                  caps(), lambda _m: None)
    run.caps = caps()
    return run


def test_a_second_run_of_the_same_work_takes_the_cache_and_probes_nothing(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(op, "machine", lambda ports: HERE | {"host_ports": ports})
    calls: list[tuple[float, list[str]]] = []
    monkeypatch.setattr(op, "trial", lambda run, emu, base: fake_trial(
        {"binomial": 100, "two-stage": 20, "nack": 30}, calls))
    first = auto_run(tmp_path / "a")
    assert op.needed(first)
    net = Network(first.spec.topology)
    chosen = op.choose(first, net)
    assert chosen["mbit"] == 20 and not chosen["cached"] and calls
    assert net.retuned == [20.0] and first.spec.topology.host_rate() == 20.0
    config = json.loads((first.out / "config.json").read_text())
    assert config["link_rate"] == {"nominal_mbit": 100.0, "mbit": 20, "auto": True,
                                   "source": "work probe", "dilation": 5.0}
    assert config["topology"]["params"]["bw"] == 20.0
    assert config["operating_point"]["set_by"][0]["algorithm"] == "two-stage"
    assert config["operating_point"]["calibration"] == "calibration cache"
    assert not op.needed(first)  # chosen: a resumed run keeps it

    calls.clear()
    said: list[str] = []
    second = auto_run(tmp_path / "b")
    second.log = said.append
    net = Network(second.spec.topology)
    again = op.choose(second, net)
    assert calls == [] and again["cached"] and again["mbit"] == 20
    assert net.retuned == [20.0]
    config = json.loads((second.out / "config.json").read_text())
    assert config["link_rate"]["source"] == "work probe cache"
    assert any("from the cache of an earlier probe" in line for line in said)
    # --reprobe: probed again, whatever the cache holds
    third = auto_run(tmp_path / "c")
    assert not op.choose(third, Network(third.spec.topology), reprobe=True)["cached"]
    assert calls


def test_only_a_new_automatic_run_on_one_machine_is_probed(tmp_path: Path) -> None:
    run = auto_run(tmp_path / "a")
    assert op.needed(run)
    run.done = {"k"}  # a resumed run that measured points: keeps its rate
    assert not op.needed(run)
    given = auto_run(tmp_path / "b")
    given.config["link_rate"] = LinkRate(100.0, 100.0, False, "given").to_dict()
    assert not op.needed(given)
    path = tmp_path / "given.toml"
    path.write_text(LOSS.replace("star:hosts=18", "star:hosts=18,bw=100"))
    spec = spec_of(path.read_text(), path=path)
    assert not spec.auto_rate and op.listing(spec) == []


def test_list_says_whether_a_probe_will_run_or_the_cache_answers(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(op.os, "geteuid", lambda: 0)
    monkeypatch.setattr(op, "detected", lambda: None)
    monkeypatch.setattr(op, "host_port_type", lambda _caps, _ports: "afxdp-nonpmd")
    monkeypatch.setattr(op, "machine", lambda ports: HERE | {"host_ports": ports})
    spec = spec_of()
    first, = op.listing(spec)
    assert first.startswith("link rate auto: not calibrated for this network yet")
    assert "the 6 heaviest point(s) are probed" in first
    assert "nack 1 MiB, 8 hosts, 2 groups, traffic bg, loss 30% of multicast datagrams" in first
    calibration.store(calibration.topology_key(spec.topology), HERE, {"mbit": 50, "cap": 100})
    probed, = op.listing(spec)
    assert probed.startswith("link rate auto: calibrated 50 Mbit/s (cache); before measuring")
    tried = op.walk(50, op.heaviest(spec), fake_trial(
        {"binomial": 100, "two-stage": 20, "nack": 100}, []))
    op.remember(HERE, op.workload(spec, op.heaviest(spec), 50),
                op.verdict(spec, tried, 50, 9.0))
    answered, = op.listing(spec)
    assert answered.startswith("link rate auto: the cache answers, no probe runs: operating "
                               "point 20 Mbit/s (from the cache of an earlier probe)")
    monkeypatch.setattr(op.os, "geteuid", lambda: 1000)
    assert "unless the cache of an earlier probe answers" in op.listing(spec)[0]


def test_a_rungs_points_and_verdict_are_told_to_the_live_view(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rung of the probe tells the run's live view its points as it starts and its
    verdict once measured (here a stand-in run that writes no record: "not measured")."""
    run = auto_run(tmp_path)
    told: list[tuple[float, list[str], str | None]] = []
    run.live = type("Live", (), {"probe": lambda _s, mbit, points, verdict=None:
                                 told.append((mbit, points, verdict))})()
    monkeypatch.setattr(op, "execute", lambda probe, emu: None)
    points = op.heaviest(run.spec)[:2]
    rung = op.trial(run, Network(run.spec.topology), op.probe_spec(run.spec))(50.0, points, 0)
    texts = [op.point_text(run.spec, p) for p in points]
    assert told[0] == (50.0, texts, None)
    assert told[1][:2] == (50.0, texts) and told[1][2] == "no: " + "; ".join(
        f"{t}: not measured" for t in texts)
    assert len(told) == 2 and set(rung.failed) == {p.key for p in points}


def test_a_run_with_the_live_view_has_its_own_cached_choice(
        tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page loads the machine: a run with --web does not take the rate a run without it
    chose (it probes), and a second run with it takes its own; a run without still takes
    the first's."""
    monkeypatch.setattr(op, "machine", lambda ports: HERE | {"host_ports": ports})
    calls: list[tuple[float, list[str]]] = []
    monkeypatch.setattr(op, "trial", lambda run, emu, base: fake_trial(
        {"binomial": 100, "two-stage": 20, "nack": 30}, calls))
    plain = auto_run(tmp_path / "a")
    assert not op.choose(plain, Network(plain.spec.topology))["cached"]
    viewed = []
    for name in ("b", "c"):
        run = auto_run(tmp_path / name)
        run.live = object()  # a run with a live view (testbed.live.spec_view.SpecView)
        viewed.append(op.choose(run, Network(run.spec.topology))["cached"])
    assert viewed == [False, True]
    again = auto_run(tmp_path / "d")
    assert op.choose(again, Network(again.spec.topology))["cached"]
