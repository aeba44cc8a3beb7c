"""testbed.reproduce.nupairoj on stand-in points: the tree order (OPT-Tree against the fastest,
the model's error shown), chapter 6's experiment, whose jobs both dynamic-tree claims share,
DYN-Tree and DYN-Mesh against the static trees, and mesh contention, each judged by
intervals over jobs."""

from __future__ import annotations

import json

from testbed.reproduce import nupairoj
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.jobs import QUICK_TAKES, TAKES
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    UNDECIDED,
)

from .stand_ins import Points, measured


# ---- Nupairoj1998's measured tree order ---------------------------------------------------
class ModelPoints(Points):
    """A stand-in network that also measures t_hold/t_end (t_hold = 2 t_end at every size
    and count of sends) and gives each point the model's prediction (half the measured
    time)."""

    def params(self, sizes, hosts=None):
        return {"sizes": list(sizes), "t_hold_s": [2e-3] * len(sizes),
                "t_end_s": [1e-3] * len(sizes),
                "t_hold_sends_s": [[2e-3] * ((hosts or 16) - 1)] * len(sizes),
                "root": "h0", "partner_host": "h4", "partner_hops": 2}

    def point(self, algorithm, size, hosts, frames=0, **kw):
        assert "params" in kw  # OPT-Tree is built from the measured t_hold/t_end
        p = super().point(algorithm, size, hosts, frames)
        return p | {"predicted_ms": p["ms"] / 2}


def test_tree_order_judges_opt_tree_against_the_fastest_and_shows_the_model_error() -> None:
    times = {"sequential": 3.0, "binomial": 1.0, "opt-tree": 1.05}
    net = ModelPoints(lambda a, s, h: times[a] * h)
    out = measured("nupairoj.tree-order", net)
    # one batch: every tree and size of a job taking turns, 40 broadcasts each below 64 KiB
    assert net.rounds == [nupairoj.ROUNDS] and nupairoj.ROUNDS > 1
    assert {a.iters for a in net.batches[0][0] if a.size < 65536} == {nupairoj.SMALL_ITERS}
    # quick: 8 hosts, 3 sizes (figure 4.6's 1 B too), QUICK_TAKES jobs each
    assert out.verdict == REPRODUCED and len(out.points) == 9 * QUICK_TAKES
    row = out.values["rows"][0]
    assert row["fastest"] == "binomial" and row["t_hold_over_t_end"] == 2.0
    assert row["measured_over_model"] == {a: 2.0 for a in times}
    assert out.values["intervals"]["OPT-Tree / fastest, 1 KiB on 8"]["interval"] == [1.05, 1.05]
    # what the model priced each tree with: its busiest node's count of sends
    used = out.values["model_inputs"][8]["1024"]
    assert (used["sequential"]["sends"], used["binomial"]["sends"]) == (7, 3)
    assert used["t_end_us"] == 1000 and used["opt-tree"]["t_hold_us"] == 2000
    assert out.values["model_inputs"][8]["pingpong_partner"] == "h4"
    assert len(measured("nupairoj.tree-order", ModelPoints(lambda a, s, h: times[a]),
                        quick=False).points) == 18 * TAKES
    slow = measured("nupairoj.tree-order",
                    ModelPoints(lambda a, s, h: times[a] * (2 if a == "opt-tree" else 1)))
    assert slow.verdict == DIFFERS and "OPT-Tree / fastest, 1 KiB on 8 [2.10, 2.10] lies " \
        "outside at most 1.1" in slow.why
    assert "off by 2.00x for OPT-Tree and 2.00x for binomial" in slow.why
    flagged = measured("nupairoj.tree-order",
                       ModelPoints(lambda a, s, h: times[a], flag={("sequential", 8)}))
    assert flagged.verdict == NO_RESULT


class JobPoints(ModelPoints):
    """ModelPoints whose job `take` scales OPT-Tree by opt[take] and every tree by
    whole[take]."""

    def __init__(self, ms, opt=(1.0, 1.0, 1.0), whole=(1.0, 1.0, 1.0)):
        super().__init__(ms)
        self.opt, self.whole = opt, whole

    def point(self, algorithm, size, hosts, frames=0, **kw):
        p = super().point(algorithm, size, hosts, frames, **kw)
        t = kw.get("take", 0)
        return p | {"ms": p["ms"] * self.whole[t] * (self.opt[t] if algorithm == "opt-tree"
                                                     else 1.0)}


def test_tree_order_judges_each_jobs_own_ratio_and_says_what_leaves_it_undecided() -> None:
    """A job slower as a whole leaves its OPT-Tree / fastest as it is (the trees ran side by
    side in it); a job whose OPT-Tree alone is slow (published 2026-12-06: OPT-Tree / fastest
    at 1 KiB on 8 1.00, 1.41, 1.51, 1.41, 1.24) leaves the claim undecided, and the why says
    where the jobs lie and what moves them."""
    times = {"sequential": 3.0, "binomial": 1.0, "opt-tree": 1.05}
    busy = measured("nupairoj.tree-order", JobPoints(lambda a, s, h: times[a],
                                                     whole=(0.6, 1.0, 1.5)))
    assert busy.verdict == REPRODUCED, busy.why
    assert busy.values["per_job"]["OPT-Tree / fastest, 1 KiB on 8"] == [1.05] * 3
    apart = measured("nupairoj.tree-order", JobPoints(lambda a, s, h: times[a],
                                                      opt=(1.0, 1.0, 1.3)))
    assert apart.verdict == UNDECIDED
    assert "OPT-Tree / fastest, 1 KiB on 8: 2 of 3 jobs inside (1.05), 1 outside (1.37)" \
        in apart.why
    assert "take turns on the 2 cores" in apart.why and "over 3 jobs" in apart.why


def ch6_record(alg, traffic, ms, flags=()):
    """A chapter-6 experiment record as testbed.experiments.run writes it."""
    return {"config": {"algorithm": alg, "size": 1024, "hosts": 8, "traffic": traffic},
            "status": "ok", "t_mcast_s": {"median": ms / 1e3, "p10": 0, "p90": 0},
            "verified": True, "fidelity": {"flags": list(flags)},
            "traffic": {"accepted": 0.1}, "predicted_s": None}


def test_a_chapter_6_point_keeps_its_fidelity_window_and_link_ratios() -> None:
    """The window the monitor read and each loaded link's share of its expected rate come
    with the point, so a link flag can be looked into from the report."""
    from testbed.reproduce.nupairoj import record_point

    rec = ch6_record("dyn-tree", "hot-2", 3.0, ["s14-eth1 carried 0.6 of 1.0 Mbit/s expected"])
    rec["fidelity"] |= {"window_s": 0.21, "links": [
        {"link": "s14-eth1", "ratio": 0.6042}, {"link": "s9-eth1", "ratio": 0.98}]}
    p = record_point(rec, 2)
    assert p["window_s"] == 0.21 and p["link_ratios"] == {"s14-eth1": 0.604, "s9-eth1": 0.98}
    assert p["label"].endswith("take 3") and p["flags"]
    bare = record_point(ch6_record("binomial", "none", 2.0))
    assert bare["window_s"] is None and bare["link_ratios"] == {}


def ch6_jobs(ms, spread=(0.98, 1.0, 1.02), flagged=()):
    """Jobs of stand-in points: every (algorithm, load) of `ms` in each job, a few percent
    apart; the (algorithm, load) in `flagged` flagged in the last job."""
    from testbed.reproduce.nupairoj import record_point

    return [[record_point(ch6_record(a, t, v * f, ["switch waited"] if (a, t) in flagged
                                     and take == len(spread) - 1 else ()), take)
             for (a, t), v in ms.items()] for take, f in enumerate(spread)]


def test_chapter_6_runs_both_dynamic_trees_and_their_rivals_in_one_experiment() -> None:
    from testbed.experiments.kinds import from_dict
    from testbed.reproduce.nupairoj import ch6_spec

    quick = from_dict(ch6_spec("mesh:rows=4,cols=4,bw=10", quick=True))
    assert len(quick.points()) == 12 and set(quick.traffic) == {"uniform-20"}
    assert tuple(quick.param_sizes) == (1024,)  # the one size the broadcasts use
    full = from_dict(ch6_spec("mesh:rows=4,cols=4,bw=10", quick=False))
    assert len(full.points()) == 24 and set(full.traffic) == {"uniform-20", "hot-1", "hot-2"}
    assert {p.algorithm for p in full.points()} == {
        "binomial", "opt-tree", "dyn-tree", "u-mesh", "opt-mesh", "dyn-mesh"}


def test_the_two_dynamic_claims_share_the_jobs_of_one_experiment(monkeypatch) -> None:
    from types import SimpleNamespace

    from testbed.reproduce import nupairoj

    runs = []
    ms = {"binomial": 2.5, "opt-tree": 6.0, "dyn-tree": 3.5, "u-mesh": 2.4, "opt-mesh": 5.5,
          "dyn-mesh": 3.4}

    def new_run(spec, out, rate, caps, log):
        runs.append(SimpleNamespace(spec=spec, config={}, params=None,
                                    records_file=out / "records.jsonl"))
        return runs[-1]

    def execute(run, emu):  # measures t_hold/t_end unless given, then every point
        run.params = run.config.get("params") or {"sizes": [1024], "t_hold_s": [1e-4],
                                                  "t_end_s": [6e-4]}
        run.records_file.write_text("".join(
            json.dumps(ch6_record(p.algorithm, p.traffic, ms[p.algorithm])) + "\n"
            for p in run.spec.points()))

    monkeypatch.setattr(nupairoj, "new_run", new_run)
    monkeypatch.setattr(nupairoj, "execute", execute)
    net = SimpleNamespace(spec="mesh:rows=4,cols=4", rate=SimpleNamespace(mbit=10.0),
                          emu=SimpleNamespace(topo=None, caps=None), points={})
    c = Context(True, lambda _msg: None, net)
    tree = BY_KEY["nupairoj.dyn-tree"].run(c)
    mesh = BY_KEY["nupairoj.dyn-mesh"].run(c)
    assert len(runs) == QUICK_TAKES  # --quick's jobs, and both claims judged on them
    assert runs[1].config["params"] is runs[0].params  # job 2 on job 1's t_hold/t_end
    assert len(tree.points) == len(mesh.points) == 2 * QUICK_TAKES * 3
    assert mesh.values["t_hold_t_end_us"] == {"t_hold": 100.0, "t_end": 600.0}
    assert tree.verdict == mesh.verdict == DIFFERS  # 1.40x binomial, 1.42x U-Mesh
    assert "DYN-Mesh / OPT-Mesh, uniform-20 0.62 [0.62, 0.62]" in mesh.testbed
    assert {p["tries"] for p in tree.points} == {1}


def test_a_flagged_load_of_a_chapter_6_job_is_measured_once_more(monkeypatch) -> None:
    """The first run of job 2 flags one point under uniform-20: that load alone is run again
    in job 2 and its points replace the flagged run's (tries 2); an unflagged job runs
    once."""
    from types import SimpleNamespace

    from testbed.reproduce import nupairoj

    runs = []

    def new_run(spec, out, rate, caps, log):
        runs.append(SimpleNamespace(spec=spec, config={}, params=None, out=out,
                                    records_file=out / "records.jsonl"))
        return runs[-1]

    def execute(run, emu):
        run.params = run.config.get("params") or {"sizes": [1024], "t_hold_s": [1e-4],
                                                  "t_end_s": [6e-4]}
        bad = len(runs) == 2  # job 2's first run
        run.records_file.write_text("".join(json.dumps(ch6_record(
            p.algorithm, p.traffic, 3.0, ["s9-eth1 short"] if bad and p.traffic !=
            "none" and p.algorithm == "binomial" else ())) + "\n"
            for p in run.spec.points()))

    monkeypatch.setattr(nupairoj, "new_run", new_run)
    monkeypatch.setattr(nupairoj, "execute", execute)
    net = SimpleNamespace(spec="mesh:rows=4,cols=4", rate=SimpleNamespace(mbit=10.0),
                          emu=SimpleNamespace(topo=None, caps=None), points={})
    got = nupairoj.ch6_jobs(Context(True, lambda _msg: None, net))
    assert len(runs) == QUICK_TAKES + 1 and runs[2].out.name == "job-2-again"
    assert set(runs[2].spec.traffic) == {"uniform-20"}
    assert {p.traffic for p in runs[2].spec.points()} == {"uniform-20"}
    second = got["jobs"][1]
    assert len(second) == len(got["jobs"][0]) and not any(p["flags"] for p in second)
    assert {p["traffic"] for p in second if p["tries"] == 2} == {"uniform-20"}
    assert all(p["tries"] == 1 for p in got["jobs"][0] + got["jobs"][2])


def test_dyn_tree_against_the_best_static_tree_by_its_interval_over_jobs() -> None:
    from testbed.reproduce.nupairoj import judge_dynamic

    loads, statics = ["none", "hot-1"], ("binomial", "opt-tree")
    ms = {(a, t): v for t in loads for a, v in (("binomial", 10), ("opt-tree", 8),
                                               ("dyn-tree", 9))}
    out = judge_dynamic(ch6_jobs(ms), loads, "dyn-tree", statics)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["rows"][1]["dyn_over_best"] == 1.125 and len(out.points) == 18
    assert "DYN-Tree / fastest static, hot-1 1.12 [" in out.testbed
    assert out.points[-1]["label"].endswith(", take 3")
    slow = judge_dynamic(ch6_jobs({**ms, ("dyn-tree", "hot-1"): 12}), loads, "dyn-tree",
                         statics)
    assert slow.verdict == DIFFERS and slow.kind == EMULATOR
    assert "DYN-Tree / fastest static, hot-1 [1.50, 1.50]" in slow.why and "at most 1.2" in \
        slow.why
    # each job's own ratio: jobs a fifth apart as a whole move none (1.25 in each)
    whole = judge_dynamic(ch6_jobs({**ms, ("dyn-tree", "hot-1"): 10}, (0.8, 1.0, 1.2)),
                          loads, "dyn-tree", statics)
    assert whole.verdict == DIFFERS and "hot-1 [1.25, 1.25]" in whole.why
    assert whole.values["per_job"]["DYN-Tree / fastest static, hot-1"] == [1.25] * 3
    # DYN-Tree alone a fifth apart from job to job: the jobs settle neither way, and say so
    own = ch6_jobs({**ms, ("dyn-tree", "hot-1"): 10})
    for job, f in zip(own, (0.8, 1.0, 1.2), strict=True):
        p = next(p for p in job if (p["algorithm"], p["traffic"]) == ("dyn-tree", "hot-1"))
        p["ms"] = 10 * f
    wide = judge_dynamic(own, loads, "dyn-tree", statics)
    assert wide.verdict == UNDECIDED and "straddles" in wide.why
    assert "DYN-Tree / fastest static, hot-1: 1 of 3 jobs inside (1.02), 2 outside " \
        "(1.25, 1.47)" in wide.why and "take turns on the 2 cores" in wide.why
    flagged = judge_dynamic(ch6_jobs(ms, flagged={("dyn-tree", "hot-1")}), loads,
                            "dyn-tree", statics)
    assert flagged.verdict == NO_RESULT and "traffic hot-1, take 3" in flagged.why


def test_dyn_mesh_tracks_the_better_of_opt_mesh_and_u_mesh_and_beats_opt_mesh_under_load(
) -> None:
    from testbed.reproduce.nupairoj import MESH_STATIC, judge_dynamic

    loads = ["none", "uniform-20", "hot-1"]
    # the paper's shape: OPT-Mesh best at no load, worse than U-Mesh under load
    paper = {("opt-mesh", "none"): 5, ("u-mesh", "none"): 8, ("dyn-mesh", "none"): 5.2}
    for t in loads[1:]:
        paper |= {("opt-mesh", t): 12, ("u-mesh", t): 9, ("dyn-mesh", t): 9.5}
    out = judge_dynamic(ch6_jobs(paper), loads, "dyn-mesh", MESH_STATIC)
    assert out.verdict == REPRODUCED, out.why
    assert "none: DYN-Mesh 5.2 ms, U-Mesh 8.0, OPT-Mesh 5.0 (OPT-Mesh/U-Mesh 0.62)" in \
        out.testbed
    assert "load over none: U-Mesh 1.12, OPT-Mesh 2.40, DYN-Mesh 1.83" in out.testbed
    assert set(out.values["intervals"]) == {
        "DYN-Mesh / fastest static, none", "DYN-Mesh / fastest static, uniform-20",
        "DYN-Mesh / fastest static, hot-1", "DYN-Mesh / OPT-Mesh, uniform-20",
        "DYN-Mesh / OPT-Mesh, hot-1"}
    # this testbed's shape: load moves nothing, and DYN-Mesh is U-Mesh's 1.4x everywhere
    here = {(a, t): v for t in loads for a, v in (("opt-mesh", 6), ("u-mesh", 2.4),
                                                  ("dyn-mesh", 3.4))}
    flat = judge_dynamic(ch6_jobs(here), loads, "dyn-mesh", MESH_STATIC)
    assert flat.verdict == DIFFERS and flat.kind == EMULATOR
    assert "DYN-Mesh / fastest static, none [1.42, 1.42]" in flat.why
    assert "no broadcasting host's own link queues" in flat.why
    assert flat.values["intervals"]["DYN-Mesh / OPT-Mesh, hot-1"]["verdict"] == REPRODUCED


def test_mesh_contention_judged_with_intervals_over_jobs() -> None:
    from testbed.reproduce.nupairoj import judge_contention

    places = ["node order", "shuffled (seed 4)"]
    pairs = {(a, pl): 5 if a == "opt-tree" and pl == places[1] else 0
             for a in ("opt-tree", "opt-mesh", "u-mesh") for pl in places}

    def pts(ms, spread=(0.99, 1.0, 1.01)):  # jobs a few percent apart
        return {(a, pl): [{"label": f"{a} {pl}", "ms": ms[(a, pl)] * f, "flags": [],
                           "verified": True} for f in spread] for a, pl in pairs}

    paper = {k: (125.0 if k == ("opt-tree", places[1]) else 100.0) for k in pairs}
    out = judge_contention(pts(paper), pairs, places)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["contention_rate"]["opt-tree"] == 0.2
    assert out.testbed.startswith("median of 3 job(s) each") and len(out.points) == 18
    # every point of a take a percent off together: each take's t_c is 0.2
    assert out.values["intervals"]["OPT-Tree's t_c"]["interval"] == [0.2, 0.2]
    # the same medians, takes a quarter apart (as jobs of one broadcast were): each take's
    # figures are its own jobs', so a drift every tree of a take shares cancels
    drift = judge_contention(pts(paper, (0.8, 1.0, 1.25)), pairs, places)
    assert drift.verdict == REPRODUCED, drift.why
    assert drift.values["per_job"]["OPT-Tree's t_c"] == [0.2, 0.2, 0.2]
    # a slow spell in one take's shuffled OPT-Mesh (2026-12-06: 245.7 ms against 230-236)
    # moves that take's t_c only: a fifth of a broadcast straddles 0.05, a thirtieth not
    for slow, verdict in ((1.2, UNDECIDED), (1.03, REPRODUCED)):
        spell = pts(paper, (1.0, 1.0, 1.0))
        spell[("opt-mesh", places[1])][2]["ms"] *= slow
        got = judge_contention(spell, pairs, places)
        assert got.verdict == verdict, got.why
    assert "OPT-Mesh's t_c [0.00, 0.17] straddles at most 0.05" in judge_contention(
        {**pts(paper, (1.0, 1.0, 1.0)), ("opt-mesh", places[1]): [
            {"label": "m", "ms": v, "flags": [], "verified": True} for v in (100, 100, 120)]},
        pairs, places).why
    free = judge_contention(pts({k: 100.0 for k in pairs}), pairs, places)
    assert free.verdict == DIFFERS and "OPT-Tree's t_c [" in free.why
    assert "lies outside at least 0.05" in free.why
    slow = {k: (125.0 if k[0] != "u-mesh" and k[1] == places[1] else 100.0) for k in pairs}
    slow[("opt-mesh", places[1])] = 140.0
    assert "OPT-Mesh / OPT-Tree, shuffled [1.1" in judge_contention(pts(slow), pairs,
                                                                    places).why
    # the chapter's order: OPT-Mesh no slower than U-Mesh, unless the model prices them alike
    ahead = {**paper, ("u-mesh", places[1]): 80.0}
    behind = judge_contention(pts(ahead), pairs, places)
    assert behind.verdict == DIFFERS and "OPT-Mesh / U-Mesh" in behind.why
    alike = {k: 100.0 for k in pairs}
    na = judge_contention(pts(ahead), pairs, places, model=alike)
    assert na.verdict == REPRODUCED and "not applicable: the model prices them" in na.testbed
    flagged = pts({k: 100.0 for k in pairs})
    flagged[("u-mesh", places[0])][1]["flags"] = ["switch waited"]
    assert judge_contention(flagged, pairs, places).verdict == NO_RESULT


class CrowdedPoints(ModelPoints):
    """ModelPoints whose model prices binomial `crowd` times worse than sequential at the
    sizes in `at` (binomial's senders at once waiting for the shared cores)."""

    def __init__(self, ms, crowd: float, at=(1,), on=(8, 16)):
        super().__init__(ms)
        self.crowd, self.at, self.on = crowd, set(at), set(on)

    def point(self, algorithm, size, hosts, frames=0, **kw):
        p = super().point(algorithm, size, hosts, frames, **kw)
        if algorithm == "binomial" and size in self.at and hosts in self.on:
            p = p | {"predicted_ms": p["predicted_ms"] / self.crowd}
        return p


def test_tree_order_shows_not_judges_a_point_where_concurrent_senders_wait_for_cores():
    """Where binomial's measured/model exceeds sequential's by more than CROWDED, the
    model does not describe the machine (one processor per node): OPT-Tree / fastest is
    shown there, not judged, and the rest decides; with nothing left, not applicable."""
    slow_opt = {"sequential": 3.0, "binomial": 1.0, "opt-tree": 1.5}
    out = measured("nupairoj.tree-order", CrowdedPoints(lambda a, s, h: slow_opt[a]
                                                        if s == 1 else
                                                        {"opt-tree": 1.0}.get(a, 1.0), 2.0))
    assert out.verdict == REPRODUCED
    assert "OPT-Tree / fastest, 1 B on 8" not in out.values["intervals"]
    assert out.values["concurrency"] == {"1 B on 8": 2.0, "1 KiB on 8": 1.0, "64 KiB on 8": 1.0}
    assert "ot judged at 1 B on 8" in out.why and "2 cores" in out.why
    near = measured("nupairoj.tree-order", CrowdedPoints(lambda a, s, h: slow_opt[a], 1.2))
    assert near.verdict == DIFFERS  # within CROWDED: judged, OPT-Tree 1.5 x binomial
    every = measured("nupairoj.tree-order",
                     CrowdedPoints(lambda a, s, h: slow_opt[a], 2.0, at=(1, 1024, 65536)))
    assert every.verdict == NOT_APPLICABLE and every.kind == "emulator"


def test_a_size_crowded_on_16_hosts_is_shown_on_8_too():
    """How far 8 hosts show what 16 show at a size moves with how busy the cores are
    (1 KiB on 8: 1.06 in one run, 1.43 the next): the size is shown at every host count."""
    times = {"sequential": 3.0, "binomial": 1.0, "opt-tree": 1.05}
    out = measured("nupairoj.tree-order", CrowdedPoints(lambda a, s, h: times[a], 2.0,
                                                        at=(1024,), on=(16,)), quick=False)
    judged = set(out.values["intervals"])
    assert "OPT-Tree / fastest, 1 KiB on 8" not in judged
    assert "OPT-Tree / fastest, 1 KiB on 16" not in judged
    assert {"OPT-Tree / fastest, 1 B on 8", "OPT-Tree / fastest, 64 KiB on 16"} <= judged
    assert out.values["concurrency"]["1 KiB on 8"] == 1.0
    assert "not judged at 1 KiB on 8, 1 KiB on 16" in out.testbed
