"""testbed.fidelity.switch_load: from the readings of the switch's threads over a stretch,
the share of its time with work it waited for a core (every thread, each interval over
the threads present at both its ends) and how much of the stretch its forwarding (main)
thread ran and had work, each interval counted by its part inside the stretch; nothing
across a restart of the switch or where a reading is missing."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.fidelity.switch_load import switch_load

S = 1_000_000_000  # ns
NONE = {"waited": None, "busy": None, "had_work": None}


def snap(pid: int, **threads: tuple[float, float]) -> dict[str, Any]:
    """A reading of switch `pid`'s threads: t<tid>=(seconds on a core, seconds waiting)."""
    return {"pid": pid, "threads": {k[1:]: [int(r * S), int(w * S)]
                                    for k, (r, w) in threads.items()}}


def test_a_forwarding_thread_that_never_slept_had_work_all_the_time() -> None:
    """The 8 x 8 mesh's figures: the main thread ran 72 % of 2 s and waited 28 %."""
    a = snap(10, t10=(5.0, 1.0), t11=(0.2, 0.1))
    b = snap(10, t10=(5.0 + 1.44, 1.0 + 0.56), t11=(0.25, 0.2))
    got = switch_load([(0.0, a), (2.0, b)], 0.0, 2.0)
    assert got["busy"] == pytest.approx(0.72)
    assert got["had_work"] == pytest.approx(1.0)
    assert got["waited"] == pytest.approx((0.56 + 0.1) / (1.44 + 0.05 + 0.56 + 0.1))


def test_a_switch_that_slept_between_frames_had_work_part_of_the_time() -> None:
    """A 16-host star: the main thread ran 30 % and waited 10 % of the stretch."""
    got = switch_load([(0.0, snap(7, t7=(1.0, 0.5))), (1.0, snap(7, t7=(1.3, 0.6)))], 0.0, 1.0)
    assert got["busy"] == pytest.approx(0.3) and got["had_work"] == pytest.approx(0.4)
    assert got["waited"] == pytest.approx(0.25)


def test_only_the_part_of_each_interval_inside_the_stretch_counts() -> None:
    """Idle from 0 to 1 s, never asleep from 1 to 2, idle again to 3: a point from 1 to 2
    had the switch's thread busy throughout, whatever its readings' intervals around it;
    half of each idle interval around it counts where the stretch takes it in."""
    readings = [(0.0, snap(7, t7=(0.0, 0.0))), (1.0, snap(7, t7=(0.0, 0.0))),
                (2.0, snap(7, t7=(0.7, 0.3))), (3.0, snap(7, t7=(0.7, 0.3)))]
    assert switch_load(readings, 1.0, 2.0)["had_work"] == pytest.approx(1.0)
    assert switch_load(readings, 0.5, 2.5)["had_work"] == pytest.approx(0.5)
    inside = switch_load(readings, 1.2, 1.8)  # within one interval: judged by it
    assert inside["had_work"] == pytest.approx(1.0) and inside["busy"] == pytest.approx(0.7)
    assert switch_load(readings, 1.5, 1.5)["had_work"] == pytest.approx(1.0)  # an instant
    assert switch_load(readings, 5.0, 6.0) == NONE  # after every reading


def test_threads_that_came_or_went_between_readings_are_left_out() -> None:
    """A thread that ended took its counts with it: summed over the threads of each
    reading, the waits went down (the monitor once recorded a negative share)."""
    a = snap(7, t7=(1.0, 0.1), t8=(0.5, 3.0))  # t8 ends
    b = snap(7, t7=(1.2, 0.2), t9=(0.1, 0.0))  # t9 starts
    got = switch_load([(0.0, a), (1.0, b)], 0.0, 1.0)
    assert got["waited"] == pytest.approx(0.1 / 0.3)
    assert got["had_work"] == pytest.approx(0.3)


def test_sampling_jitter_never_makes_more_than_all_the_time() -> None:
    got = switch_load([(0.0, snap(7, t7=(0.0, 0.0))), (1.0, snap(7, t7=(0.8, 0.3)))], 0, 1)
    assert got["had_work"] == 1.0 and got["busy"] == pytest.approx(0.8)


def test_an_interval_across_a_restart_or_a_missing_reading_counts_for_nothing() -> None:
    a = snap(7, t7=(1.0, 0.0))
    assert switch_load([], 0.0, 1.0) == NONE
    assert switch_load([(0.0, None), (1.0, a)], 0.0, 1.0) == NONE
    assert switch_load([(0.0, a), (1.0, snap(8, t8=(0.1, 0.0)))], 0.0, 1.0) == NONE
    # the restart's interval is left out, the one after it judged
    got = switch_load([(0.0, a), (1.0, snap(8, t8=(0.0, 0.0))), (2.0, snap(8, t8=(0.2, 0.0)))],
                      0.0, 2.0)
    assert got["had_work"] == pytest.approx(0.2)


def test_a_main_thread_missing_from_a_reading_gives_no_forwarding_figures() -> None:
    got = switch_load([(0.0, snap(7, t8=(1.0, 0.0))),
                       (1.0, snap(7, t7=(0.5, 0.0), t8=(1.5, 0.5)))], 0.0, 1.0)
    assert got["waited"] == pytest.approx(0.5) and got["busy"] is None
    assert got["had_work"] is None
