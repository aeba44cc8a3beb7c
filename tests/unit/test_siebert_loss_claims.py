"""Siebert2006's repair rounds and arrival order (testbed.reproduce.siebert), judged on
stand-in points whose repair rounds come from simulated multicast bitmaps
(collectives.ipmc.rounds.summary)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from collectives.ipmc.rounds import summary
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, NO_RESULT, REPRODUCED, TRANSFER


class LossyNet:
    """Stands in for a running network: a two-stage point's repair rounds come from 60
    broadcasts of 46 fragments on `hosts` ranks whose multicast fails with the point's loss,
    independently per receiver, or (`together`) for every receiver at once; `first` gives
    the multicast's share by arrival order instead (late side -> share)."""

    def __init__(self, together: bool = False, first: dict[str, float] | None = None,
                 flag: bool = False):
        self.together, self.first, self.flag = together, first, flag
        self.rate = SimpleNamespace(mbit=10.0)
        self.asked: list[dict[str, Any]] = []

    def point(self, algorithm: str, size: int, hosts: int, take: int = 0,
              **kw: Any) -> dict[str, Any]:
        self.asked.append({"algorithm": algorithm, "take": take, **kw})
        rng, q = random.Random(take), kw.get("loss", 0.0)
        draws = []
        for _ in range(60):
            shared = [rng.random() >= q for _ in range(46)]
            draws.append([bytes([1] * 46)] + [
                bytes(shared if self.together else [rng.random() >= q for _ in range(46)])
                for _ in range(hosts - 1)])
        rr = summary(draws, root=0) if algorithm == "two-stage" else None
        if self.first is not None and rr is not None:
            rr = {**rr, "multicast_first": self.first[kw["late"][0]]}
        return {"label": f"{algorithm} take {take}", "ms": 100.0, "verified": True,
                "error": None, "flags": ["hosts waited"] if self.flag else [],
                "repair_rounds": rr, "final_phase_ms": 50.0}


def run(key: str, net: LossyNet, quick: bool = False):
    return BY_KEY[key].run(Context(quick, lambda _m: None, net))


def test_repair_rounds_follow_the_model_and_stay_below_one_at_half_loss():
    net = LossyNet()
    out = run("siebert.repair-rounds", net)
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 9  # 3 losses, 3 jobs
    assert {a["loss_scope"] for a in net.asked} == {"multicast-in"}
    assert set(out.values["intervals"]) == {"E(X) at 50% lost", "E(X) / model at 10%",
                                            "E(X) / model at 30%", "E(X) / model at 50%"}
    assert "50% lost 0.8" in out.testbed and "(model 0.86" in out.testbed
    quick = run("siebert.repair-rounds", LossyNet(), quick=True)
    assert quick.verdict == REPRODUCED and len(quick.points) == 2


def test_repair_rounds_of_loss_shared_by_every_receiver_differ():
    # every receiver misses the same fragments: a rank d hops on waits d rounds
    out = run("siebert.repair-rounds", LossyNet(together=True))
    assert out.verdict == DIFFERS and out.kind == TRANSFER
    assert "E(X) at 50% lost" in out.why and "geometric" in out.why


def test_repair_rounds_need_results():
    assert run("siebert.repair-rounds", LossyNet(flag=True)).verdict == NO_RESULT


def test_arrival_order_judges_the_multicasts_share_by_who_comes_first():
    lost = run("siebert.arrival-order", LossyNet(first={"root": 0.99, "receivers": 0.2}))
    assert lost.verdict == REPRODUCED, lost.why
    assert "one side 105 ms late" in lost.testbed  # 2 x 64 KiB at 10 Mbit/s
    assert len(lost.points) == 6 and len(lost.context) == 2
    kept = run("siebert.arrival-order", LossyNet(first={"root": 1.0, "receivers": 1.0}))
    assert kept.verdict == DIFFERS and kept.kind == TRANSFER and "socket" in kept.why
