"""testbed.reproduce.nupairoj_bmin on stand-in points: chapter 5's OPT-Min against OPT-Tree
and U-Min on the BMIN (placed where OPT-Tree meets contention in the model and OPT-Min
none), OPT-Tree's contention rate on the BMIN against the mesh's, and chapter 6's trees
under load on the BMIN, each judged by intervals over jobs."""

from __future__ import annotations

import json
from types import SimpleNamespace

from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.jobs import takes
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    UNDECIDED,
)
from topologies import parse_spec

from .stand_ins import Points

# t_hold/t_end as measured here (1 KiB, 4 KiB, 64 KiB at 10 Mbit/s): t_hold at or above t_end
HOLD = {1024: 1.5e-3, 65536: 55e-3}
END = {1024: 0.75e-3, 65536: 54e-3}


def measured_params(sizes, hosts=None):
    return {"sizes": list(sizes), "t_hold_s": [HOLD[s] for s in sizes],
            "t_end_s": [END[s] for s in sizes],
            "t_hold_sends_s": [[HOLD[s]] * ((hosts or 16) - 1) for s in sizes],
            "root": "h0", "partner_host": "h5", "partner_hops": 5}


SPREAD = (0.98, 1.0, 1.02, 0.99, 1.01)


class Net(Points):
    """A stand-in running network of `shape` whose points take ms(algorithm, size, hosts)
    in job t times spread[t] (every tree of a job alike: the machine's load), and
    own[algorithm][t] (one tree's own spread), flagged where `flag` names (algorithm,
    hosts)."""

    def __init__(self, ms, shape="bmin:n=4", spread=SPREAD, flag=(), own=None):
        super().__init__(ms, flag)
        self.spread, self.own, self.points = spread, own or {}, {}
        self.emu = SimpleNamespace(topo=parse_spec(shape), caps=None)
        self.spec, self.rate = shape, SimpleNamespace(mbit=10.0)
        self.asked: list[tuple[str, int, tuple, int]] = []

    def params(self, sizes, hosts=None):
        return measured_params(sizes, hosts)

    def point(self, algorithm, size, hosts, frames=0, **kw):
        assert "params" in kw  # the trees are built from the measured t_hold/t_end
        self.asked.append((algorithm, size, tuple(hosts), kw["take"]))
        p = super().point(algorithm, size, len(hosts))
        t = kw["take"]
        return p | {"ms": p["ms"] * self.spread[t] * self.own.get(algorithm, SPREAD)[t],
                    "predicted_ms": p["ms"]}


def paper_trees(lead):
    """OPT-Tree slower than OPT-Min by the fraction lead(hosts, size); U-Min as OPT-Min."""
    def ms(a, s, h):
        base = 60.0 * s / 65536 * h / 8 + 2
        return base * (1 + lead(h, s) if a == "opt-tree" else 1)
    return ms


def test_opt_min_beats_opt_tree_more_on_more_bytes_and_hosts() -> None:
    net = Net(paper_trees(lambda h, s: 0.1 + 0.2 * s / 65536 * h / 16))
    out = BY_KEY["nupairoj.bmin-trees"].run(Context(False, lambda _m: None, net))
    assert out.verdict == REPRODUCED, out.why
    n = takes(False)
    assert len(net.batches) == 1 and net.batches[0][1] == n
    # at t_hold at or above t_end U-Min is OPT-Min's tree: asked for nowhere
    assert {a for a, *_ in net.asked} == {"opt-tree", "opt-min"}
    rows = out.values["rows"]
    assert [(r["hosts"], r["size"]) for r in rows] == [(16, 4096), (16, 65536), (8, 65536)]
    assert all(r["u_min_is_opt_min"] and r["contended_pairs"]["opt-min"] == 0 and
               r["contended_pairs"]["opt-tree"] > 0 for r in rows)
    assert len({tuple(r["nodes"]) for r in rows}) == 2  # 16 hosts shuffled, 8 of them
    assert set(out.values["intervals"]) == {
        "OPT-Min / OPT-Tree, 4 KiB on 16", "OPT-Min / OPT-Tree, 64 KiB on 16",
        "OPT-Min / OPT-Tree, 64 KiB on 8", "OPT-Min's lead over OPT-Tree, 64 KiB less 4 KiB (ms)",
        "OPT-Min's lead over OPT-Tree, 16 hosts less 8 (ms)"}
    assert "OPT-Min / U-Min at 64 KiB on 16: the same tree" in out.testbed
    assert len(out.points) == 6 * n
    quick = BY_KEY["nupairoj.bmin-trees"].run(Context(True, lambda _m: None, Net(
        paper_trees(lambda h, s: 0.2))))
    assert [(r["hosts"], r["size"]) for r in quick.values["rows"]] == [(16, 4096), (16, 65536)]


def test_opt_min_no_faster_than_opt_tree_differs_for_the_routing() -> None:
    net = Net(paper_trees(lambda h, s: -0.2))  # OPT-Tree the faster
    out = BY_KEY["nupairoj.bmin-trees"].run(Context(True, lambda _m: None, net))
    assert out.verdict == DIFFERS and out.kind == EMULATOR
    assert "OPT-Min / OPT-Tree, 64 KiB on 16 [1.2" in out.why and "adaptive" in out.why
    flat = BY_KEY["nupairoj.bmin-trees"].run(Context(True, lambda _m: None, Net(
        paper_trees(lambda h, s: 0.0), own={"opt-tree": (0.9, 1.0, 1.1, 0.95, 1.05)})))
    assert flat.verdict == UNDECIDED and "straddles" in flat.why
    # ...and says where each job's own ratio lies, and what moves it (published 2026-12-06:
    # OPT-Min / OPT-Tree at 4 KiB 0.75, 0.77, 1.02, 0.80, 0.85)
    assert "OPT-Min / OPT-Tree, 4 KiB on 16: 2 of 3 jobs inside (0.93-1.00), 1 outside (1.09)" \
        in flat.why and "take turns on the 2 cores" in flat.why, flat.why
    # a slow job slows both trees of it: each job's own ratio holds (the points' jobs
    # taken apart would pair one job's slow OPT-Min with another's fast OPT-Tree)
    busy = BY_KEY["nupairoj.bmin-trees"].run(Context(True, lambda _m: None, Net(
        paper_trees(lambda h, s: 0.15), spread=(0.8, 1.0, 1.3, 0.9, 1.2))))
    assert busy.verdict == REPRODUCED, busy.why
    assert busy.values["intervals"]["OPT-Min / OPT-Tree, 4 KiB on 16"]["interval"] == [
        0.87, 0.87]
    flagged = BY_KEY["nupairoj.bmin-trees"].run(Context(True, lambda _m: None, Net(
        paper_trees(lambda h, s: 0.2), flag={("opt-min", 16)})))
    assert flagged.verdict == NO_RESULT


def rate_nets(bmin_tree, mesh_tree):
    """A BMIN and a mesh whose OPT-Tree takes *_tree x its contention-free tree's time, a
    few percent apart from job to job."""
    own = {"opt-tree": (1.01, 1.0, 0.99, 1.005, 0.995)}
    bmin = Net(lambda a, s, h: 100 * (bmin_tree if a == "opt-tree" else 1.0), own=own)
    mesh = Net(lambda a, s, h: 100 * (mesh_tree if a == "opt-tree" else 1.0),
               shape="mesh:rows=4,cols=4", own=own)
    return bmin, mesh


def run_rate(bmin, mesh):
    claim = BY_KEY["nupairoj.bmin-contention-rate"]
    assert claim.before == ("mesh16-load",)
    claim.measure(Context(False, lambda _m: None, mesh))  # the mesh first, then the BMIN
    return claim.run(Context(False, lambda _m: None, bmin, {"mesh16-load": mesh}))


def test_contention_rate_not_applicable_where_the_model_gives_the_bmin_no_fewer_pairs(
) -> None:
    """With this routing (one path a pair on both) OPT-Tree meets about as many contended
    pairs a shuffle on the BMIN as on the mesh (2.2 and 2.0 on the stand-in's t_hold/t_end;
    1.8 and 1.7 as measured 2026-12-06): figure 5.15's reason is not in the instance, so
    the claim is not applicable, its figure still measured and shown."""
    out = run_rate(*rate_nets(1.05, 1.25))
    assert out.values["mean_contended_pairs"]["bmin"] >= \
        out.values["mean_contended_pairs"]["mesh"] > 0
    assert out.verdict == NOT_APPLICABLE and out.kind == EMULATOR
    assert "no fewer contended pairs on the BMIN than on the mesh in the model" in out.why
    assert "t_c mesh less t_c BMIN 0.15 [" in out.testbed
    assert out.values["intervals"]["t_c mesh less t_c BMIN"]["verdict"] == REPRODUCED


def test_contention_rate_lower_on_the_bmin_than_on_the_mesh(monkeypatch) -> None:
    """Where the model gives the BMIN fewer contended pairs a shuffle (mean_pairs stubbed:
    the BMIN 1, the mesh 2), the figure is judged."""
    from testbed.reproduce import nupairoj_bmin as nb

    monkeypatch.setattr(nb, "mean_pairs", lambda topo, params, size: 1.0 if len(
        topo.switches) == 32 else 2.0)
    bmin, mesh = rate_nets(1.05, 1.25)
    out = run_rate(bmin, mesh)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["contention_rate"] == {"bmin": 0.048, "mesh": 0.2}
    assert "t_c mesh less t_c BMIN 0.15 [" in out.testbed
    # the mesh's points are nupairoj.mesh-contention's: its shuffle, 10 broadcasts a point
    from testbed.reproduce.nupairoj import MESH_ITERS

    assert {a for a, *_ in mesh.asked} == {"opt-tree", "opt-mesh"}
    asks, n = mesh.batches[0]  # asked again when read: Network.batch then skips them
    assert n == takes(False) and {a.iters for a in asks} == {MESH_ITERS}
    assert out.values["mean_contended_pairs"]["mesh"] > 0
    # figure 5.15 says less, not by how much: the interval against 0. Alike on both (as
    # measured here once, 0.29 and 0.29) the jobs cannot show it lower: undecided
    flat = run_rate(*rate_nets(1.4, 1.4))
    assert flat.verdict == UNDECIDED and "straddles at least 0" in flat.why
    assert flat.values["intervals"]["t_c mesh less t_c BMIN"]["margin"] == [0.0, None]
    near = run_rate(*rate_nets(1.25, 1.35))  # 0.06 apart, the jobs a few percent
    assert near.verdict == REPRODUCED, near.why
    assert "not the BMIN's extra paths" in near.testbed
    worse = run_rate(*rate_nets(1.4, 1.1))
    assert worse.verdict == DIFFERS and worse.kind == EMULATOR
    assert "one path a pair" in worse.why and "contended pairs a shuffle on the BMIN" in \
        worse.why
    alone = BY_KEY["nupairoj.bmin-contention-rate"].run(
        Context(False, lambda _m: None, rate_nets(1.05, 1.25)[0]))
    assert alone.verdict == NO_RESULT and "mesh" in alone.why


def ch6_record(alg, traffic, ms, predicted=None, flags=()):
    return {"config": {"algorithm": alg, "size": 1024, "hosts": 8, "traffic": traffic},
            "status": "ok", "t_mcast_s": {"median": ms / 1e3, "p10": 0, "p90": 0},
            "verified": True, "fidelity": {"flags": list(flags)},
            "traffic": {"accepted": 0.2}, "predicted_s": predicted and predicted / 1e3}


def ch6_jobs(ms, predicted=None, spread=(0.98, 1.0, 1.02, 0.99, 1.01)):
    from testbed.reproduce.nupairoj import record_point

    predicted = predicted or {}
    return [[record_point(ch6_record(a, t, v * f, predicted.get(a, v)), take)
             for (a, t), v in ms.items()] for take, f in enumerate(spread)]


LOADS = ["uniform-20"]
PAPER = {"binomial": 10.0, "u-min": 9.8, "opt-tree": 8.4, "opt-min": 8.0, "dyn-min": 8.1}


def test_chapter_6_on_the_bmin_parameterized_beat_binomial_and_dyn_min_gains_nothing() -> None:
    from testbed.reproduce.nupairoj_bmin import judge_load

    ms = {(a, t): v * 1.5 for t in LOADS for a, v in PAPER.items()}
    out = judge_load(ch6_jobs(ms), LOADS)
    assert out.verdict == REPRODUCED, out.why
    assert len(out.values["intervals"]) == 3 and len(out.points) == 5 * 5
    assert out.values["shown"]["OPT-Tree / OPT-Min, uniform-20"] == [1.05] * 5
    assert "uniform-20: binomial 15.00 ms" in out.testbed
    # where the model prices the pair alike (one tree at this t_hold/t_end), not judged
    alike = judge_load(ch6_jobs(ms, predicted={a: 9.0 for a in PAPER}), LOADS)
    assert "OPT-Min / U-Min, uniform-20" not in alike.values["intervals"]
    assert "OPT-Min / U-Min at uniform-20: the model prices them 9.00 and 9.00 ms" in \
        alike.testbed
    gains = judge_load(ch6_jobs({**ms, ("dyn-min", "uniform-20"): 8.0}), LOADS)
    assert gains.verdict == DIFFERS and gains.kind == EMULATOR
    assert "DYN-Min / OPT-Min, uniform-20 [0.6" in gains.why and "at least 0.9" in gains.why
    # figure 6.12 bounds DYN-Min's gain only: a DYN-Min well behind OPT-Min gains nothing
    behind = judge_load(ch6_jobs({**ms, ("dyn-min", "uniform-20"): 12 * 1.5}), LOADS)
    assert behind.verdict == REPRODUCED, behind.why
    assert behind.values["intervals"]["DYN-Min / OPT-Min, uniform-20"]["margin"] == [0.9, None]


def test_a_job_apart_leaves_bmin_load_undecided_and_says_so() -> None:
    """Published 2026-12-06: OPT-Tree / binomial 0.76, 0.79, 0.68, 1.01, 0.80 in the five
    jobs: undecided, and the why says where the jobs lie and what moves one job's trees
    (the same group gave OPT-Min / U-Min 0.64-0.75 in three runs and 1.09 in a fourth)."""
    from testbed.reproduce.nupairoj_bmin import judge_load

    ms = {(a, t): v for t in LOADS for a, v in PAPER.items()}
    jobs = ch6_jobs(ms, spread=(1.0,) * 5)
    tie = next(p for p in jobs[3] if p["algorithm"] == "opt-tree")
    tie["ms"] = 10.06  # binomial's 10.0 in that group
    out = judge_load(jobs, LOADS)
    assert out.verdict == UNDECIDED
    assert "OPT-Tree / binomial, uniform-20: 4 of 5 jobs inside (0.84), 1 outside (1.01)" \
        in out.why
    assert "take turns on the 2 cores" in out.why and "the interval over 5 jobs" in out.why


def test_chapter_6_ratios_are_each_jobs_own_so_groups_that_differ_do_not_blur_them() -> None:
    """Each job's group of hosts makes every tree of it faster or slower alike: the ratio
    within a job holds where a ratio of medians over the jobs would not."""
    from testbed.reproduce.nupairoj_bmin import judge_load

    ms = {(a, "uniform-20"): v for a, v in PAPER.items()}
    out = judge_load(ch6_jobs(ms, spread=(0.6, 1.0, 1.5, 0.8, 1.3)), LOADS)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["per_job"]["OPT-Min / U-Min, uniform-20"] == [0.816] * 5


def test_chapter_6_jobs_each_place_the_group_and_share_chapter_5s_params(monkeypatch) -> None:
    from testbed.experiments.kinds import from_dict
    from testbed.reproduce import nupairoj_bmin as nb

    spec = from_dict(nb.ch6_spec("bmin:n=4,bw=10", nb.group_order(0)))
    assert len(spec.points()) == 5 and {p.algorithm for p in spec.points()} == {
        "binomial", "u-min", "opt-tree", "opt-min", "dyn-min"}
    assert spec.rounds == nb.CH6_ROUNDS > 1  # the trees take turns under one background
    group = spec.groups_of(spec.points()[0])[0]
    assert group == [f"h{n}" for n in nb.group_order(0)] and len(set(group)) == 8
    assert len({tuple(nb.group_order(t)) for t in range(5)}) == 5
    runs = []

    def new_run(spec, out, rate, caps, log):
        runs.append(SimpleNamespace(spec=spec, config={}, params=None,
                                    records_file=out / "records.jsonl"))
        return runs[-1]

    def execute(run, emu):
        assert run.config["params"]["sizes"] == [1024, 65536]  # not measured again
        run.records_file.write_text("".join(
            json.dumps(ch6_record(p.algorithm, p.traffic, PAPER[p.algorithm])) + "\n"
            for p in run.spec.points()))

    from testbed.reproduce import nupairoj

    monkeypatch.setattr(nupairoj, "new_run", new_run)  # run_spec's
    monkeypatch.setattr(nupairoj, "execute", execute)
    net = Net(lambda a, s, h: 1.0)
    out = BY_KEY["nupairoj.bmin-load"].run(Context(True, lambda _m: None, net))
    assert len(runs) == takes(True) and out.verdict == REPRODUCED, out.why
    assert out.values["groups"] == [nb.group_order(t) for t in range(takes(True))]
    assert [r.spec.groups_of(r.spec.points()[0])[0][0] for r in runs] == [
        f"h{nb.group_order(t)[0]}" for t in range(takes(True))]
