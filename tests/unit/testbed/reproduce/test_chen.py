"""testbed.reproduce.chen (and its chen_* modules) on stand-in points: the crossover on the
hub (figure 7) with the switch beside, MPICH's hub/switch ratio by how it grows with size
(figure 11), the multicast's (not applicable), the barriers' message counts and their times
on the hub (figure 13), data frames against Chen2000's formulas (on the switch and the hub),
one-third at 7 nodes, and how the cost of one more process grows (figure 12); every claim's
points of a take asked for together (Network.batch)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from collectives.ipmc.plans import (
    mcast_barrier_messages,
    mpich_barrier_messages,
    scout_frames,
    tree_frames,
)
from testbed.reproduce import chen_barrier, chen_hub
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.chen_frames import RootLinkAsk, root_link_bytes
from testbed.reproduce.claims import Claim, Context
from testbed.reproduce.jobs import takes
from testbed.reproduce.networks import ITERS, Ask
from testbed.reproduce.run import run
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
    Outcome,
)

from .stand_ins import JOB_PACE

Ms = Callable[[str, int, int], float]


class Net:
    """A stand-in network (testbed.reproduce.networks.Network): a point's ms from
    `ms(algorithm, size, hosts)` x (1 + `spread` x take), its data frames from the paper's
    formulas + `off`, the root's bytes from `root(algorithm, size)`; `flag` names
    (algorithm, hosts) to flag; every batch it was asked for is kept (asks, takes)."""

    def __init__(self, ms: Ms, spread: float = 0.01, off: float = 0.1,
                 flag: set[tuple[str, int]] | None = None,
                 root: Callable[[str, int], float | None] | None = None):
        self.ms, self.spread, self.off, self.flag, self.root = ms, spread, off, flag or set(), root
        self.batches: list[tuple[list[Ask], int]] = []
        self.asked: list[tuple[str, int, int, int, dict[str, Any]]] = []

    def batch(self, asks: list[Ask], n: int) -> None:
        self.batches.append((list(asks), n))

    def point(self, algorithm: str, size: int, hosts: int, frames: int = 0, take: int = 0,
              **kw: Any) -> dict[str, Any]:
        self.asked.append((algorithm, size, hosts, take, kw))
        data = (tree_frames(size, 1500, hosts) if algorithm == "binomial"
                else scout_frames(size, 1500, hosts)) + self.off
        label = f"{algorithm} {size} B on {hosts} hosts" + (f", take {take + 1}" if take else "")
        return {"label": label, "ms": self.ms(algorithm, size, hosts) * (1 + self.spread * take),
                "flags": ["hosts waited"] if (algorithm, hosts) in self.flag else [],
                "verified": True, "error": None,
                "frames_data": (data + (40.0 if kw.get("completion") == "report" else 0.0))
                if frames else None,
                "frames_acks": 2.0 if frames else None,
                "frames_sent": data + 2.0 if frames else None,
                "frames_medium": data + 2.0 if frames else None,
                "root_link_bytes": self.root(algorithm, size) if self.root else None}


class PacedNet(Net):
    """A Net whose take t ran at JOB_PACE's pace as a whole: every time and count of the
    job x that."""

    def point(self, algorithm: str, size: int, hosts: int, frames: int = 0, take: int = 0,
              **kw: Any) -> dict[str, Any]:
        p = super().point(algorithm, size, hosts, frames, take, **kw)
        f = JOB_PACE[take % len(JOB_PACE)]
        return p | {k: p[k] * f for k in ("ms", "root_link_bytes") if p[k] is not None}


def whole_jobs(out: Outcome) -> dict[str, list[float]]:
    """Each judged part's interval, where every job's own figure is the part's figure."""
    got = out.values["intervals"]
    assert all(i["interval"] == [i["figure"]] * 2 for i in got.values()), got
    return got


def ctx(net: Any, quick: bool = True, earlier: dict[str, Any] | None = None) -> Context:
    return Context(quick, lambda _m: None, net, earlier or {})


def judged(key: str, net: Any, quick: bool = True, switch: Any = None) -> Outcome:
    return BY_KEY[key].run(ctx(net, quick, {chen_hub.SWITCH: switch} if switch else {}))


def asked_together(net: Net) -> set[tuple[str, int, int, int, str]]:
    """Every (algorithm, size, hosts, frames, options) some batch asked for."""
    return {(a.algorithm, a.size, a.count, a.frames, str(a.kwargs)) for asks, _n in net.batches
            for a in asks}


# ---- figure 7: the crossover on the hub, the switch beside ----------------------------------
def hub_ms(a: str, s: int, h: int) -> float:
    """Figure 7's shape: the scouts cost a millisecond before the multicast, MPI_Bcast 0.6
    ms per kilobyte and step: on 4 hosts the scouts win from 1500 B."""
    return 1.2 + 0.3 * s / 1000 if a.startswith("scout") else 0.2 + 0.6 * (h - 2) * s / 1000


def test_crossover_on_the_hub_judges_each_scout_against_mpi_bcast_around_1000_bytes() -> None:
    """At 4 hosts the scouts (as Chen ran them) lose at 1000 B and below, win above it;
    the switch's (figures 8, 10) shown: from which size each scout broadcast wins."""
    net, switch = Net(hub_ms, spread=0.0), Net(lambda a, s, h: hub_ms(a, s, h) / 1.1)
    out = judged("chen.crossover", net, switch=switch)
    assert out.verdict == REPRODUCED, out.why
    got = out.values["intervals"]
    assert set(got) == {f"{a} / MPI_Bcast at {s} B" for a in ("scout-linear", "scout-binary")
                        for s in (1000, 1500, 3000)}  # --quick: 500 B is not measured
    assert got["scout-linear / MPI_Bcast at 1000 B"]["margin"] == [1.0, None]
    assert got["scout-binary / MPI_Bcast at 3000 B"]["margin"] == [None, 1.0]
    # judged: the scouts and MPI_Bcast at 4 hosts up to 3000 B, every job
    assert len(out.points) == 3 * 3 * takes(True)
    assert {p["label"].split(" ")[0] for p in out.points} == {"mpich", "scout-linear",
                                                              "scout-binary"}
    assert all(p["label"].endswith(("(hub)", "(switch)")) for p in out.context)
    assert out.values["beats_from"]["switch"][4] == {"scout-linear": 1500,
                                                     "scout-binary": 1500}
    assert "1000 B MPI_Bcast 1.40, binomial 1.40, scout-linear 1.50" in out.testbed
    # Chen's scouts: no positive completion; a take's 4-host points in one batch
    assert ("scout-linear", 1000, 4, 0, "{'completion': 'none'}") in asked_together(net)
    assert ("binomial", 8192, 4, 0, "{}") in asked_together(net)
    assert [n for _asks, n in net.batches] == [takes(True)] * len(net.batches)
    hub = Net(hub_ms)
    full = judged("chen.crossover", hub, quick=False, switch=switch)
    assert "scout-binary / MPI_Bcast at 500 B" in full.values["intervals"]
    assert set(full.values["beats_from"]["hub"]) == {4, 9}
    # 9 hosts shown from one job, at fewer sizes
    assert sorted({(a.count, n) for asks, n in hub.batches for a in asks}) == [
        (4, takes(False)), (9, 1)]
    assert {s for a, s, h, *_ in hub.asked if h == 9} == set(chen_hub.SIZES_9)
    # the scouts winning at 1000 B already: differs, with the mechanism
    early = judged("chen.crossover", Net(lambda a, s, h: hub_ms(a, s, h) - (
        0.7 if a.startswith("scout") else 0.0), spread=0.0), switch=switch)
    assert early.verdict == DIFFERS and early.kind == EMULATOR
    assert "scout-linear / MPI_Bcast at 1000 B [0.57, 0.57] lies outside at least 1" in \
        early.why and "time dilation" in early.why and "shared cores" not in early.why
    # the scouts losing above 1000 B: their software's cost
    late = judged("chen.crossover", Net(lambda a, s, h: hub_ms(a, s, h) + (
        5.0 if a == "scout-binary" else 0.0), spread=0.0))
    assert late.verdict == DIFFERS and "shared cores" in late.why and "dilation" not in late.why
    # points up to 3000 B timed over more broadcasts (a few milliseconds each), larger ones
    # over the networks' default
    iters = {(a.size, a.iters) for asks, _n in net.batches for a in asks}
    assert iters == {(1000, 30), (1500, 30), (3000, 30), (8192, ITERS)}
    # no switch measured: the hub is judged all the same
    assert judged("chen.crossover", Net(hub_ms)).verdict == REPRODUCED
    # a flagged binomial is shown, not judged; a flagged scout takes the verdict away
    assert judged("chen.crossover", Net(hub_ms, flag={("binomial", 4)})).verdict == REPRODUCED
    flagged = judged("chen.crossover", Net(hub_ms, flag={("scout-binary", 4)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why


def test_the_crossover_draws_a_takes_broadcasts_together() -> None:
    """A take's scouts and MPI_Bcast on the 4 hosts run in one job: a job-wide pace (0.6,
    1.0, 1.4 x) moves them alike and each ratio is judged by job, not one job's scouts
    against another's MPI_Bcast."""
    assert len(whole_jobs(judged("chen.crossover", PacedNet(hub_ms, spread=0.0)))) == 6


# ---- figure 11: MPICH's hub/switch ratio grows with size ------------------------------------
def mpich_grows(a: str, s: int, h: int) -> float:
    """The hub's MPI_Bcast 0.9 x the switch's at 1000 B, 1.5 x at 8 KiB and above."""
    return hub_ms(a, s, h) * (0.9 if s <= 1500 else 1.2 if s == 3000 else 1.5)


def test_hub_mpich_is_judged_where_the_emulator_shows_it() -> None:
    """Figure 11's MPICH judged on its hub/switch ratio above 3000 B; the ratio below and its
    growth shown, not judged (no cut-through; the switch's lone frames, job by job)."""
    out = judged("chen.hub-mpich", Net(mpich_grows), switch=Net(hub_ms))
    assert out.verdict == REPRODUCED, out.why
    assert out.values["ratio"][4] == pytest.approx({1000: 0.9, 1500: 0.9, 3000: 1.2,
                                                    8192: 1.5})
    got = out.values["intervals"]
    assert set(got) == {"4 hosts, above 3000 B"} and got["4 hosts, above 3000 B"][
        "margin"] == [1.05, None]
    assert "below 3000 B 0.90 on 4 hosts" in out.testbed
    assert "the growth above over below 1.67 (shown, not judged: no cut-through" in \
        out.testbed and "without its wire time" in out.testbed
    assert all(p["label"].startswith("mpich") and "on 4 hosts" in p["label"]
               for p in out.points)
    assert len(out.points) == 2 * 4 * takes(True)  # both sides, 4 sizes (--quick)
    # flat: the emulated hub as far behind at 1000 B as at 8 KiB: the growth (1.00) does
    # not take the verdict
    flat = judged("chen.hub-mpich", Net(lambda a, s, h: 1.5 * hub_ms(a, s, h), spread=0.0),
                  switch=Net(hub_ms, spread=0.0))
    assert flat.verdict == REPRODUCED and "growth above over below 1.00" in flat.testbed
    # not slower above 3000 B: differs, with the mechanism
    same = judged("chen.hub-mpich", Net(hub_ms, spread=0.0), switch=Net(hub_ms, spread=0.0))
    assert same.verdict == DIFFERS and same.kind == EMULATOR and "collides" in same.why
    assert "4 hosts, above 3000 B [1.00, 1.00] lies outside at least 1.05" in same.why

    # 9 hosts (full run) shown, not judged; a flagged scout is shown too; a flagged point
    # below 3000 B (shown) still takes the verdict away: every MPI_Bcast point on 4 hosts
    # is a result or nothing is said
    full = judged("chen.hub-mpich", Net(mpich_grows, flag={("scout-linear", 9)}), quick=False,
                  switch=Net(hub_ms))
    assert full.verdict == REPRODUCED and set(full.values["ratio"]) == {4, 9}
    assert judged("chen.hub-mpich", Net(mpich_grows, flag={("mpich", 4)}),
                  switch=Net(hub_ms)).verdict == NO_RESULT
    missing = judged("chen.hub-mpich", Net(mpich_grows))
    assert missing.verdict == NO_RESULT and "star9" in missing.why


def test_hub_multicast_is_not_applicable_and_shows_its_ratios() -> None:
    mc = judged("chen.hub-multicast", Net(mpich_grows), switch=Net(hub_ms))
    assert mc.verdict == NOT_APPLICABLE and mc.kind == EMULATOR and "cut-through" in mc.why
    assert mc.values["ratio"][4][1000] == pytest.approx(0.9)
    assert mc.values["beats_from"] == {"hub": {4: 1500}, "switch": {4: 1500}}
    assert mc.testbed.endswith("beats MPI_Bcast from: hub 4 hosts 1500 B; switch 4 hosts "
                               "1500 B")
    flagged = judged("chen.hub-multicast", Net(mpich_grows, flag={("scout-linear", 4)}),
                     switch=Net(hub_ms))
    assert flagged.verdict == NOT_APPLICABLE and "4 hosts 1000 B -" in flagged.testbed
    assert f"{4 * takes(True)} of " in flagged.why


def test_the_hub_claims_bring_the_switch_up_first_and_read_its_points_back(
        monkeypatch, tmp_path: Path) -> None:
    from testbed.reproduce import networks

    with pytest.raises(ValueError, match="need a network and a measure"):
        Claim("x.y", "Chen2000", "s", BY_KEY["chen.hub-mpich"].figure, "m", chen_hub.hub_mpich,
              network=chen_hub.HUB, before=(chen_hub.SWITCH,))

    class Named(Net):
        def __init__(self, name: str, ms: Ms) -> None:
            super().__init__(ms)
            self.name = name

        def describe(self) -> dict:
            return {"topology": self.name, "rate": "25 Mbit/s", "link_rate": {}}

    up: list[Named] = []

    @contextmanager
    def running(name, caps, progress):
        up.append(Named(name, mpich_grows if name == chen_hub.HUB else hub_ms))
        yield up[-1]

    monkeypatch.setattr(networks, "running", running)
    doc = run(tmp_path, quick=True, only=["chen.hub-mpich", "chen.crossover"],
              progress=lambda _m: None)
    assert [n.name for n in up] == [chen_hub.SWITCH, chen_hub.HUB]
    switch, hub = up
    # the switch: one batch a claim measured before, then read back on the hub
    assert all(n == takes(True) for _a, n in switch.batches + hub.batches)
    assert {a for a, *_ in switch.asked} == {"mpich", "binomial", "scout-linear",
                                             "scout-binary"}
    assert set(doc["networks"]) == {chen_hub.SWITCH, chen_hub.HUB}
    entries = {c["key"]: c for c in doc["claims"]}
    assert entries["chen.hub-mpich"]["verdict"] == REPRODUCED
    assert entries["chen.crossover"]["network"] == chen_hub.HUB
    assert (tmp_path / "plots" / "chen.hub-mpich.png").exists()
    assert (tmp_path / "plots" / "chen.crossover.png").exists()


# ---- figure 13: the barriers on the hub ------------------------------------------------------
def barrier_stand_in(ms: Callable[[str, int, int], float | None],
                     data: dict[str, Callable[[int], float]] | None = None,
                     flag: tuple[str, int] | None = None):
    """barrier_points as a stand-in: each row's ms from ms(algorithm or "chen", hosts,
    take), its data frames from data[key](hosts) (None without)."""
    def fake(net: Any, hosts: int, take: int = 0, rows=chen_barrier.BARRIER_ROWS,
             timed: int = 10, frames: int = 40) -> list[dict[str, Any]]:
        out = []
        for a, o in rows:
            key = ("chen" if o.get("release") == "multicast" else
                   "safe" if a == "mcast" else a)
            out.append({"label": f"{key} barrier on {hosts} hosts", "ms": ms(key, hosts, take),
                        "verified": True, "error": None,
                        "flags": ["hosts waited"] if flag == (key, hosts) else [],
                        "frames_data": data[key](hosts) if data and data.get(key) else None,
                        "frames_acks": 1.5, "frames_sent": None, "timed": timed,
                        "counted": frames})
        return out
    return fake


def test_hub_barrier_is_not_applicable_and_shows_its_figures(monkeypatch) -> None:
    """Figure 13 on the hub: the emulated hub neither collides nor charges a zero-byte frame
    more than its medium time, so the barriers' times follow the hosts' load: not
    applicable, whatever was measured; the figures shown with their intervals, each job's
    two barriers drawn together."""
    def ms(k: str, h: int, take: int) -> float:
        """MPICH 1's barrier 1.1 x the multicast one on 3 hosts, 1.7 x on 9."""
        return {"pairwise": 0.4 * h - 0.54, "chen": 0.2 * h}[k]

    seen: list[tuple[int, int, int]] = []

    def fake(net, hosts, take=0, rows=(), timed=10, frames=40):
        seen.append((hosts, timed, frames))
        return barrier_stand_in(ms)(net, hosts, take, rows, timed, frames)

    monkeypatch.setattr(chen_barrier, "barrier_points", fake)
    out = judged("chen.hub-barrier", object())
    assert out.verdict == NOT_APPLICABLE and out.kind == EMULATOR, out.why
    assert "collisions" in out.why and "follows what else loads them" in out.why
    # --quick: 3 and 9 hosts, each take one job of the two barriers, timed, not counted
    assert seen == [(h, chen_barrier.HUB_BARRIER_TIMED, 0) for h in (3, 9)
                    for _t in range(takes(True))]
    assert chen_barrier.HUB_BARRIER_ROWS == (("pairwise", {}), ("mcast", {"release":
                                                                          "multicast"}))
    got = out.values["intervals"]
    assert set(got) == {"9 hosts, pairwise / Chen's", "ms saved, 9 hosts less 3"}
    assert got["9 hosts, pairwise / Chen's"]["figure"] == pytest.approx(1.7)
    assert got["ms saved, 9 hosts less 3"]["figure"] == pytest.approx(1.26 - 0.06)
    assert len(out.points) == 2 * 2 * takes(True) and out.context == []
    assert "9 hosts MPICH 1's pairwise 3.06, Chen's multicast 1.80; pairwise / Chen's 3 " \
        "hosts 1.10, 9 hosts 1.70; shown, not judged: 9 hosts, pairwise / Chen's 1.70" in \
        out.testbed
    # MPICH 1's barrier ahead: not applicable all the same; the full run's 6 hosts shown
    monkeypatch.setattr(chen_barrier, "barrier_points", barrier_stand_in(
        lambda k, h, t: 1.0 * h if k == "pairwise" else 1.5 * h))
    slow = judged("chen.hub-barrier", object(), quick=False)
    assert slow.verdict == NOT_APPLICABLE and len(slow.context) == 2
    assert "6 hosts 0.67" in slow.testbed  # one job
    # a flagged point: no intervals from it, the reason says so
    monkeypatch.setattr(chen_barrier, "barrier_points", barrier_stand_in(
        lambda k, h, t: ms(k, h, t), flag=("chen", 9)))
    flagged = judged("chen.hub-barrier", object())
    assert flagged.verdict == NOT_APPLICABLE and "hosts waited" in flagged.why
    assert "intervals" not in flagged.values


def test_hub_barrier_draws_a_job_s_two_barriers_together(monkeypatch) -> None:
    """A take's two barriers run in one job and move alike between jobs (the ranks'
    placement on two cores): one job twice as slow for both leaves the ratio and the
    milliseconds saved per job as they are (paired), where drawn apart its pairwise barrier
    met another job's multicast one (1.2 x everywhere: drawn apart 0.6-2.4)."""
    monkeypatch.setattr(chen_barrier, "barrier_points", barrier_stand_in(
        lambda k, h, t: (2.0 if t == 1 else 1.0) * (1.2 if k == "pairwise" else 1.0) * h))
    got = judged("chen.hub-barrier", object()).values["intervals"]
    assert got["9 hosts, pairwise / Chen's"]["interval"] == [1.2, 1.2]
    lo, hi = got["ms saved, 9 hosts less 3"]["interval"]
    assert 0 < lo <= hi  # 0.2 x 6 ms, or twice that where the slow job is drawn


def test_barrier_points_runs_the_rows_in_one_job_and_measures_a_flagged_one_again(
        monkeypatch) -> None:
    from types import SimpleNamespace

    calls: list[dict[str, Any]] = []

    def run_barriers(emu, rows, options):
        calls.append({"rows": rows, "hosts": options.hosts,
                      "repetitions": options.repetitions, "frames": options.frames})
        return [SimpleNamespace(label=a, t_barrier=None, released_early=0,
                                flags=["hosts waited"] if len(calls) == 1 else [],
                                algorithm=a, release=o.get("release"), p2p_releases=0,
                                counted_flags=None, frames=None) for a, o in rows]

    monkeypatch.setattr(chen_barrier, "run_barriers", run_barriers)
    net = SimpleNamespace(emu=None, progress=lambda _m: None)
    got = chen_barrier.barrier_points(net, 6, 1, chen_barrier.HUB_BARRIER_ROWS, 40, 0)
    assert [c["repetitions"] for c in calls] == [40, 40] and calls[0]["frames"] == 0
    assert [p["label"] for p in got] == ["pairwise barrier on 6 hosts, take 2",
                                         "mcast barrier on 6 hosts, take 2"]
    assert all(p["tries"] == 2 and p["flags"] == [] for p in got)


# ---- section 3.2: the barriers' messages ------------------------------------------------------
PAPER = {"pairwise": lambda h: mpich_barrier_messages(h) + 0.1,
         "chen": lambda h: mcast_barrier_messages(h) - 0.2,
         "safe": lambda h: 2 * h - 1.0, "mpich": lambda h: 3.0 * h}


def counts(monkeypatch, data: dict[str, Any], flag: tuple[str, int] | None = None,
           spread: float = 0.0) -> Outcome:
    """chen.barrier-messages on barrier_stand_in, the second job's counts `spread` more."""
    fake = barrier_stand_in(lambda k, h, t: 1.0, data, flag)

    def spread_out(net, hosts, take=0, **kw):
        return [p | {"frames_data": p["frames_data"] + spread * take}
                if p["frames_data"] is not None else p for p in fake(net, hosts, take, **kw)]

    monkeypatch.setattr(chen_barrier, "barrier_points", spread_out)
    return judged("chen.barrier-messages", object())


def test_barrier_messages_reproduced_differs_and_no_result(monkeypatch) -> None:
    out = counts(monkeypatch, PAPER)
    assert out.verdict == REPRODUCED, out.why
    # 4, 7 and 9 hosts, every job
    assert len(out.points) == takes(True) * 6 and len(out.context) == takes(True) * 6
    assert [r["pairwise_count"] for r in out.values["rows"]] == [8, 14, 26]
    assert [r["chen_count"] for r in out.values["rows"]] == [4, 7, 9]
    assert [r["safe_count"] for r in out.values["rows"]] == [7, 13, 17]
    assert "7 hosts: MPICH 1's pairwise 14.1 (14), Chen's multicast 6.8 (7), safe " \
           "multicast 13.0 (13), MPI_Barrier 21.0" in out.testbed
    assert out.values["rows"][0]["acks"]["chen"] == 1.5
    # the safe barrier's 2N - 1 is not Chen's N: shown, never judged
    off = counts(monkeypatch, {**PAPER, "chen": lambda h: 2 * h - 1.0})
    assert off.verdict == DIFFERS and off.kind == TRANSFER
    assert "4 hosts Chen's multicast (count 4) [7.00, 7.00] lies outside at least 3.5 and " \
        "at most 4.5" in off.why
    # judged over the jobs: a second job 0.5 frame further off straddles the margin
    wide = counts(monkeypatch, PAPER, spread=0.5)
    assert wide.verdict == UNDECIDED and "9 hosts MPICH 1's pairwise (count 26) [26.10, " \
        "27.10] straddles" in wide.why, wide.why
    assert wide.values["rows"][2]["pairwise_jobs"][:2] == [26.1, 26.6]
    assert counts(monkeypatch, {**PAPER, "safe": None}).verdict == REPRODUCED
    # MPI_Barrier is context: its flag does not take the verdict away, a judged one does
    assert counts(monkeypatch, PAPER, flag=("mpich", 9)).verdict == REPRODUCED
    flagged = counts(monkeypatch, PAPER, flag=("pairwise", 9))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    unread = counts(monkeypatch, {**PAPER, "pairwise": None})
    assert unread.verdict == NO_RESULT and "not read" in unread.why


def test_the_barrier_claims_run_where_the_paper_measured_them() -> None:
    claim = BY_KEY["chen.barrier-messages"]
    assert (claim.network, claim.in_quick, claim.paper) == ("star16", True, "Chen2000")
    assert claim.figure.values["mpich_messages"] == {7: 14, 9: 26}
    hub = BY_KEY["chen.hub-barrier"]
    assert (hub.network, hub.figure.where) == (chen_hub.HUB, "section 4, figure 13")


# ---- section 3.1: data frames against the formulas ----------------------------------------
def test_chen_frames_judges_data_frames_of_the_faithful_scouts_against_the_formulas() -> None:
    """MPICH's tree and the scouts without completion within half a frame of the formulas;
    the repaired scouts (completion report) and the pure ACKs shown, not judged; a take's
    points of a host count asked for together, the repaired ones in the first take."""
    net = Net(hub_ms, off=0.2)
    out = judged("chen.frames", net)
    assert out.verdict == REPRODUCED, out.why
    # 4 and 9 hosts, 3 sizes; the judged points in every job, the repaired in one
    assert len(out.points) == takes(True) * 12 and len(out.context) == 6
    assert "; over the jobs: 4 hosts 1000 B tree (count 3) 3.20 [3.20, 3.20]" in out.testbed
    assert all("completion report" not in p["label"] for p in out.points)
    assert out.values["rows"][0]["acks"] == {"tree": 2.0, "scout": 2.0, "repaired": 2.0}
    assert "tree 3.2 (3), scouts 4.2 (4), repaired scouts 44.2" in out.testbed
    first, rest = net.batches
    assert first[1] == 1 and rest[1] == takes(True)
    assert {(a.algorithm, a.kwargs.get("completion")) for a in first[0]} == {
        ("binomial", None), ("scout-linear", "none"), ("scout-linear", "report")}
    assert all(a.frames == 40 for a in first[0] + rest[0])
    off = judged("chen.frames", Net(hub_ms, off=0.7))
    assert off.verdict == DIFFERS and off.kind == TRANSFER and "4 hosts 1000 B tree" in off.why
    assert judged("chen.frames", Net(hub_ms, flag={("scout-linear", 9)})).verdict == NO_RESULT


def test_hub_frames_judge_data_frames_and_show_the_medium() -> None:
    out = judged("chen.hub-frames", Net(hub_ms))
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == takes(True) * 6  # --quick: 4 hosts, 3 sizes, tree and scouts
    assert "4 hosts 1000 B: tree 3.1 (3), scouts 4.1 (4); medium 5.1/5.1" in out.testbed
    full = judged("chen.hub-frames", Net(hub_ms, off=0.7), quick=False)
    assert full.verdict == DIFFERS and len(full.points) == takes(False) * 12


# ---- section 3.1: one-third of the data frames with 7 nodes ------------------------------------
def root_bytes(a: str, s: int) -> float:
    """The root's link: three copies of the message in the tree, one multicast and the
    scouts' ACKs (6 x 66 B) with the scouts."""
    return 3 * (s + 60) if a == "binomial" else s + 60 + 396


def test_one_third_judges_the_roots_bytes_and_shows_the_whole_broadcast() -> None:
    net = Net(hub_ms, root=root_bytes)
    out = judged("chen.one-third", net)
    assert out.verdict == REPRODUCED, out.why
    got = out.values["intervals"]
    assert set(got) == {"3000 B, the root's bytes, scouts / tree",
                        "8192 B, the root's bytes, scouts / tree"}
    assert got["3000 B, the root's bytes, scouts / tree"]["figure"] == pytest.approx(
        3456 / 9180, abs=1e-3)
    assert got["8192 B, the root's bytes, scouts / tree"]["margin"] == [
        pytest.approx(1 / 3 - 0.05), pytest.approx(1 / 3 + 0.05)]
    # judged: 3000 and 8192 B, tree and scouts, every job on 7 hosts; 1000 B shown
    assert len(out.points) == 2 * 2 * takes(True) and len(out.context) == 2 * takes(True)
    assert all("on 7 hosts" in p["label"] for p in out.points + out.context)
    rows = {r["size"]: r for r in out.values["rows"]}
    assert rows[8192]["formula_share"] == pytest.approx(12 / 36)  # the scouts counted
    assert rows[1000]["data_share"] == pytest.approx(7.1 / 6.1)
    assert "8192 B 0.349 (8648/24756 B); 0.335 (0.333)" in out.testbed
    (asks, n), = net.batches
    assert n == takes(True) and all(type(a) is RootLinkAsk and a.frames == 40 for a in asks)
    # the root's share as the whole broadcast's: a sixth of the data, not a third
    sixth = judged("chen.one-third", Net(hub_ms, root=lambda a, s: 6.0 * s
                                         if a == "binomial" else 1.0 * s))
    assert sixth.verdict == DIFFERS and sixth.kind == EMULATOR and "[0.167, 0.167]" in sixth.why
    unread = judged("chen.one-third", Net(hub_ms))
    assert unread.verdict == NO_RESULT and "root's link was not counted" in unread.why
    assert judged("chen.one-third", Net(hub_ms, root=root_bytes,
                                        flag={("binomial", 7)})).verdict == NO_RESULT


def test_one_third_draws_a_takes_scouts_and_tree_together() -> None:
    """A take's scouts and tree on 7 hosts run in one job: the root's bytes of a job (here
    0.6, 1.0, 1.4 x) are drawn together, the share judged by job."""
    out = judged("chen.one-third", PacedNet(hub_ms, spread=0.0, root=root_bytes))
    assert whole_jobs(out)["3000 B, the root's bytes, scouts / tree"]["figure"] == \
        pytest.approx(3456 / 9180, abs=1e-3)


def test_the_roots_bytes_are_read_off_the_links_from_the_roots_host() -> None:
    from types import SimpleNamespace

    from testbed.bench.points import Flagged

    res = SimpleNamespace(rank_hosts=("h3", "h1", "h2"), call=SimpleNamespace(root=0),
                          link_bytes={"h3>s1": 9000, "s1>h3": 400, "h1>s1": 66})
    assert root_link_bytes(Flagged(res)) == 9000  # type: ignore[arg-type]
    assert root_link_bytes(Flagged(None, error="failed")) is None
    assert root_link_bytes(Flagged(SimpleNamespace(link_bytes=None))) is None  # type: ignore


# ---- figure 12: what one more process costs --------------------------------------------------
def test_chen_scaling_judges_how_the_cost_of_a_process_grows() -> None:
    """Chen's figure 12: one more process costs the linear multicast one more scout at any
    size, MPICH's tree one more copy: linear's growth over MPICH's at most 0.5."""
    def ms(a, s, h):
        return 1.0 + 0.3 * h + (0.1 * s / 1000 if a == "scout-linear" else 0.05 * h * s / 1000)

    net = Net(ms, spread=0.0)
    out = judged("chen.scaling", net, quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 8 * takes(False)
    assert out.values["per_process_ms"]["scout-linear 1000"] == pytest.approx(0.3)
    assert out.values["per_process_ms"]["mpich 8192"] == pytest.approx(0.3 + 0.05 * 8.192)
    (asks, n), = net.batches
    assert n == takes(False) and len(asks) == 8
    same = judged("chen.scaling", Net(lambda a, s, h: 0.05 * h * s / 1000 + h, spread=0.02),
                  quick=False)
    assert same.verdict == DIFFERS and same.kind == EMULATOR
    assert "scout-linear's growth / MPI_Bcast's [" in same.why and "lies outside at most " \
        "0.5" in same.why
    assert BY_KEY["chen.scaling"].in_quick is False


def test_chen_scaling_draws_whole_takes() -> None:
    """A take's points on a host count run in one job (the 4- and 9-host jobs of a take
    back to back): a take-wide pace (0.6, 1.0, 1.4 x) cancels in each growth, which is
    judged by take, not one job's 8 KiB against another's 1000 B."""
    def ms(a, s, h):
        return 1.0 + 0.3 * h + (0.02 if a == "scout-linear" else 0.05) * h * s / 1000

    out = judged("chen.scaling", PacedNet(ms, spread=0.0), quick=False)
    assert whole_jobs(out)["scout-linear's growth / MPI_Bcast's"]["figure"] == 0.4
