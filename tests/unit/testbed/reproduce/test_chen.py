"""testbed.reproduce.chen on stand-in points: chen.barrier-messages (on the 16-host star, in
quick runs too), data frames against Chen2000's formulas (on the hub, and the faithful
scouts'), the hub against the switch (the switch's points measured first), and how the cost
of one more process grows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from collectives.ipmc.plans import (
    mcast_barrier_messages,
    mpich_barrier_messages,
    scout_frames,
    tree_frames,
)
from testbed.reproduce import chen
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
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

from .stand_ins import Points, TakesPoints, flat_mcast, measured


# ---- chen.barrier-messages judged on stand-in points --------------------------------------
def _points(data: dict[str, Any], flag: tuple[str, int] | None = None,
            spread: float = 0.0):
    """barrier_points as a stand-in: each row's data frames from data[key](hosts), `spread`
    more in the second job."""
    def fake(net: Any, hosts: int, take: int = 0) -> list[dict[str, Any]]:
        return [{"label": f"{k} barrier on {hosts} hosts", "ms": 1.0, "verified": True,
                 "error": None, "flags": ["hosts waited"] if flag == (k, hosts) else [],
                 "frames_data": data[k](hosts) + spread * take if data.get(k) else None,
                 "frames_acks": 1.5, "frames_sent": None} for k in chen.BARRIER_KEYS]
    return fake


PAPER = {"pairwise": lambda h: mpich_barrier_messages(h) + 0.1,
         "chen": lambda h: mcast_barrier_messages(h) - 0.2,
         "safe": lambda h: 2 * h - 1.0, "mpich": lambda h: 3.0 * h}


def _judged(monkeypatch, fake) -> Any:
    monkeypatch.setattr(chen, "barrier_points", fake)
    return BY_KEY["chen.barrier-messages"].run(Context(True, lambda _m: None, object()))


def test_barrier_messages_reproduced_differs_and_no_result(monkeypatch) -> None:
    out = _judged(monkeypatch, _points(PAPER))
    assert out.verdict == REPRODUCED, out.why
    # 4, 7 and 9 hosts, 2 jobs each (--quick)
    assert len(out.points) == 2 * 6 and len(out.context) == 2 * 6
    assert [r["pairwise_count"] for r in out.values["rows"]] == [8, 14, 26]
    assert [r["chen_count"] for r in out.values["rows"]] == [4, 7, 9]
    assert [r["safe_count"] for r in out.values["rows"]] == [7, 13, 17]
    assert "7 hosts: MPICH 1's pairwise 14.1 (14), Chen's multicast 6.8 (7), safe " \
           "multicast 13.0 (13), MPI_Barrier 21.0" in out.testbed
    assert out.values["rows"][0]["acks"]["chen"] == 1.5
    # the safe barrier's 2N - 1 is not Chen's N: shown, never judged
    off = _judged(monkeypatch, _points({**PAPER, "chen": lambda h: 2 * h - 1.0}))
    assert off.verdict == DIFFERS and off.kind == TRANSFER
    assert "4 hosts Chen's multicast (count 4) [7.00, 7.00] lies outside at least 3.5 and " \
        "at most 4.5" in off.why
    # judged over the jobs: a second job 0.5 frame further off straddles the margin
    wide = _judged(monkeypatch, _points(PAPER, spread=0.5))
    assert wide.verdict == UNDECIDED and "9 hosts MPICH 1's pairwise (count 26) [26.10, " \
        "26.60] straddles" in wide.why, wide.why
    assert wide.values["rows"][2]["pairwise_jobs"] == [26.1, 26.6]
    assert _judged(monkeypatch, _points({**PAPER, "safe": None})).verdict == REPRODUCED
    # MPI_Barrier is context: its flag does not take the verdict away, a judged one does
    assert _judged(monkeypatch, _points(PAPER, flag=("mpich", 9))).verdict == REPRODUCED
    flagged = _judged(monkeypatch, _points(PAPER, flag=("pairwise", 9)))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    unread = _judged(monkeypatch, _points({**PAPER, "pairwise": None}))
    assert unread.verdict == NO_RESULT and "not read" in unread.why


def test_the_claim_is_measured_on_the_16_host_star_in_quick_runs_too() -> None:
    claim = BY_KEY["chen.barrier-messages"]
    assert (claim.network, claim.in_quick, claim.paper) == ("star16", True, "Chen2000")
    assert claim.figure.values["mpich_messages"] == {7: 14, 9: 26}


class HubPoints:
    """A stand-in hub network: data frames `off` away from the formulas, every frame sent
    crossing the medium once."""

    def __init__(self, off: float = 0.1):
        self.off = off

    def point(self, algorithm: str, size: int, hosts: int, **kw: Any) -> dict[str, Any]:
        data = (tree_frames(size, 1500, hosts) if algorithm == "binomial"
                else scout_frames(size, 1500, hosts)) + self.off
        return {"label": f"{algorithm} {size} B on {hosts}", "ms": 1.0, "flags": [],
                "verified": True, "error": None, "frames_data": data, "frames_acks": 2.0,
                "frames_sent": data + 2.0, "frames_medium": data + 2.0}


def test_hub_frames_judge_data_frames_and_show_the_medium():
    out = BY_KEY["chen.hub-frames"].run(Context(True, lambda _m: None, HubPoints()))
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 2 * 6  # --quick: 4 hosts, 3 sizes, tree and scouts, 2 jobs
    assert "4 hosts 1000 B: tree 3.1 (3), scouts 4.1 (4); medium 5.1/5.1" in out.testbed
    full = BY_KEY["chen.hub-frames"].run(Context(False, lambda _m: None, HubPoints(0.7)))
    assert full.verdict == DIFFERS and len(full.points) == 3 * 12


def test_chen_frames_judges_data_frames_of_the_faithful_scouts_against_the_formulas() -> None:
    """MPICH's tree and the scouts without completion within half a frame of the formulas;
    the repaired scouts (completion report) and the pure ACKs shown, not judged."""
    def data(alg, size, hosts, completion, off=0.2):
        if alg == "binomial":
            return tree_frames(size, 1500, hosts) + off
        return scout_frames(size, 1500, hosts) + (off if completion == "none" else 40.0)

    out = measured("chen.frames", Points(flat_mcast, data=data))
    assert out.verdict == REPRODUCED, out.why
    # 4 and 9 hosts, 3 sizes; the judged points in 2 jobs (--quick), the repaired in one
    assert len(out.points) == 2 * 12 and len(out.context) == 6
    assert "; over the jobs: 4 hosts 1000 B tree (count 3) 3.20 [3.20, 3.20]" in out.testbed
    assert all("completion report" not in p["label"] for p in out.points)
    row = out.values["rows"][0]
    assert row["acks"] == {"tree": 2.0, "scout": 2.0, "repaired": 2.0}
    assert "tree 3.2 (3), scouts 4.2 (4)" in out.testbed
    off = measured("chen.frames", Points(flat_mcast, data=lambda *a: data(*a, off=0.7)))
    assert off.verdict == DIFFERS and off.kind == TRANSFER and "4 hosts 1000 B tree" in off.why
    flagged = measured("chen.frames", Points(flat_mcast, data=data,
                                             flag={("scout-linear", 9)}))
    assert flagged.verdict == NO_RESULT
    unread = measured("chen.frames", Points(flat_mcast))
    assert unread.verdict == NO_RESULT and "not read" in unread.why


# ---- Chen2000's hub against the switch: two networks, the switch's measured first ---------
def test_hub_claims_judge_mpich_over_jobs_and_show_the_multicast(monkeypatch,
                                                                 tmp_path: Path) -> None:
    """MPICH's hub/switch ratio above 3000 B is judged over its jobs (HUB_TAKES each); the
    multicast's is not applicable (no cut-through), its ratios shown; the run brings the
    switch up first and the claims read its points back."""
    from contextlib import contextmanager

    from testbed.reproduce import networks
    from testbed.reproduce.claims import Claim

    def hub_ms(alg: str, size: int, hosts: int) -> float:
        return (1.0 if alg == "scout-linear" else 2.0) * size / 1024

    def switch_ms(alg: str, size: int, hosts: int) -> float:
        return hub_ms(alg, size, hosts) / (1.25 if alg == "mpich" else 1.0)

    def judged(key: str, hub: Points, switch: Points | None, quick: bool = True) -> Outcome:
        earlier = {} if switch is None else {chen.SWITCH: switch}
        return BY_KEY[key].run(Context(quick, lambda _m: None, hub, earlier))

    out = judged("chen.hub-mpich", Points(hub_ms), Points(switch_ms))
    assert out.verdict == REPRODUCED, out.why
    assert out.values["ratio"][4] == pytest.approx(dict.fromkeys(chen.HUB_SIZES, 1.25))
    assert out.values["intervals"]["4 hosts, above 3000 B"]["interval"] == [1.25, 1.25]
    assert "4 hosts 1.25 1.25 1.25 1.25" in out.testbed
    assert len(out.points) == 24 and len(out.context) == 8  # 3 jobs of MPI_Bcast, 1 scout
    assert all(p["label"].startswith("mpich") for p in out.points)
    full = judged("chen.hub-mpich", Points(hub_ms), Points(switch_ms), quick=False)
    assert set(full.values["intervals"]) == {"4 hosts, above 3000 B", "9 hosts, above 3000 B"}
    same = judged("chen.hub-mpich", Points(hub_ms), Points(hub_ms))
    assert same.verdict == DIFFERS and same.kind == EMULATOR
    assert "[1.00, 1.00] lies outside at least 1.05" in same.why
    flagged = judged("chen.hub-mpich", Points(hub_ms, flag={("mpich", 4)}), Points(switch_ms))
    assert flagged.verdict == NO_RESULT
    # a flagged scout is shown, not judged
    assert judged("chen.hub-mpich", Points(hub_ms, flag={("scout-linear", 4)}),
                  Points(switch_ms)).verdict == REPRODUCED
    assert judged("chen.hub-mpich", Points(hub_ms), None).verdict == NO_RESULT

    mc = judged("chen.hub-multicast", Points(hub_ms), Points(switch_ms))
    assert mc.verdict == NOT_APPLICABLE and mc.kind == EMULATOR and "cut-through" in mc.why
    assert mc.values["ratio"][4] == dict.fromkeys(chen.HUB_SIZES, 1.0)
    assert mc.values["beats_from"] == {"hub": {4: 1024}, "switch": {4: 1024}}
    assert mc.testbed.endswith("beats MPI_Bcast from: hub 1024 B; switch 1024 B (4 hosts)")
    assert len(mc.points) == 32 and mc.points[0]["label"].endswith("(hub)")
    assert len(mc.values["plot"]["series"]) == 4
    # a flagged point feeds no ratio and is named; the verdict stays
    mf = judged("chen.hub-multicast", Points(hub_ms, flag={("scout-linear", 4)}),
                Points(switch_ms))
    assert mf.verdict == NOT_APPLICABLE and "4 hosts - - - -" in mf.testbed
    assert "4 of 32 point(s) are no result" in mf.why
    with pytest.raises(ValueError, match="need a network and a measure"):
        Claim("x.y", "Chen2000", "s", BY_KEY["chen.hub-mpich"].figure, "m", chen.hub_mpich,
              network=chen.HUB, before=(chen.SWITCH,))

    class Net(Points):
        def __init__(self, name: str, ms) -> None:
            super().__init__(ms)
            self.name, self.asked = name, 0

        def point(self, algorithm, size, hosts, frames=0, **kw):
            self.asked += 1
            return super().point(algorithm, size, hosts, frames, **kw)

        def describe(self) -> dict:
            return {"topology": self.name, "rate": "30 Mbit/s", "link_rate": {}}

    up: list[Net] = []

    @contextmanager
    def running(name, caps, progress):
        up.append(Net(name, hub_ms if name == chen.HUB else switch_ms))
        yield up[-1]

    monkeypatch.setattr(networks, "running", running)
    doc = run(tmp_path, quick=True, only=["chen.hub-mpich"], progress=lambda _m: None)
    assert [n.name for n in up] == [chen.SWITCH, chen.HUB]
    assert [n.asked for n in up] == [32, 16]  # the switch's 16: measured, then read back
    assert set(doc["networks"]) == {chen.SWITCH, chen.HUB}
    entry = next(c for c in doc["claims"] if c["key"] == "chen.hub-mpich")
    assert entry["verdict"] == REPRODUCED and entry["network"] == chen.HUB
    assert (tmp_path / "plots" / "chen.hub-mpich.png").exists()


def test_chen_scaling_judges_how_the_cost_of_a_process_grows() -> None:
    """Chen's figure 12: one more process costs the linear multicast one more scout at any
    size, MPICH's tree one more copy: linear's growth over MPICH's at most 0.5."""
    def ms(a, s, h):
        return 1.0 + 0.3 * h + (0.1 * s / 1000 if a == "scout-linear" else 0.05 * h * s / 1000)

    out = measured("chen.scaling", TakesPoints(ms), quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 24
    assert out.values["per_process_ms"]["scout-linear 1000"] == pytest.approx(0.3)
    assert out.values["per_process_ms"]["mpich 8192"] == pytest.approx(0.3 + 0.05 * 8.192)
    same = measured("chen.scaling", TakesPoints(lambda a, s, h: 0.05 * h * s / 1000 + h),
                    quick=False)
    assert same.verdict == DIFFERS and same.kind == EMULATOR
    assert "scout-linear's growth / MPI_Bcast's [0.70, 1.47] lies outside at most 0.5" in same.why
    assert BY_KEY["chen.scaling"].in_quick is False
