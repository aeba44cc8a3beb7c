"""collectives.programs.start_gun with three ranks as threads over socket pairs: every rank
gets the same instant, LEAD_S after the last one was ready; nobody leaves a join before the
last has come; a rank that cannot reach rank 0's socket makes open() give None (the bench
then falls back to MPI barriers); COMM_SELF's gun (real mpi4py) leaves no socket behind."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from collectives.programs import start_gun
from collectives.programs.start_gun import LEAD_S, StartGun, sleep_until


def _guns(n: int) -> list[StartGun]:
    pairs = [socket.socketpair() for _ in range(n - 1)]
    return [StartGun(0, [a for a, _ in pairs])] + [StartGun(r + 1, [b])
                                                   for r, (_, b) in enumerate(pairs)]


def _each(guns: list[StartGun], act: Any) -> list[Any]:
    out: list[Any] = [None] * len(guns)

    def run(r: int) -> None:
        out[r] = act(r, guns[r])

    threads = [threading.Thread(target=run, args=(r,)) for r in range(len(guns))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return out


def test_every_rank_goes_at_one_instant_after_the_last_is_ready() -> None:
    guns = _guns(3)
    ready: list[float] = [0.0] * 3

    def start(r: int, gun: StartGun) -> float:
        time.sleep(0.02 * r)  # rank 2 ready last, 40 ms after rank 0
        ready[r] = time.perf_counter()
        return gun.start()

    at = _each(guns, start)
    assert at[0] == at[1] == at[2]
    assert max(ready) + LEAD_S <= at[0] < max(ready) + LEAD_S + 0.05


def test_nobody_leaves_a_join_before_the_last_has_come() -> None:
    guns = _guns(3)

    def join(r: int, gun: StartGun) -> tuple[float, float]:
        time.sleep(0.03 * (r == 1))  # rank 1 comes back 30 ms late
        came = time.perf_counter()
        gun.join()
        return came, time.perf_counter()

    times = _each(guns, join)
    last = max(c for c, _ in times)
    assert all(left >= last for _, left in times)


def test_a_rank_gone_is_said_not_waited_for() -> None:
    root, other = _guns(2)
    other.close()
    with pytest.raises(ConnectionError, match="a rank went away"):
        root.join()


class _Apart:
    """A rank 1 of 2 that cannot reach rank 0's socket (another machine)."""

    def Get_rank(self) -> int:
        return 1

    def Get_size(self) -> int:
        return 2

    def bcast(self, _value: Any, root: int) -> str:
        return "/nonexistent/mcastlab-gun/gun"

    def allreduce(self, value: int, op: Any) -> int:
        return value


def test_a_rank_that_cannot_reach_the_socket_means_no_gun(monkeypatch) -> None:
    monkeypatch.setattr(start_gun, "_min", lambda: None)
    assert StartGun.open(_Apart()) is None


def test_comm_selfs_gun_goes_and_leaves_no_socket(tmp_path, monkeypatch) -> None:
    from mpi4py import MPI

    monkeypatch.setattr(start_gun.tempfile, "tempdir", str(tmp_path))
    gun = StartGun.open(MPI.COMM_SELF)
    assert gun is not None and list(tmp_path.iterdir()) == []
    before = time.perf_counter()
    at = gun.start()
    sleep_until(at)
    assert time.perf_counter() >= at >= before + LEAD_S
    gun.join()
    gun.close()
