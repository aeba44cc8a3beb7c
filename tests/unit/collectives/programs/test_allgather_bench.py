"""collectives.programs.allgather_bench: every rank's block is its own (a block landing at
another rank's offset fails the check), argv() is what its parser reads back, a run's time
is from the last rank's call to the last rank's return, and nothing runs between a rank's
return and every rank's (COMM_SELF, real mpi4py)."""

from __future__ import annotations

from typing import Any

import pytest

from collectives.call import AllgatherCall
from collectives.programs import allgather_bench as ab
from collectives.programs.allgather_bench import argv, parser, pattern
from collectives.programs.start_gun import StartGun

from .recording import Recording


def test_blocks_differ_from_rank_to_rank():
    blocks = [pattern(r, 64) for r in range(32)]
    assert all(len(b) == 64 for b in blocks) and pattern(3, 0) == b""
    assert len(set(blocks)) == 32


def test_argv_reads_back():
    call = AllgatherCall("mcast-concurrent", {"timeout": 5.0})
    args = argv(call=call.to_json(), sizes=[0, 1024], iters=3, mark_dir="/tmp/m",
                frame_iters=2)
    ns = parser().parse_args(args[2:])
    assert (ns.call, ns.sizes, ns.iters, ns.mark_dir, ns.frame_iters) == \
        (call, "0,1024", 3, "/tmp/m", 2)
    assert ns.call.record.family == "multicast"  # looked up as the line was read
    assert parser().parse_args([]).call == AllgatherCall("ring")


def test_a_runs_time_is_from_its_start_to_the_last_return():
    """From the start (the gun's instant, the same on every rank) to the last return; how
    long after it the last rank called kept apart. Without a gun a rank's start is its
    call: the run starts at the first rank's."""
    every = [([(10.0, 10.0, 10.5), (20.0, 20.1, 20.2)], True),
             ([(10.0, 10.1, 10.9), (20.0, 20.0, 20.1)], True),
             ([(10.0, 10.2, 10.4), (20.0, 20.3, 20.4)], False)]
    assert ab.samples(every) == pytest.approx([0.9, 0.4])
    assert ab.spreads(every) == pytest.approx([0.2, 0.3])
    first = [([(10.1, 10.1, 10.5)], True), ([(10.3, 10.3, 10.6)], True)]
    assert ab.samples(first) == pytest.approx([0.5]) and ab.spreads(first) == \
        pytest.approx([0.2])
    assert ab.samples([([], True), ([], True)]) == [] == ab.spreads([([], True)])


# the collective calls the tests below log
LOGGED = ("gather", "allgather", "Ibarrier", "Barrier", "bcast")


def test_without_a_gun_every_run_starts_and_ends_asleep_with_nothing_between(monkeypatch):
    """Without a start gun each Allgather comes right after a sleeping barrier (every rank
    enters alike) and is followed by another before anything else: a rank back early that
    checked its blocks or sent its times on (MPICH's gather polls) took the cores of the
    ranks still working, 8 ranks on 2 cores. The times go to rank 0 once, after the last
    run; a wrong block in any run makes the point unverified."""
    from mpi4py import MPI

    log: list[str] = []
    real = ab.allgather

    def logged(mine: bytes, recv: bytearray, comm: Any, algorithm: str, **kw: Any) -> None:
        log.append("ALLGATHER")
        real(mine, recv, comm, algorithm, **kw)
        if log.count("ALLGATHER") == 3:
            recv[0] ^= 1  # the third run (the second measured) delivers a wrong byte

    monkeypatch.setattr(ab, "allgather", logged)
    out = ab.measure(Recording(MPI.COMM_SELF, log, LOGGED), "ring", 16, iters=3, warmup=1,
                     options={})
    assert len(out["samples_s"]) == 3 and all(s >= 0 for s in out["samples_s"])
    assert out["entry_spread_s"] == [0.0, 0.0, 0.0]  # one rank: its call is the start
    assert out["start"] == "first call"
    assert out["verified"] is False
    runs = [i for i, name in enumerate(log) if name == "ALLGATHER"]
    assert len(runs) == 4
    assert all(log[i - 1] == "Ibarrier" and log[i + 1] == "Ibarrier" for i in runs)
    assert "gather" not in log[:runs[-1] + 2]


def test_with_a_gun_every_run_is_timed_from_its_instant(monkeypatch):
    """A gun's run: started at its instant (slept until), the rank's call after it, the
    gun's join before the blocks are checked; the point verified where every block
    arrived."""
    from mpi4py import MPI

    gun = StartGun.open(MPI.COMM_SELF)
    assert gun is not None
    log: list[str] = []
    monkeypatch.setattr(gun, "join", lambda: log.append("join"))
    real = ab.allgather

    def logged(*args: Any, **kw: Any) -> None:
        log.append("ALLGATHER")
        real(*args, **kw)

    monkeypatch.setattr(ab, "allgather", logged)
    out = ab.measure(MPI.COMM_SELF, "ring", 16, iters=2, warmup=1, options={}, gun=gun)
    assert out["verified"] is True and out["start"] == "start gun"
    assert len(out["samples_s"]) == 2 and log == ["ALLGATHER", "join"] * 3
    assert all(0 <= c <= s for c, s in zip(out["entry_spread_s"], out["samples_s"],
                                           strict=True))
    gun.close()
