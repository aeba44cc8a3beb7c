"""Chen2000's barriers (section 3.2) without a network: MPICH 1's three-phase barrier as a
plan (its message count is the paper's formula, and it is a barrier), the multicast
barrier's release option checked wherever it can be given, the frame bracket that
bcast_bench and barrier_bench share, and chen.barrier-messages judged on stand-in points."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import pytest

from collectives import pairwise
from collectives.algorithms import (
    BARRIERS,
    DEFAULT_RELEASE,
    RELEASES,
    check_release,
    names,
)
from collectives.executor import barrier_options, bcast_options, check, check_barrier
from collectives.ipmc.plans import mcast_barrier_messages, mpich_barrier_messages
from collectives.programs import marks
from collectives.programs.barrier_bench import parse_row
from testbed.emulation.frame_count import FrameCounter
from testbed.experiments.barrier import label, row_spec
from testbed.reproduce import chen
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, NO_RESULT, REPRODUCED, TRANSFER, UNDECIDED


# ---- MPICH 1's barrier as a plan --------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 34))
def test_the_plan_sends_the_papers_count_of_messages(n: int) -> None:
    assert len(pairwise.messages(n)) == mpich_barrier_messages(n)


def test_the_papers_worked_values_and_the_seven_rank_example() -> None:
    assert (mpich_barrier_messages(7), mpich_barrier_messages(9)) == (14, 26)
    assert (mcast_barrier_messages(7), mcast_barrier_messages(9)) == (7, 9)
    # 4, 5, 6 -> 0, 1, 2; pairwise among 0-3; then 0, 1, 2 -> 4, 5, 6
    assert pairwise.plan(7, 4) == [("sendrecv", 0)]
    assert pairwise.plan(7, 0) == [("recv", 4), ("sendrecv", 1), ("sendrecv", 2),
                                   ("send", 4)]
    assert pairwise.plan(7, 3) == [("sendrecv", 2), ("sendrecv", 1)]
    assert pairwise.plan(1, 0) == []
    with pytest.raises(ValueError, match="rank 4 is not in a communicator of 4"):
        pairwise.plan(4, 4)


def _run(n: int) -> list[set[int]]:
    """Play every rank's plan (a send never blocks: zero-byte messages are eager) until no
    rank can go on; each message carries the ranks its sender knows have entered. Returns
    what each rank knows when it leaves (AssertionError if some rank never leaves)."""
    steps = {r: deque(s for kind, peer in pairwise.plan(n, r)
                      for s in ([("send", peer), ("recv", peer)] if kind == "sendrecv"
                                else [(kind, peer)])) for r in range(n)}
    knows = [{r} for r in range(n)]
    wire: dict[tuple[int, int], deque[set[int]]] = {}
    moved = True
    while moved:
        moved = False
        for r in range(n):
            while steps[r]:
                kind, peer = steps[r][0]
                if kind == "send":
                    wire.setdefault((r, peer), deque()).append(set(knows[r]))
                elif wire.get((peer, r)):
                    knows[r] |= wire[(peer, r)].popleft()
                else:
                    break
                steps[r].popleft()
                moved = True
    assert not any(steps.values()), f"{n} ranks: stuck at {dict(steps)}"
    assert not any(wire.values()), "a message nobody received"
    return knows


@pytest.mark.parametrize("n", range(1, 34))
def test_no_rank_leaves_before_every_rank_entered(n: int) -> None:
    assert all(k == set(range(n)) for k in _run(n))


def test_pairwise_is_a_point_to_point_barrier_of_the_registry() -> None:
    a = BARRIERS["pairwise"]
    assert (a.family, a.paper, a.collective) == ("tree", "Chen2000", "barrier")
    assert "pairwise" in names(collective="barrier") and not a.release
    assert barrier_options("pairwise", {"timeout": 1.0, "release": "both"}) == {}


# ---- the multicast barrier's release ------------------------------------------------------
def test_release_both_by_default_and_only_the_multicast_barrier_takes_one() -> None:
    assert DEFAULT_RELEASE == "both" and set(RELEASES) == {"both", "multicast"}
    assert check_release("multicast") == "multicast"
    assert [n for n, a in BARRIERS.items() if a.release] == ["mcast"]
    assert barrier_options("mcast", {"release": "multicast", "timeout": 2.0,
                                     "fragment": 9}) == {"release": "multicast",
                                                         "timeout": 2.0}
    # one set of options serves both collectives in the drop-in: no broadcast sees it
    assert bcast_options({"release": "multicast", "timeout": 2.0}) == {"timeout": 2.0}


@pytest.mark.parametrize(("bcast", "barrier", "options", "needle"), [
    ("nack", "mcast", {"release": "unicast"},
     "release must be one of both, multicast, got 'unicast'"),
    ("binomial", "mcast", {"release": None}, "release must be one of"),
    ("nack", "tree", {"release": "multicast"},
     "tree: release is an option of the multicast barrier (mcast) only"),
    ("nack", "pairwise", {"release": "both"}, "pairwise: release is an option"),
])
def test_bad_releases_are_refused_before_any_message(bcast: str, barrier: str,
                                                     options: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        check(bcast, barrier, 4, options)
    with pytest.raises(ValueError, match="release"):
        check_barrier(barrier, options)


def test_good_releases_pass_with_any_broadcast() -> None:
    for release in RELEASES:
        check("nack", "mcast", 4, {"release": release, "timeout": 3.0})
        check("binomial", "mcast", 4, {"release": release})  # a tree takes no release


def test_barrier_bench_rows_name_a_barrier_and_its_options() -> None:
    assert parse_row("pairwise") == ("pairwise", {})
    assert parse_row("mcast:release=multicast:timeout=5") == (
        "mcast", {"release": "multicast", "timeout": 5})
    for bad, needle in (("mcast:release=lost", "release must be one of"),
                        ("tree:release=both", "tree takes no option release"),
                        ("pairwise:timeout=1", "pairwise takes no option timeout"),
                        ("mcast:release", "NAME=VALUE"), ("fast", "unknown barrier 'fast'")):
        with pytest.raises(ValueError, match=needle):
            parse_row(bad)
    spec = row_spec("mcast", {"release": "multicast", "timeout": 5.0})
    assert spec == "mcast:release=multicast:timeout=5.0"
    assert parse_row(spec) == ("mcast", {"release": "multicast", "timeout": 5.0})
    assert label("mcast", {"release": "multicast"}) == "mcast, release multicast"


# ---- the frame bracket both benchmarks share ---------------------------------------------
class _Comm:
    """One rank, the root: what count_frames asks of a communicator."""

    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's name)
        return 0

    def bcast(self, obj: Any, root: int = 0) -> Any:
        return obj


class _Emu:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir


def test_every_bracket_is_counted_less_the_one_empty_bracket(tmp_path: Path,
                                                             monkeypatch) -> None:
    """Each bracket's own frames (its barrier and the root's go, 2 here) are taken off
    with the empty bracket's: barrier0 puts 3 frames a call on the wire, barrier1 5."""
    wire = {"frames": 0}

    def put(n: int) -> None:
        wire["frames"] += n

    monkeypatch.setattr(marks, "idle_barrier", lambda comm: put(1))
    monkeypatch.setattr(marks, "root_says", lambda comm, root, value: put(1))
    counter = FrameCounter(_Emu(tmp_path))
    monkeypatch.setattr(counter, "_read", lambda: ((wire["frames"], 0, 0, 0), {}))
    with counter:  # its thread answers the marks
        ok = marks.count_frames(_Comm(), 0, str(counter.dir), [
            ("barrier0", 4, lambda: put(3)), ("barrier1", 2, lambda: put(5))])
    assert ok
    assert counter.per_iteration(4, "barrier0")["sent"] == 3.0
    assert counter.per_iteration(2, "barrier1")["sent"] == 5.0
    assert counter.per_iteration(2, "bcast") is None  # no such bracket


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
