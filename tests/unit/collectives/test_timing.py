"""collectives.timing: the least-squares fit, the machine's busy fraction, and this process's
scheduling since a reading (sched_since) and its wait for a core (core_wait_s)."""

from __future__ import annotations

import os
import time

import pytest

from collectives.timing import busy_fraction, cpu_jiffies, fit_line


def test_fit_line_recovers_start_and_per_byte():
    a, b = fit_line([1, 1000, 100000], [5e-6 + 8e-9 * m for m in (1, 1000, 100000)],
                    relative=True)
    assert a == pytest.approx(5e-6) and b == pytest.approx(8e-9)


def test_fit_line_rejects_mismatched_points():
    with pytest.raises(ValueError):
        fit_line([1, 2], [1.0])


def test_busy_fraction_sees_a_busy_loop():
    before = cpu_jiffies()
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass
    frac = busy_fraction(before, cpu_jiffies())
    assert frac is not None and 0 < frac <= 1


def test_busy_fraction_without_readings_is_none():
    assert busy_fraction(None, (1, 2)) is None
    assert busy_fraction((5, 10), (5, 10)) is None


def test_sched_since_counts_what_happened_after():
    from collectives.timing import sched_self, sched_since

    before = sched_self()
    time.sleep(0.01)  # leaves the core and comes back: at least one more turn
    run, wait, turns = sched_since(before)
    assert run >= 0 and wait >= 0 and turns >= 1


def test_core_wait_counts_the_time_this_thread_waited_for_its_core():
    """Pinned to one core beside a busy process pinned to it too, a busy thread waits for
    the core about half the time (never longer than it took)."""
    import subprocess
    import sys

    from collectives.timing import core_wait_s

    cpu = min(os.sched_getaffinity(0))
    mask = os.sched_getaffinity(0)
    busy = subprocess.Popen([sys.executable, "-c", "import os, time\n"
                             f"os.sched_setaffinity(0, {{{cpu}}})\n"
                             "end = time.time() + 1.0\nwhile time.time() < end: pass"])
    try:
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.2)  # the other process is running by now (it imports nothing)
        before, start = core_wait_s(), time.perf_counter()
        while time.perf_counter() < start + 0.3:
            pass
        waited, took = core_wait_s() - before, time.perf_counter() - start
    finally:
        os.sched_setaffinity(0, mask)
        busy.kill()
        busy.wait()
    assert 0.05 < waited < took, (waited, took)
