"""collectives.trees.hol, the chapter-6 sender model of Nupairoj1998: the thesis's worked
examples (Figs 6.1 and 6.4) on hand-timed schedules, and without contention or queueing the
t_hold/t_end model."""

from __future__ import annotations

from collectives.trees.hol import Channel, hol_latency, hol_times
from collectives.trees.schedules import build

QUIET, BUSY = Channel(20, 20, 15, 20, 20), Channel(20, 20, 15, 20, 20, 15)


def test_fig_6_1_one_message_behind_a_busy_channel() -> None:
    done, (s,) = hol_times(build("sequential", 2), BUSY, busy_until={0: 50})
    assert (s.t_sq, s.t_out, s.t_hol, s.t_send, s.t_net, s.t_end) == (30, 30, 60, 50, 35, 105)
    assert done == [0.0, 105.0]


def test_fig_6_4_sequential_tree_with_and_without_contention() -> None:
    assert hol_latency(build("sequential", 4), QUIET) == 100
    _, sent = hol_times(build("sequential", 4), BUSY)
    # the first message holds the channel until 50: the sends issued at 20 and 40 wait
    assert [s.t_sq for s in sent] == [0, 10, 20]
    assert max(s.issued + s.t_end for s in sent) == 135


def test_without_contention_or_queueing_it_is_the_t_hold_t_end_model() -> None:
    """t_out below t_hold: nothing queues, and t_end = t_send + t_net + t_recv (60)."""
    for alg in ("binomial", "chain", "sequential"):
        for k in (3, 8, 16):
            want = {"sequential": (k - 2) * 20 + 60, "chain": (k - 1) * 60}.get(alg)
            got = hol_latency(build(alg, k), QUIET)
            if want is not None:
                assert got == want, (alg, k)
    assert hol_latency(build("binomial", 16), QUIET) == 4 * 60
