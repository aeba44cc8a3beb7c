"""testbed.experiments.run without a network: each point's configuration and job
parameters, the record made of a point's raw records (fidelity flags, failures, groups, flow
timing), points written as their groups' records arrive, the rates loaded links should
carry, and the progress lines (the results folder: test_run_folder.py).

Real specs, points, folders, traffic plans and progress bars; stubs only where the run
would reach the network: the emulation's placement (one machine), a monitor whose
readings are given, generators whose counts are given. test_results_durable.py covers a
torn last record, resumed job numbering, and a condition's points written as they arrive
under a real monitor."""

from __future__ import annotations

import copy
import io
import itertools
import json
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from rich.progress import Progress

from collectives.call import BcastCall
from collectives.ipmc.accounting import FIELDS
from collectives.stats import summarize, tails
from testbed import results
from testbed.cluster.spread import Spread
from testbed.conditions.traffic import Traffic
from testbed.errors import RunFailed
from testbed.experiments import run as runmod
from testbed.experiments.kinds import from_dict
from testbed.experiments.run import (
    Run,
    _Arrivals,
    _expected,
    _job_point,
    _record,
    _Ticker,
    condition_text,
    point_config,
)
from testbed.experiments.spec import ExperimentSpec, Point
from testbed.fidelity.flags import judge
from testbed.fidelity.wire_units import frame_time_s, in_units
from testbed.measure.bcast_model import prediction
from testbed.specs.cluster import LOCAL
from testbed.specs.traffic_model import TrafficSpec, burstiness

TOML = """name = "unit"
repetitions = 2
warmup = 0
timeout = 6.0
[network]
topology = "star:hosts=6,bw=100"
[sweep]
algorithms = ["binomial", "nack"]
sizes = [1024]
hosts = [2]
"""
BASE: dict[str, Any] = tomllib.loads(TOML)
# t_hold/t_end as measure_params gives them (at sizes 1, 1024 and 64 KiB)
PARAMS = {"sizes": [1, 1024, 65536], "t_hold_s": [5e-5, 1e-4, 6e-3],
          "t_end_s": [8e-5, 2e-4, 7e-3]}
VERSIONS = {"mcastlab": "0.1.0", "python": "3.11"}


def spec_of(top: dict[str, Any] | None = None, **sweep: Any) -> ExperimentSpec:
    """BASE with top-level keys (tables merged) and sweep keys changed."""
    raw = copy.deepcopy(BASE)
    for key, value in (top or {}).items():
        raw[key] = raw[key] | value if isinstance(value, dict) and key in raw else value
    raw["sweep"] |= sweep
    return from_dict(raw)


def opened(spec: ExperimentSpec, folder: Path, params: dict[str, Any] | None = None,
           said: list[str] | None = None) -> Run:
    """A run of `spec` in `folder`, on one machine (no network brought up)."""
    folder.mkdir(exist_ok=True)
    log = said.append if said is not None else (lambda _m: None)
    run = runmod.opened(spec, folder, {"versions": VERSIONS, "link_rate": {"mbit": 100.0}},
                        log)
    run.emu = SimpleNamespace(spread=Spread(spec.topology))
    run.params = params
    return run


def raw_of(key: str, group: int, samples: list[float], *, end: float = 100.0,
           wait: float = 0.0, verified: bool = True, flow: float | None = None,
           late: int = 0) -> dict[str, Any]:
    """Group `group`'s raw record of a point, as collectives.programs.sweep_bench writes it
    (`flow`: its flow-latency figure, as a group across servers has)."""
    rec = {"key": key, "label": str(group), "samples_s": samples, "verified": verified,
           "t_mcast_s": summarize(samples), "start": end - 1.0 + group * 0.25, "end": end,
           "cpu": {"wait_per_turn_s": wait}, "datagrams": {"sent": 10 + group},
           "root_queue": {"max": 3}, "late_injections": late}
    if flow is not None:
        rec["flow"] = {"t_mcast_s": flow}
    return rec


class Readings:
    """The monitor, its readings given: `through(t)` once the readings reach `t`; each
    window asked for is judged (testbed.fidelity.flags.judge) over no link readings."""

    def __init__(self, reached: float = float("inf")) -> None:
        self.reached = reached
        self.windows: list[tuple[Any, ...]] = []
        self.sources: list[tuple[float, float]] = []  # (message_bytes, burstiness) asked with

    def through(self, t: float) -> bool:
        return t <= self.reached

    def window(self, t0: float, t1: float, expected: dict[str, float] | None = None,
               judge_links: bool = True, host_wait_s: float | None = None,
               message_bytes: float = 0.0, burstiness: float = 0.0) -> dict[str, Any]:
        self.windows.append((t0, t1, expected, judge_links, host_wait_s))
        self.sources.append((message_bytes, burstiness))
        return judge(None, [], t1 - t0, judge_links, host_wait_s=host_wait_s,
                     frame_s=frame_time_s(100.0))


def records(run: Run) -> list[dict[str, Any]]:
    return results.read_jsonl(run.records_file)


# ---- a point's configuration, condition and job ----------------------------------------------
def test_a_points_configuration_names_its_condition_in_full() -> None:
    spec = spec_of({"network": {"exclude": [0], "loss_scope": "multicast"},
                    "traffic": {"bg": {"pattern": "uniform", "load": 0.2, "hosts": "members"}}},
                   groups=[2], traffic=["none", "bg"], loss=[0.0, 0.3])
    by = {(p.traffic, p.loss): point_config(spec, p) for p in spec.points()
          if p.algorithm == "binomial"}
    quiet, loaded = by[("none", 0.0)], by[("bg", 0.3)]
    assert quiet["pattern"] is None and quiet["load"] is None and quiet["loss"] == 0.0
    assert loaded["pattern"] == "uniform" and loaded["load"] == 0.2 and loaded["loss"] == 0.3
    for cfg in (quiet, loaded):  # the excluded node is in no communicator
        assert cfg["members"] == [["h1", "h2"], ["h3", "h4"]] and cfg["exclude"] == [0]
        assert cfg["loss_scope"] == "multicast" and cfg["link_mbit"] == 100.0
        assert (cfg["topology"], cfg["hosts"], cfg["groups"]) == (spec.topology.name, 2, 2)
        assert (cfg["repetitions"], cfg["warmup"], cfg["budget_s"]) == (2, 0, None)
        assert json.loads(json.dumps(cfg)) == cfg  # as records.jsonl holds it


def test_a_condition_is_said_with_only_what_is_not_the_default() -> None:
    plain = Point(0, "binomial", 1024, 8, "none", 0.0, "none", 1, 0.0)
    assert condition_text(plain) == "8 hosts"
    every = Point(1, "nack", 1024, 4, "uniform", 0.05, "cut", 2, 0.0025)
    assert condition_text(every) == ("4 hosts, 2 groups, traffic uniform, loss 5%, fault cut, "
                                     "injection every 2.5 ms")
    low = Point(2, "nack", 1024, 8, "none", 0.001, "none", 1, 0.0)
    assert condition_text(low) == "8 hosts, loss 0.1%"  # not rounded to "loss 0%"
    assert "loss 5% of multicast datagrams, fault" in condition_text(every, "multicast")


class Quiet(Readings):
    """A monitor for a whole condition whose readings cover every point at once."""

    def __init__(self, *_args: Any) -> None:
        super().__init__()

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_each_condition_sets_its_loss_with_its_own_scope(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """sweep.loss_scope: each condition's loss drops the packets of its scope, for its job
    only; each record says the scope (none without loss), and so does the progress line."""
    spec = spec_of(loss=[0.0, 0.05], loss_scope=["multicast", "all"])
    said: list[str] = []
    run = opened(spec, tmp_path / "r", said=said)
    losses: list[tuple[float, str]] = []
    run.emu.set_loss = lambda loss, hosts=None, scope="all": losses.append((loss, scope))
    during: list[tuple[str | None, list[tuple[float, str]]]] = []

    def jobs(run: Run, batch: list[Point], groups: Any, ticker: Any,
             arrivals: _Arrivals) -> tuple[None, list[Any]]:
        during.append((batch[0].loss_scope, list(losses)))
        for p in batch:
            arrivals.got(0, raw_of(p.key, 0, [0.001]))
        return None, []

    monkeypatch.setattr(runmod, "Monitor", Quiet)
    monkeypatch.setattr(runmod, "_jobs", jobs)
    for _, points in itertools.groupby(spec.points(), key=lambda p: p.condition):
        runmod._condition(run, list(points), None)
    assert during == [(None, []), ("multicast", [(0.05, "multicast")]),
                      ("all", [(0.05, "multicast"), (0, "all"), (0.05, "all")])]
    assert losses[-1] == (0, "all")  # the network whole again after the last
    assert [(r["config"]["loss"], r["config"]["loss_scope"]) for r in records(run)] == [
        (0.0, None)] * 2 + [(0.05, "multicast")] * 2 + [(0.05, "all")] * 2
    assert "2 point(s): 2 hosts, loss 5% of every packet" in said


def test_each_algorithm_family_gets_its_own_job_parameters(tmp_path: Path) -> None:
    algs = ["mpich", "binomial", "nack", "scout-linear", "range-tree", "opt-tree"]
    spec = spec_of({"send_order": "overlapped", "completion": "none"}, algorithms=algs)
    run = opened(spec, tmp_path / "r", PARAMS)
    got = {p.algorithm: _job_point(run, p) for p in spec.points()}
    calls = {a: BcastCall.from_dict(g["call"]) for a, g in got.items()}
    assert {a: (c.send_order, c.completion, dict(c.options)) for a, c in calls.items()} == {
        "mpich": (None, None, {}),
        "binomial": ("overlapped", None, {}),
        "nack": (None, None, {"timeout": 3.0}),  # gives up at half the stall timeout
        "scout-linear": (None, "none", {"timeout": 3.0}),
        "range-tree": (None, None, {"fattree": [6, 6], "timeout": 3.0}),  # a star: k = n
        "opt-tree": ("overlapped", None, {"t_hold": 1e-4, "t_end": 2e-4})}
    p = spec.points()[0]
    assert set(got[p.algorithm]) == {"key", "call"} and got[p.algorithm]["key"] == p.key
    assert (calls[p.algorithm].algorithm, calls[p.algorithm].size) == (p.algorithm, 1024)
    assert json.loads(json.dumps(list(got.values()))) == list(got.values())

    short = spec_of({"timeout": 1.0}, algorithms=["nack"])  # never under a second
    point = _job_point(opened(short, tmp_path / "s"), short.points()[0])
    assert point["call"]["options"] == {"timeout": 1.0}
    unmeasured = opened(spec, tmp_path / "u")
    with pytest.raises(RunFailed, match="opt-tree needs measured t_hold/t_end"):
        _job_point(unmeasured, next(q for q in spec.points() if q.algorithm == "opt-tree"))


# ---- a point's record ---------------------------------------------------------------------
def test_a_measured_points_record_of_two_groups(tmp_path: Path) -> None:
    spec = spec_of(groups=[2])
    run = opened(spec, tmp_path / "r")
    p = spec.points()[0]
    raw = [raw_of(p.key, 0, [0.001, 0.003], wait=1e-5, late=1),
           raw_of(p.key, 1, [0.002, 0.004], wait=4e-5, late=2)]
    mon = Readings()
    traffic = {"pattern": "uniform"}
    faults = [{"at": 0.5, "action": "down", "target": "h1"}]
    rec = _record(run, p, raw, None, traffic, mon, {"h5": 20.0}, faults, [], 4)
    samples = [0.001, 0.003, 0.002, 0.004]
    assert rec["status"] == "ok" and rec["error"] is None and rec["verified"] is True
    assert rec["samples_s"] == samples and rec["t_mcast_s"] == summarize(samples)
    # the tail of every group's samples: 4 state p50, not p90 (10), p99 (100), p99.9 (1000)
    assert rec["tails_s"] == tails(samples) and rec["tails_s"]["p50"] == pytest.approx(0.0025)
    assert rec["tails_s"]["needs"] == {"p90": 10, "p99": 100, "p99.9": 1000}
    assert rec["t_mcast_units"] == in_units(summarize(samples)["median"], 1024, 100.0)
    assert rec["per_group"] == [{"group": 0, "t_mcast_s": summarize([0.001, 0.003])},
                                {"group": 1, "t_mcast_s": summarize([0.002, 0.004])}]
    assert rec["late_injections"] == 3 and rec["datagrams"] == {"sent": 10}  # group 0's
    assert rec["cpu"] == raw[0]["cpu"] and rec["root_queue"] == {"max": 3}
    # judged over both groups' stretch, links judged, the worst wait of any rank
    assert mon.windows == [(99.0, 100.0, {"h5": 20.0}, True, 4e-5)]
    assert mon.sources == [(0.0, 0.0)]  # no traffic: every link (none) a steady one
    assert rec["fidelity"]["ok"] is True and rec["fidelity"]["host_wait_s"] == 4e-5
    assert (rec["traffic"], rec["faults"], rec["job"]) == (traffic, faults, 4)
    assert rec["timing"] == "direct" and rec["servers"] == [LOCAL]
    assert rec["config"] == point_config(spec, p) and rec["key"] == p.key
    assert rec["predicted_s"] is None  # no measured t_hold/t_end
    assert rec["run"] == {"spec": "unit", "folder": str(run.out), "versions": VERSIONS}
    assert rec["link_rate"] == {"mbit": 100.0}
    assert rec["repairs"] is None  # no broadcast with completion reports
    # nack's accounts (collectives.ipmc.accounting) aligned with the samples, a group
    # without them padded
    raw[1]["repairs"] = {k: [0, 1] if k == "rounds" else [None, 2e-3] for k in FIELDS}
    nack = _record(run, p, raw, None, traffic, mon, {}, faults, [], 4)
    assert nack["repairs"]["rounds"] == [None, None, 0, 1]
    assert nack["repairs"]["detect_s"] == [None, None, None, 2e-3]

    flagged = _record(run, p, raw, None, None, mon, {}, [], ["generators silent"], 4)
    assert flagged["status"] == "ok"  # a result, but not one to trust
    assert flagged["fidelity"]["flags"] == ["generators silent"]
    assert flagged["fidelity"]["ok"] is False
    slow = [raw_of(p.key, g, [0.001], wait=1e-3) for g in (0, 1)]  # ranks starved of a core
    both = _record(run, p, slow, None, None, mon, {}, [], ["generators silent"], 4)
    assert both["fidelity"]["flags"][0].startswith("hosts waited for a core")
    assert both["fidelity"]["flags"][1:] == ["generators silent"]
    assert not both["fidelity"]["ok"]


def test_wrong_bytes_loss_and_failures_are_recorded_as_such(tmp_path: Path) -> None:
    spec = spec_of(loss=[0.0, 0.05])
    run = opened(spec, tmp_path / "r", PARAMS)
    clean, lossy = (next(p for p in spec.points() if p.algorithm == "binomial" and p.loss == x)
                    for x in (0.0, 0.05))
    mon = Readings()
    wrong = _record(run, clean, [raw_of(clean.key, 0, [0.002], verified=False)], None, None,
                    mon, {}, [], [], 1)
    assert wrong["status"] == "failed" and wrong["error"] == "a rank received wrong bytes"
    assert wrong["verified"] is False and wrong["samples_s"] == [0.002]
    assert wrong["per_group"] is None  # one group
    assert wrong["predicted_s"] == prediction("binomial", 2, 1024, PARAMS, None, {})
    assert wrong["predicted_s"] > 0
    _record(run, lossy, [raw_of(lossy.key, 0, [0.002])], None, None, mon, {}, [], [], 1)
    assert [w[3] for w in mon.windows] == [True, False]  # under loss links flag nothing

    faults = [{"at": 1.0, "action": "fail", "target": "1"}]
    failed = _record(run, clean, None, "the job made no progress for 6 s", None, mon, {},
                     faults, ["ignored: nothing was measured"], 2)
    assert failed["status"] == "failed" and failed["error"] == "the job made no progress for 6 s"
    assert failed["samples_s"] == [] and failed["t_mcast_s"] is None
    assert failed["tails_s"] is None
    assert failed["fidelity"] is None and failed["verified"] is None
    assert failed["faults"] == faults and failed["job"] == 2 and len(mon.windows) == 2


def test_groups_across_servers_are_timed_by_flow_latency(tmp_path: Path) -> None:
    spec = spec_of(groups=[2])
    run = opened(spec, tmp_path / "r")
    p = spec.points()[0]
    raw = [raw_of(p.key, 0, [0.001, 0.002], flow=0.010),
           raw_of(p.key, 1, [0.003, 0.004], flow=0.030)]
    rec = _record(run, p, raw, None, None, Readings(), {}, [], [], 1)
    assert rec["timing"] == "flow" and rec["samples_s"] == [0.010, 0.030]
    assert rec["t_mcast_s"] == summarize([0.010, 0.030])
    assert rec["tails_s"] == tails([0.010, 0.030])  # of the figures the point stands by
    assert rec["direct_across_servers"] == {"samples_s": [0.001, 0.002, 0.003, 0.004]}
    assert [g["t_mcast_s"] for g in rec["per_group"]] == [summarize([0.010]),
                                                          summarize([0.030])]
    mixed = [raw[0], raw_of(p.key, 1, [0.003, 0.004])]  # one group on one clock: direct
    assert _record(run, p, mixed, None, None, Readings(), {}, [], [], 1)["timing"] == "direct"


# ---- points written as they arrive --------------------------------------------------------
def test_a_point_waits_for_every_group_and_keeps_what_held_when_it_ended(
        tmp_path: Path) -> None:
    spec = spec_of(groups=[2], algorithms=["binomial", "nack", "chain"])
    run = opened(spec, tmp_path / "r")
    a, b, c = spec.points()
    mon = Readings(reached=100.0)
    arrivals = _Arrivals(run, [a, b, c], 2, mon, None, {})
    applied: list[dict[str, Any]] = []
    arrivals.faults = lambda: list(applied)
    arrivals.job = 1
    for g in (0, 1):
        arrivals.got(g, raw_of("0123456789ab", g, [0.001]))  # a point of another condition
        arrivals.got(g, {"samples_s": [0.001]})  # no key at all
    arrivals.got(0, raw_of(a.key, 0, [0.001]))
    arrivals.got(0, raw_of(a.key, 0, [0.005]))  # group 0 again: still one group in
    assert not run.records_file.exists() and not arrivals.arrived
    applied.append({"at": 0.2, "action": "down", "target": "h1"})
    arrivals.got(1, raw_of(a.key, 1, [0.002]))
    assert [r["key"] for r in records(run)] == [a.key] and run.done == {a.key}
    assert records(run)[0]["samples_s"] == [0.005, 0.002]  # the latest of each group
    assert records(run)[0]["faults"] == applied

    # b ends past the monitor's last reading: it waits, with its job and faults of then
    arrivals.got(0, raw_of(b.key, 0, [0.001], end=200.0))
    arrivals.got(1, raw_of(b.key, 1, [0.001], end=200.0))
    assert run.pending == 1 and b.key in arrivals.arrived and b.key not in run.done
    arrivals.job = 2
    applied.append({"at": 0.9, "action": "up", "target": "h1"})
    arrivals.failed(c, "the job ended without this point", list(applied))
    assert [r["key"] for r in records(run)] == [a.key, c.key]  # c not held up by b
    assert records(run)[1]["status"] == "failed" and c.key in arrivals.failures
    arrivals.got(0, raw_of(b.key, 0, [0.009], end=200.0))  # arrived: not taken again
    mon.reached = 300.0
    arrivals.close()
    late = records(run)[2]
    assert late["key"] == b.key and late["job"] == 1 and len(late["faults"]) == 1
    assert late["samples_s"] == [0.001, 0.001] and run.pending == 0
    assert run.done == {a.key, b.key, c.key}
    arrivals.got(0, raw_of(a.key, 0, [0.001]))
    assert len(records(run)) == 3


class Counted(Traffic):
    """Generators whose counts are given (None: they do not answer), never started."""

    answers: list[dict[str, Any] | None]

    def snapshot(self) -> dict[str, dict[str, Any]]:
        answer = self.answers.pop(0)
        if answer is None:
            raise RunFailed("h5 gave no counts when asked")
        return answer


def counts(sent: int, received: int) -> dict[str, Any]:
    return {"sent_bytes": sent, "sent_msgs": sent // 1000, "received_bytes": received,
            "received_msgs": received // 1000, "errors": 0, "behind_resets": 0,
            "elapsed_s": 2.0}


def test_the_traffic_so_far_goes_with_each_point_and_silent_generators_flag_it(
        tmp_path: Path) -> None:
    spec = spec_of(algorithms=["binomial", "nack"])
    run = opened(spec, tmp_path / "r")
    a, b = spec.points()
    emu = SimpleNamespace(topo=spec.topology)
    traffic = Counted(emu, TrafficSpec("uniform", 0.2, hosts=["h4", "h5"]), ["h0", "h1"])
    now = {"h4": counts(5_000_000, 4_000_000), "h5": counts(5_000_000, 5_000_000)}
    traffic.answers = [now, None]
    mon = Readings()
    arrivals = _Arrivals(run, [a, b], 1, mon, traffic, {"h4": 20.0, "h5": 20.0})
    arrivals.got(0, raw_of(a.key, 0, [0.001]))
    arrivals.got(0, raw_of(b.key, 0, [0.001]))
    first, second = records(run)
    assert first["traffic"] == traffic.summary(now) and first["traffic"]["generators"] == 2
    assert first["fidelity"]["ok"] and mon.windows[0][2] == {"h4": 20.0, "h5": 20.0}
    assert second["traffic"] is None and second["status"] == "ok"
    assert second["fidelity"]["flags"] == [
        "the traffic generators could not be read when the point ended "
        "(h5 gave no counts when asked)"]
    assert second["fidelity"]["ok"] is False


def test_a_point_under_random_traffic_judges_its_links_by_that_source(tmp_path: Path) -> None:
    """The window is told the traffic's mean message size and burstiness, from which each
    link's floor follows (fidelity.flags.link_floor): a random source over a short window may
    carry less than LINK_LIMIT by chance alone."""
    hot = {"pattern": "hotspot", "load": 0.1, "hot_fraction": 0.5, "size": 1024}
    spec = spec_of({"traffic": {"hot-2": hot}}, traffic=["hot-2"])
    run = opened(spec, tmp_path / "r")
    p = spec.points()[0]
    mon = Readings()
    _record(run, p, [raw_of(p.key, 0, [0.001])], None, {}, mon, {"h5": 1.0}, [], [], 1)
    assert mon.sources == [(1024, burstiness(TrafficSpec.from_dict(hot)))]


def test_a_loaded_link_is_expected_to_carry_what_its_destinations_take_in() -> None:
    spec = spec_of()
    emu = SimpleNamespace(topo=spec.topology)  # 100 Mbit/s host links
    even = Traffic(emu, TrafficSpec("uniform", 0.2, hosts="all"), ["h0", "h1"])
    assert _expected(spec, even) == pytest.approx(dict.fromkeys(even.hosts, 20.0))
    # four senders at 50 Mbit/s, three sending all to h3: its link takes in 100 of 150
    hot = Traffic(emu, TrafficSpec("hotspot", 0.5, hot_fraction=1.0, hot="h3",
                                   hosts=["h0", "h1", "h2", "h3"]), ["h4", "h5"])
    assert _expected(spec, hot) == pytest.approx(
        {"h0": 100 / 3, "h1": 100 / 3, "h2": 100 / 3, "h3": 50.0})


# ---- progress ---------------------------------------------------------------------------
def test_without_a_terminal_each_finished_point_is_one_line(tmp_path: Path) -> None:
    spec = spec_of(groups=[2], algorithms=["binomial", "nack"], sizes=[1024, 65536])
    said: list[str] = []
    run = opened(spec, tmp_path / "r", said=said)
    p = spec.points()
    plain = Progress(console=Console(file=io.StringIO(), force_terminal=False))
    task = plain.add_task("starting", total=len(p))
    ticker = _Ticker(run, plain, task)
    assert ticker.plain
    ticker._update()
    assert said == [] and plain.tasks[0].description == "starting the MPI job"
    run.done.add(p[0].key)
    ticker._update()
    ticker._update()  # nothing new: no second line
    assert len(said) == 1 and re.fullmatch(r"\[1/4\] done; now: starting the MPI job "
                                           r"\(0 s elapsed, about 0 s left\)", said[0])
    beat = tmp_path / "beat"
    beat.write_text(p[3].key + "\n")
    ticker.watch(p[2:], beat)
    run.pending = 1  # measured, waiting for the monitor: counted as done
    ticker._update()
    assert said[-1].startswith("[2/4] done; now: nack 64 KiB | 2 hosts, 2 groups (")
    assert plain.tasks[0].completed == 2
    beat.write_text("not-a-point")
    run.done.add(p[1].key)
    with ticker:  # started and stopped: its last word said on the way out
        pass
    assert said[-1].startswith("[3/4] done; now: starting the MPI job (")
    run.done |= {"x", "y", "z"}  # more than the sweep: the bar stops at its end
    ticker._update()
    assert plain.tasks[0].completed == 4

    bar = Progress(console=Console(file=io.StringIO(), force_terminal=True))
    on_terminal = _Ticker(run, bar, bar.add_task("starting", total=len(p)))
    on_terminal._update()
    assert not on_terminal.plain and len(said) == 4 and bar.tasks[0].completed == 4
