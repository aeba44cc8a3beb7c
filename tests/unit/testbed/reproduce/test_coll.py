"""testbed.reproduce.coll on stand-in points around failed nodes: the range tree's bandwidth
against the software tree, the barrier claim not applicable but shown, and binomial's share
around failed nodes judged over jobs (Coll2003's figure 9)."""

from __future__ import annotations

from testbed.reproduce.jobs import QUICK_TAKES, TAKES
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
)

from .stand_ins import Points, TakesPoints, measured


# ---- Coll2003's measured claims: range tree against the software tree around failed nodes
class CollPoints(Points):
    """Points on host lists (failed nodes left out): `ms` and `flag` see the host count
    (16, 15, 14, 12 for 0, 1, 2, 4 failed); `emu.fail_nodes` records the failed marks."""

    def __init__(self, ms, flag=()):
        super().__init__(ms, flag)
        self.failed: set[int] = set()
        self.emu = self

    def fail_nodes(self, nodes, failed=True):
        self.failed = self.failed | set(nodes) if failed else self.failed - set(nodes)
        return sorted(self.failed)

    def point(self, algorithm, size, hosts, frames=0, **kw):
        assert "h0" in hosts and len(hosts) == 16 - len(self.failed)
        return held(super().point(algorithm, size, len(hosts), frames, **kw))


def held(p: dict) -> dict:
    """The point with its ranks' holding times (rank_done_s): the root at once, the last
    receiver at its `ms` (the claims judge the time to the last holder)."""
    return p | {"rank_done_s": None if p["ms"] is None else [0.0, p["ms"] / 1e3, None]}


def coll_paper(alg: str, size: int, hosts: int) -> float:
    """The range tree's 2 steps with faults halve its bandwidth; binomial 5 x slower."""
    tree = size / 1000 * (1 if hosts == 16 else 2)
    return tree if alg == "range-tree" else 5 * size / 1000


def test_coll_bandwidth_reproduced_differs_and_no_result() -> None:
    net = CollPoints(coll_paper)
    out = measured("coll.bcast-bandwidth", net, quick=False)
    assert out.verdict == REPRODUCED and not net.failed  # every node restored after
    assert out.values["steps"] == {0: 1, 1: 2, 2: 2, 4: 2}
    assert out.values["speedup"]["4 65536"] == 2.5
    assert out.values["faulty_share"]["1 65536"] == 0.5
    # judged: range tree and binomial at 64 KiB around failed nodes, and the range tree
    # without (its share); shown: binomial without, MPI_Bcast
    assert {p["label"].rsplit(" on ", 1)[0] for p in out.points} == {
        "range-tree 65536 B", "binomial 65536 B"}
    # TAKES jobs of each judged point (QUICK_TAKES with --quick); binomial without faults
    # too (shown)
    assert len(out.points) == 7 * TAKES and len(out.context) == TAKES + 4
    iv = out.values["intervals"]
    assert iv["range tree / binomial, 4 failed, 64 KiB"]["interval"] == [2.5, 2.5]
    quick = measured("coll.bcast-bandwidth", CollPoints(coll_paper))
    assert quick.verdict == REPRODUCED and len(quick.points) == 3 * QUICK_TAKES
    # the no-fault range multicast flagged: the share is not judged, the headline still is
    edge = measured("coll.bcast-bandwidth", CollPoints(coll_paper, flag={("range-tree", 16)}))
    assert edge.verdict == REPRODUCED and "its share is not judged" in edge.testbed
    assert len(edge.points) == 2 * QUICK_TAKES and edge.values["faulty_share"] == {}
    slow = measured("coll.bcast-bandwidth", CollPoints(
        lambda a, s, h: coll_paper(a, s, h) * (3 if a == "range-tree" and h == 12 else 1)),
        quick=False)
    assert slow.verdict == DIFFERS
    assert "range tree / binomial, 4 failed, 64 KiB [0.83, 0.83] lies outside at least " \
        "1.6" in slow.why
    assert "share of the no-fault bandwidth, 4 failed, 64 KiB [0.17, 0.17]" in slow.why
    same = measured("coll.bcast-bandwidth", CollPoints(lambda a, s, h: s / 1000 * (
        5 if a == "binomial" else 1)))
    assert same.verdict == DIFFERS and "no-fault bandwidth, 2 failed, 64 KiB [1.00, " in \
        same.why
    flagged = measured("coll.bcast-bandwidth", CollPoints(coll_paper,
                                                          flag={("range-tree", 14)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    # MPI_Bcast is shown, not judged: its flag alone does not take the verdict away
    assert measured("coll.bcast-bandwidth", CollPoints(coll_paper, flag={("mpich", 14)})
                    ).verdict == REPRODUCED


def test_coll_bandwidth_at_its_margin_says_what_keeps_it_there() -> None:
    """Binomial's 4 rounds over the tree's 2 steps cap the ratio at 2 where each costs a
    wire time; a relayed tree at 1.6 (the margin: 4 rounds over 2.5 steps)
    in the median, its jobs on either side: undecided, and the claim says why."""

    class Jobs(CollPoints):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            p = super().point(algorithm, size, hosts, frames, **kw)
            if algorithm == "range-tree" and len(hosts) < 15:
                p["ms"] *= (1.0, 0.97, 1.03)[kw.get("take", 0) % 3]
            return held(p)

    out = measured("coll.bcast-bandwidth", Jobs(lambda a, s, h: s / 1000 * (
        4 if a == "binomial" else 1 if h == 16 else 2 if h == 15 else 2.5)))
    assert out.verdict == UNDECIDED, out.why
    assert "straddles at least 1.6" in out.why
    assert "binomial's 4 rounds over the tree's 2 steps cap the ratio at 2 where" in out.why
    assert "with 2 failed a node relays the second step" in out.why  # --quick: 0 and 2


def test_coll_bandwidth_pairs_range_tree_and_binomial_of_one_job() -> None:
    """Range tree and binomial of one take run in one job: what slows a job slows both, and
    their ratio is judged job by job (a job 25 % slower than another leaves it at 1.8)."""
    class Held(TakesPoints):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            return held(super().point(algorithm, size, hosts, frames, **kw))

    net = Held(lambda a, s, h: s / 1000 * (3.6 if a == "binomial" else 1 if h == 16 else 2),
               (0.8, 1.0, 1.25))
    net.emu = CollPoints(coll_paper)  # set_failed marks nodes on net.emu
    out = measured("coll.bcast-bandwidth", net, quick=False)
    iv = out.values["intervals"]
    assert iv["range tree / binomial, 4 failed, 64 KiB"]["interval"] == [1.8, 1.8]
    # the share compares jobs of different failed counts: not paired, it spreads
    assert iv["share of the no-fault bandwidth, 4 failed, 64 KiB"]["interval"] != [0.5, 0.5]
    # coll.tree-faults' 16 KiB range trees ride in the same jobs, 16 broadcasts each
    asks = [a for batch, _ in net.batches for a in batch]
    tree16 = [a for a in asks if a.size == 16384]
    assert [a.count for a in tree16] == [15, 14, 12] and {a.iters for a in tree16} == {16}
    assert {a.algorithm for a in tree16} == {"range-tree"}


def test_the_barriers_compared_are_the_registrys() -> None:
    """Coll2003's comparison (MPI's own, the software tree, the range tree) and the bench's
    multicast barriers are the registry's barriers of their families, each named once:
    MPICH 1's pairwise (an exchange) is no software tree."""
    from testbed.bench import ipmc, range_trees
    from testbed.reproduce import coll

    assert coll.BARRIERS == range_trees.BARRIERS == ("mpich", "tree", "range-tree")
    assert (range_trees.SOFTWARE_TREE, range_trees.RANGE_TREE) == ("tree", "range-tree")
    assert range_trees.MULTICAST == ipmc.MCAST_BARRIER == "mcast"
    assert ipmc.BARRIERS == ("mpich", "mcast")
    assert list(coll.BARRIER_NAMES.values()) == ["MPI_Barrier", "tree", "range tree"]


def test_coll_barrier_is_not_applicable_but_shown(monkeypatch) -> None:
    from testbed.reproduce import coll

    def fake(net, failed, hosts, iters):
        assert len(hosts) == 16 - len(failed) and net.failed == set(failed)
        return [{"label": f"{a} barrier, failed {failed}", "algorithm": a, "failed": failed,
                 "ms": {"mpich": 9.0, "tree": 4.0, "range-tree": 5.0}[a],
                 "flags": ["hosts waited"] if a == "tree" and failed else [],
                 "verified": True, "error": None} for a in coll.BARRIERS]

    monkeypatch.setattr(coll, "barrier_points", fake)
    net = CollPoints(coll_paper)
    out = measured("coll.barrier", net, quick=False)
    assert out.verdict == NOT_APPLICABLE and "network hops" in out.why and not net.failed
    assert len(out.points) == 12 and out.values["range_tree_over_tree"][4] == 1.25
    assert "3 point(s) flagged or failed" in out.testbed
    assert out.values["plot"]["series"]["range tree"] == [(0, 5000.0), (1, 5000.0),
                                                          (2, 5000.0), (4, 5000.0)]


def test_software_faults_judges_binomials_share_over_jobs(monkeypatch) -> None:
    """Coll's figure 9: binomial around failed nodes keeps its no-fault bandwidth (0.9-1.15),
    judged over 3 jobs at every failed count."""
    from testbed.reproduce import coll

    monkeypatch.setattr(coll, "set_failed", lambda net, failed: [f"h{n}" for n in range(16)
                                                                   if n not in failed])
    flat = measured("coll.software-faults", TakesPoints(lambda a, s, h: 100.0), quick=False)
    assert flat.verdict == REPRODUCED, flat.why
    assert len(flat.points) == 4 * TAKES and set(flat.values["intervals"]) == {
        "1 failed / none", "2 failed / none", "4 failed / none"}
    # with fewer hosts, a tree whose time follows the host count: 4 failed is 1.33x faster
    fewer = measured("coll.software-faults", TakesPoints(lambda a, s, h: 10.0 * h), quick=False)
    assert fewer.verdict == DIFFERS and fewer.kind == TRANSFER
    assert "4 failed / none [1.31, 1.36] lies outside" in fewer.why and "at most 1.15" in fewer.why
    wide = measured("coll.software-faults",
                    TakesPoints(lambda a, s, h: 100.0 if h == 16 else 95.0, (0.8, 1.0, 1.25)))
    assert wide.verdict == UNDECIDED


def test_tree_faults_judges_the_range_trees_bandwidth_over_failed_counts() -> None:
    """Coll's figure 10: the range tree's bandwidth with 2 and 4 failed nodes over its own
    with 1, judged at 64 KiB (shown at 16 KiB) within 0.8-1.33 (its time nearer a tree of 2
    steps than of 3 or 1) over the jobs, and 2 steps at every count."""
    net = CollPoints(lambda a, s, h: s / 1000)  # the same time whatever fails
    out = measured("coll.tree-faults", net, quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert not net.failed  # every node restored after
    assert out.values["steps"] == {1: 2, 2: 2, 4: 2}
    assert out.values["relayed"] == {1: 0, 2: 1, 4: 2}  # the root sends both steps at 1
    assert "shown, 16 KiB 2 failed / 1 1.00, 16 KiB 4 failed / 1 1.00" in out.testbed
    assert set(out.values["intervals"]) == {"64 KiB, 2 failed / 1", "64 KiB, 4 failed / 1"}
    assert len(out.points) == 3 * TAKES and len(out.context) == 3 * TAKES
    assert {p["label"].rsplit(" on ", 1)[0] for p in out.points} == {"range-tree 65536 B"}
    assert {p["label"].rsplit(" on ", 1)[0] for p in out.context} == {"range-tree 16384 B"}
    quick = measured("coll.tree-faults", CollPoints(lambda a, s, h: s / 1000))
    assert quick.verdict == REPRODUCED and set(quick.values["intervals"]) == {
        "64 KiB, 2 failed / 1"}
    # as measured on 2026-12-06: a relayed step's fixed latency costs 6-8 % at 64 KiB and
    # 11-16 % at 16 KiB (shown): nearer 2 steps than 3
    relay = {(15, 65536): 117.0, (14, 65536): 126.0, (12, 65536): 128.0,
             (15, 16384): 33.0, (14, 16384): 39.0, (12, 16384): 38.0}
    measured_day = measured("coll.tree-faults", CollPoints(lambda a, s, h: relay[(h, s)]),
                            quick=False)
    assert measured_day.verdict == REPRODUCED, measured_day.why
    assert "16 KiB 2 failed / 1 0.85" in measured_day.testbed
    # one serialization per switch: every failed node slowed the tree (1.04, 0.90, 0.68
    # MB/s at 64 KiB around 1, 2 and 4 failed, issue 50): a third step's worth
    lane = measured("coll.tree-faults", CollPoints(
        lambda a, s, h: s / {15: 1.04, 14: 0.90, 12: 0.68}[h] / 1000), quick=False)
    assert lane.verdict == DIFFERS and lane.kind == EMULATOR
    assert "64 KiB, 4 failed / 1 [0.65, 0.65] lies outside at least 0.8" in lane.why
    assert "around 2 and 4 a node relays" in lane.why
    assert measured("coll.tree-faults", CollPoints(lambda a, s, h: s / 1000,
                                                   flag={("range-tree", 14)})
                    ).verdict == NO_RESULT
    # judged on the time to the last rank's holding the message, not the last return: a
    # relay's software collecting its receivers' acknowledgements (5-10 ms, 2026-12-06)
    acks = CollPoints(lambda a, s, h: s / 1000)
    acks.point = lambda a, s, hosts, frames=0, **kw: (lambda p: p | {"ms": p["ms"] * (
        1.3 if len(hosts) < 15 else 1.0)})(CollPoints.point(acks, a, s, hosts, frames, **kw))
    got = measured("coll.tree-faults", acks, quick=False)
    assert got.verdict == REPRODUCED and got.values["intervals"]["64 KiB, 4 failed / 1"][
        "interval"] == [1.0, 1.0]
    # the 16 KiB points are shown: a flag there takes no verdict away
    only16 = CollPoints(lambda a, s, h: s / 1000, flag={("range-tree", 14)})
    only16.point = lambda a, s, hosts, frames=0, **kw: CollPoints.point(only16, a, s, hosts,
                                                                        frames, **kw) | (
        {"flags": []} if s == 65536 else {})
    assert measured("coll.tree-faults", only16).verdict == REPRODUCED


def test_tree_asks_are_the_range_tree_at_tree_sizes_where_that_claim_takes_a_count() -> None:
    from testbed.reproduce.coll import TREE_SIZES, tree_asks

    hosts = [f"h{n}" for n in range(16) if n != 3]
    asks = tree_asks(1, hosts)
    assert [(a.algorithm, a.size, a.iters) for a in asks] == [
        ("range-tree", 16384, 16), ("range-tree", 65536, 4)]
    assert [a.size for a in asks] == list(TREE_SIZES)
    assert tree_asks(0, [f"h{n}" for n in range(16)]) == []  # no-fault: not that claim's
