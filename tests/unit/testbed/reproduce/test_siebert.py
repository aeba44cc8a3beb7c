"""testbed.reproduce.siebert on stand-in points: repair rounds from simulated multicast bitmaps
(collectives.ipmc.rounds.summary) against the model, the multicast's share by arrival order,
flat 64 KiB, the crossovers (as the thesis states them; undecided where the jobs do not
settle one), skew and frames."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from collectives.ipmc.rounds import summary
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
)

from .stand_ins import Points, flat_mcast, measured


class LossyNet:
    """Stands in for a running network: a two-stage point's repair rounds come from 60
    broadcasts of 46 fragments on `hosts` ranks whose multicast fails with the point's loss,
    independently per receiver, or (`together`) for every receiver at once; `first` gives
    the multicast's share by arrival order instead (late side, + " waits" where the root
    waits, + " 65536" for a 64 KiB point where given -> share), each receiver's full buffer
    dropping the rest of 100 datagrams a broadcast."""

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
        iters, rcvbuf = kw.get("iters", 6), None
        if self.first is not None and rr is not None:
            key = kw["late"][0] + (" waits" if kw.get("options", {}).get("root_wait_us")
                                   else "")
            share = self.first.get(f"{key} {size}", self.first[key])
            rr = {**rr, "multicast_first": share}
            rcvbuf = {"got": 212992, "drops": round((1 - share) * 100) * iters * (hosts - 1)}
        return {"label": f"{algorithm} take {take}", "ms": 100.0, "verified": True,
                "error": None, "flags": ["hosts waited"] if self.flag else [],
                "repair_rounds": rr, "final_phase_ms": 50.0, "rcvbuf": rcvbuf,
                "iterations": iters}


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


def test_arrival_order_judges_the_multicasts_share_by_who_comes_first_and_the_wait():
    lossy = {"root": 0.99, "receivers": 0.13, "receivers waits": 0.98, "receivers 65536": 1.0}
    net = LossyNet(first=lossy)
    lost = run("siebert.arrival-order", net)
    assert lost.verdict == REPRODUCED, lost.why
    assert "one side 1678 ms late" in lost.testbed  # 2 x 1 MiB at 10 Mbit/s
    assert "root last 99%, root first 13%, root first, root waits 98%" in lost.testbed
    assert "dropped a broadcast root last 1, root first 87" in lost.testbed
    assert "64 KiB root first (fits the buffer): 100% by multicast, 0 dropped" in lost.testbed
    assert lost.values["rcvbuf_got"] == 212992
    assert len(lost.points) == 9 and len(lost.context) == 1  # 3 conditions x 3 jobs
    waits = [a for a in net.asked if a.get("options")]
    assert len(waits) == 3 and {a["options"]["root_wait_us"] for a in waits} == {1678e3}
    assert {(a["iters"], a["warmup"]) for a in net.asked} == {(1, 0)}
    assert len(run("siebert.arrival-order", LossyNet(first=lossy), quick=True).points) == 6
    kept = run("siebert.arrival-order", LossyNet(first={"root": 1.0, "receivers": 1.0,
                                                         "receivers waits": 1.0}))
    assert kept.verdict == DIFFERS and kept.kind == EMULATOR and "receive buffer" in kept.why
    assert "root first / root last [1.00, 1.00] lies outside" in kept.why
    late = run("siebert.arrival-order", LossyNet(first={**lossy, "receivers waits": 0.3}))
    assert late.verdict == DIFFERS
    assert "root first with the wait / root last [0.30, 0.30] lies outside" in late.why


def test_flat_64k_reproduced_differs_and_no_result() -> None:
    out = measured("siebert.flat-64k", Points(flat_mcast))
    assert out.verdict == REPRODUCED and out.values["growth"]["two-stage"] == 1.0
    grows = measured("siebert.flat-64k", Points(lambda a, s, h: 10.0 * h))
    assert grows.verdict == DIFFERS and "two-stage T(16)/T(2) [8.00, 8.00] lies outside" in \
        grows.why and grows.kind == EMULATOR
    # --quick: 2 jobs at 2 and 16 hosts only (the full run draws 4 and 8 hosts too)
    assert len(out.points) == 8 and len(out.context) == 4
    flagged = measured("siebert.flat-64k", Points(flat_mcast, flag={("two-stage", 16)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    # nack is shown, not judged: its flag alone does not take the verdict away
    assert measured("siebert.flat-64k", Points(flat_mcast, flag={("nack", 16)})).verdict \
        == REPRODUCED


def test_crossovers() -> None:
    assert measured("siebert.crossover-4k", Points(flat_mcast)).testbed == \
        "multicast beats MPI_Bcast and binomial from 4 hosts on (median of 2 jobs; 95 % " \
        "interval over them: 4 hosts)"
    late = measured("siebert.crossover-4k",
                    Points(lambda a, s, h: 100.0 if a == "two-stage" else 10.0 * h))
    assert late.verdict == DIFFERS and "from 16 hosts on" in late.testbed


class SkewPoints(Points):
    """Return times per algorithm and job: `returns(algorithm, take)`."""

    def __init__(self, ms, returns):
        super().__init__(ms)
        self.returns = returns

    def point(self, algorithm, size, hosts, frames=0, **kw):
        p = super().point(algorithm, size, hosts, frames, **kw)
        return p | {"rank_return_s": self.returns(algorithm, kw.get("take", 0))}


def test_skew_on_9_and_13_hosts_over_jobs(monkeypatch) -> None:
    from testbed.reproduce import siebert

    # sends one after the other, MPICH's order: the root of 9 sends to 8 first, which
    # returns at once; rank 1 gets the message fourth (4.0); on 13 rank 12 returns at 2,
    # the rest at 4; 8 and 16 return every receiver together
    assert [siebert.model_skew("binomial", h) for h in (8, 9, 13, 16)] == [1.0, 4.0, 2.0, 1.0]
    assert siebert.model_skew("sequential", 16) == 15.0
    back = {"two-stage": [0.0, 10.0, 11.0], "binomial": [0.0, 5.0, 20.0],
            "mpich": [0.0, 5.0, 9.0]}
    out = measured("siebert.skew", SkewPoints(flat_mcast, lambda a, t: back[a]),
                   quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["model_skew"] == {"binomial": {9: 4.0, 13: 2.0}}
    # binomial judged where the model is above the margin (9 hosts); on 13 the model's 2.0
    # is the margin itself: shown with its interval, not judged
    assert sorted(out.values["intervals"]) == [
        "binomial skew, 9 hosts", "two-stage skew, 13 hosts", "two-stage skew, 9 hosts"]
    assert "binomial skew, 13 hosts, shown (the model's 2.00 is the margin): 4.00 [4.00, " \
        "4.00]" in out.testbed
    assert len(out.points) == 12 and len(out.context) == 2  # 3 jobs a point; MPI_Bcast once
    assert "9 hosts: two-stage 1.10, binomial 4.00, MPI_Bcast 1.80 (the model: binomial " \
        "4.00)" in out.testbed
    # judged on return times: two-stage's receivers returning 2 x apart differ
    late = measured("siebert.skew", SkewPoints(
        flat_mcast, lambda a, t: [0, 5.0, 10.0] if a == "two-stage" else back[a]))
    assert late.verdict == DIFFERS and late.kind == EMULATOR
    assert len(late.points) == 4 and "13 hosts" not in late.testbed  # --quick: 9 hosts only
    assert "two-stage skew, 9 hosts [2.00, 2.00] lies outside at most 1.3" in late.why
    # jobs that straddle the margin settle nothing
    spread = (1.8, 2.2, 2.6)
    torn = measured("siebert.skew", SkewPoints(
        flat_mcast, lambda a, t: [0, 1.0, spread[t]] if a == "binomial" else back[a]),
        quick=False)
    assert torn.verdict == UNDECIDED and "binomial skew, 9 hosts" in torn.why
    # a receiver without its return time: no result
    none = measured("siebert.skew", SkewPoints(
        flat_mcast, lambda a, t: None if a == "binomial" else back[a]))
    assert none.verdict == NO_RESULT and "no return times" in none.why
    # where the model returns a binomial tree's receivers at most 2 x apart there is nothing
    # to judge
    monkeypatch.setattr(siebert, "model_skew", lambda a, h: 2.0)
    na = measured("siebert.skew", SkewPoints(flat_mcast, lambda a, t: back[a]))
    assert na.verdict == NOT_APPLICABLE and na.kind == TRANSFER and "within 2.00x" in na.why


def test_siebert_as_the_thesis_states_it_64_kib_from_4_nodes_and_the_chain_at_1_mib() -> None:
    """At 64 KiB two-stage must beat the libraries' fragmenting broadcasts (the fragmented
    chain, scatter-allgather) from 4 hosts on; at 1 MiB the chain must beat two-stage."""
    def libs(alg, size, hosts):  # two-stage flat, the libraries growing with the hosts
        return 30.0 if alg == "two-stage" else 9.0 * hosts

    out = measured("siebert.beats-libraries-64k", Points(libs))
    assert out.verdict == REPRODUCED, out.why
    assert out.testbed.startswith("multicast beats fragmented chain and scatter-allgather "
                                  "from 4 hosts on")
    assert {p["label"].split()[0] for p in out.points} == {"two-stage", "fragmented-chain",
                                                           "scatter-allgather"}
    late = measured("siebert.beats-libraries-64k", Points(lambda a, s, h: 30.0 if a ==
                                                          "two-stage" else 4.0 * h))
    assert late.verdict == DIFFERS and "from 8 hosts on" in late.testbed

    def paper(alg, size, hosts):
        return {"two-stage": 2.0, "fragmented-chain": 1.0, "binomial": 3.0}[alg]

    chain = measured("siebert.chain-1m", Points(paper), quick=False)
    assert chain.verdict == REPRODUCED and len(chain.points) == 6 and len(chain.context) == 1
    assert chain.values["intervals"]["two-stage / fragmented chain"]["interval"] == [2.0, 2.0]
    twice = measured("siebert.chain-1m", Points(
        lambda a, s, h: {"two-stage": 1.0, "fragmented-chain": 1.5, "binomial": 3.0}[a]),
        quick=False)
    assert twice.verdict == DIFFERS and "not slower than the fragmented chain" in twice.why
    assert "two-stage / fragmented chain [0.67, 0.67] lies outside at least 1" in twice.why
    # binomial is shown beside, not judged: its flag leaves the verdict alone
    assert measured("siebert.chain-1m", Points(paper, flag={("binomial", 8)}),
                    quick=False).verdict == REPRODUCED
    assert measured("siebert.chain-1m", Points(paper, flag={("two-stage", 8)}),
                    quick=False).verdict == NO_RESULT


def test_a_crossover_the_jobs_do_not_settle_is_undecided() -> None:
    """One job has two-stage win from 8 hosts on, the other from 16: the interval over the
    jobs, 8-16 hosts, straddles the limit of 9: undecided."""
    class Jobs(Points):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            p = super().point(algorithm, size, hosts, frames)
            win = {0: (8, 16), 1: (16,)}[kw["take"]]
            ms = 1.0 if algorithm == "two-stage" and hosts in win else 2.0 + (
                algorithm == "two-stage")
            return p | {"ms": ms}

    out = measured("siebert.crossover-4k", Jobs(lambda a, s, h: 1.0))
    assert out.verdict == UNDECIDED, out.why
    assert "8-16 hosts" in out.testbed and "not surely from 9 hosts" in out.why
