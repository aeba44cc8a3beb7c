"""testbed.fidelity.switch_load: from two readings of the switch's threads, the share of its
time with work it waited for a core (every thread, those present in both only) and how much
of the stretch its forwarding (main) thread ran and had work; nothing where the switch
restarted or a reading is missing."""

from __future__ import annotations

import pytest

from testbed.fidelity.switch_load import switch_load

S = 1_000_000_000  # ns


def snap(pid: int, **threads: tuple[float, float]) -> dict[str, object]:
    """A snapshot of switch `pid`'s threads: t<tid>=(seconds on a core, seconds waiting)."""
    return {"pid": pid, "threads": {k[1:]: [int(r * S), int(w * S)]
                                    for k, (r, w) in threads.items()}}


def test_a_forwarding_thread_that_never_slept_had_work_all_the_time() -> None:
    """The 8 x 8 mesh's figures: the main thread ran 72 % of 2 s and waited 28 %."""
    a = snap(10, t10=(5.0, 1.0), t11=(0.2, 0.1))
    b = snap(10, t10=(5.0 + 1.44, 1.0 + 0.56), t11=(0.25, 0.2))
    got = switch_load(a, b, 2.0)
    assert got["busy"] == pytest.approx(0.72)
    assert got["had_work"] == pytest.approx(1.0)
    assert got["waited"] == pytest.approx((0.56 + 0.1) / (1.44 + 0.05 + 0.56 + 0.1))


def test_a_switch_that_slept_between_frames_had_work_part_of_the_time() -> None:
    """A 16-host star: the main thread ran 30 % and waited 10 % of the stretch."""
    got = switch_load(snap(7, t7=(1.0, 0.5)), snap(7, t7=(1.3, 0.6)), 1.0)
    assert got["busy"] == pytest.approx(0.3) and got["had_work"] == pytest.approx(0.4)
    assert got["waited"] == pytest.approx(0.25)


def test_threads_that_came_or_went_between_readings_are_left_out() -> None:
    """A thread that ended took its counts with it: summed over the threads of each
    reading, the waits went down (the monitor once recorded a negative share)."""
    a = snap(7, t7=(1.0, 0.1), t8=(0.5, 3.0))  # t8 ends
    b = snap(7, t7=(1.2, 0.2), t9=(0.1, 0.0))  # t9 starts
    got = switch_load(a, b, 1.0)
    assert got["waited"] == pytest.approx(0.1 / 0.3)
    assert got["had_work"] == pytest.approx(0.3)


def test_sampling_jitter_never_makes_more_than_all_the_time() -> None:
    got = switch_load(snap(7, t7=(0.0, 0.0)), snap(7, t7=(0.8, 0.3)), 1.0)
    assert got["had_work"] == 1.0 and got["busy"] == pytest.approx(0.8)


def test_no_figures_without_two_readings_of_the_same_switch() -> None:
    none = {"waited": None, "busy": None, "had_work": None}
    a = snap(7, t7=(1.0, 0.0))
    assert switch_load(None, a, 1.0) == none
    assert switch_load(a, None, 1.0) == none
    assert switch_load(a, snap(8, t8=(0.1, 0.0)), 1.0) == none  # restarted: pid changed
    assert switch_load(a, snap(7, t7=(2.0, 0.0)), 0.0) == none


def test_a_main_thread_missing_from_a_reading_gives_no_forwarding_figures() -> None:
    got = switch_load(snap(7, t8=(1.0, 0.0)), snap(7, t7=(0.5, 0.0), t8=(1.5, 0.5)), 1.0)
    assert got["waited"] == pytest.approx(0.5) and got["busy"] is None
    assert got["had_work"] is None
