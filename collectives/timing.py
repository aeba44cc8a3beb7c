"""Timing helpers for code running in MPI ranks: a sleeping barrier, a calibrated busy
loop, and straight-line fits."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence

from .waiting import wait

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["busy_fraction", "busy_wait", "core_wait_s", "cpu_jiffies", "fit_line", "idle_barrier",
           "sched_self", "sched_since", "wait_per_turn"]


def idle_barrier(comm) -> None:
    """A barrier that sleeps while it waits (collectives.waiting, whatever MCASTLAB_WAIT
    says): MPICH polls busily inside MPI calls, and on a 2-core machine emulating many hosts
    idle ranks spinning in a plain Barrier would steal the CPU from the ranks being measured
    (and from the software switches)."""
    wait([comm.Ibarrier()], mode="block")


def cpu_jiffies() -> tuple[int, int] | None:
    """(busy, total) clock ticks of all cores since boot, from /proc/stat (not namespaced,
    so an emulated host sees the whole machine); None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_fraction(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """Share of all cores' time spent busy between two cpu_jiffies() readings."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def sched_self() -> tuple[int, int, int]:
    """(ns on a core, ns waiting for one while runnable, turns on a core) of this process,
    every thread summed (/proc/self/task/*/schedstat; zeros where there is none)."""
    run = wait = turns = 0
    try:
        for task in os.scandir("/proc/self/task"):
            with open(f"{task.path}/schedstat") as f:
                a, b, c = f.read().split()[:3]
            run, wait, turns = run + int(a), wait + int(b), turns + int(c)
    except (OSError, ValueError):
        pass
    return run, wait, turns


_SCHEDSTAT: dict[int, int | None] = {}  # a thread's open schedstat (None: there is none)


def core_wait_s() -> float:
    """Seconds this thread has waited for a core while runnable, since it started: the
    second field of its /proc schedstat, read with one pread of a descriptor kept open
    (about 2 us); 0 where there is none."""
    tid = threading.get_native_id()
    if tid not in _SCHEDSTAT:
        try:
            _SCHEDSTAT[tid] = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
        except OSError:
            _SCHEDSTAT[tid] = None
    fd = _SCHEDSTAT[tid]
    if fd is None:
        return 0.0
    try:
        return int(os.pread(fd, 64, 0).split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def sched_since(before: tuple[int, int, int]) -> tuple[int, int, int]:
    """sched_self() now less `before`: what this process did since."""
    a, b, c = (now - then for then, now in zip(before, sched_self(), strict=True))
    return a, b, c


def wait_per_turn(deltas: Sequence[tuple[int, int, int]]) -> float | None:
    """Mean seconds a process waited for a core each time it got one, over (run, wait,
    turns) deltas of several processes (None if none ran)."""
    turns = sum(d[2] for d in deltas)
    return sum(d[1] for d in deltas) / turns / 1e9 if turns else None


def busy_wait(seconds: float) -> None:
    """The 'dummy loop' of Nupairoj1998: harmless computation for `seconds` (no sleep, so the
    rank stays on the CPU as the paper's dummy loop does)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def fit_line(xs: Sequence[float], ys: Sequence[float],
             relative: bool = False) -> tuple[float, float]:
    """Least-squares (intercept, slope) of y = a + b x. With `relative`, each point weighs
    1/y^2 (relative errors): message sizes span six decades, and an absolute fit would let
    the largest size decide the start-up term alone."""
    n = len(xs)
    if n == 0 or n != len(ys):
        raise ValueError("fit_line needs equally many x and y values")
    if n == 1:
        return ys[0], 0.0
    w = [1.0 / (y * y) if relative and y > 0 else 1.0 for y in ys]
    sw = sum(w)
    mx = sum(wi * x for wi, x in zip(w, xs, strict=True)) / sw
    my = sum(wi * y for wi, y in zip(w, ys, strict=True)) / sw
    sxx = sum(wi * (x - mx) ** 2 for wi, x in zip(w, xs, strict=True))
    if sxx == 0:
        return my, 0.0
    b = sum(wi * (x - mx) * (y - my) for wi, x, y in zip(w, xs, ys, strict=True)) / sxx
    return my - b * mx, b
