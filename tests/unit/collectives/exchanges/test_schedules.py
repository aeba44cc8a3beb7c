"""collectives.exchanges.schedules, simulated without MPI: on 1 to 17 ranks (powers of two
and not) every rank ends with every block, no rank sends a block it does not hold at the
start of the step nor receives one it holds, the steps are as many as the algorithm says
(ring p - 1, recursive doubling and Bruck ceil(log2 p)) and so are the blocks each rank
sends and receives ((p - 1) each for ring and Bruck; recursive doubling: (p - 1) received,
more sent by the stand-ins of a short half)."""

from __future__ import annotations

import math

import pytest

from collectives.algorithms import names
from collectives.exchanges.schedules import BUILDERS, Schedule, build

SIZES = range(1, 18)


def simulate(s: Schedule) -> list[set[int]]:
    """What every rank holds after `s`, checking each message against what its sender held
    when the step began and what its receiver did not yet hold."""
    held = [{r} for r in range(s.size)]
    for number, step in enumerate(s.steps):
        before = [set(h) for h in held]
        for m in step:
            assert set(m.blocks) <= before[m.src], (s.algorithm, number, m)
            assert not set(m.blocks) & held[m.dst], (s.algorithm, number, m, "twice")
            assert m.src != m.dst and len(set(m.blocks)) == len(m.blocks), m
            held[m.dst] |= set(m.blocks)
    return held


def traffic(s: Schedule) -> tuple[list[int], list[int]]:
    """Blocks each rank sends, and receives, over the whole schedule."""
    out, into = [0] * s.size, [0] * s.size
    for step in s.steps:
        for m in step:
            out[m.src] += len(m.blocks)
            into[m.dst] += len(m.blocks)
    return out, into


def test_there_is_one_builder_per_exchange_of_the_registry():
    assert tuple(BUILDERS) == names("exchange", collective="allgather")


@pytest.mark.parametrize("algorithm", list(BUILDERS))
@pytest.mark.parametrize("p", SIZES)
def test_every_rank_ends_with_every_block(algorithm, p):
    s = build(algorithm, p)
    assert simulate(s) == [set(range(p))] * p
    out, into = traffic(s)
    assert into == [p - 1] * p  # nothing received twice (simulate), so exactly p - 1
    assert sum(out) == p * (p - 1)
    if algorithm != "recursive-doubling":
        assert out == [p - 1] * p
    # every rank receives at most one message a step
    for step in s.steps:
        dsts = [m.dst for m in step]
        assert len(dsts) == len(set(dsts)), (algorithm, p, step)


@pytest.mark.parametrize("p", SIZES)
def test_the_step_counts(p):
    assert len(build("ring", p).steps) == p - 1
    assert len(build("recursive-doubling", p).steps) == math.ceil(math.log2(p))
    assert len(build("bruck", p).steps) == math.ceil(math.log2(p))


def test_ring_passes_on_what_came_last():
    s = build("ring", 4)
    assert [(m.src, m.dst, m.blocks) for m in s.steps[1]] == [
        (0, 1, (3,)), (1, 2, (0,)), (2, 3, (1,)), (3, 0, (2,))]


def test_recursive_doubling_is_pairwise_for_a_power_of_two_and_stands_in_otherwise():
    s = build("recursive-doubling", 8)
    for step in s.steps:  # every message answered by its partner's, the same size
        pairs = {(m.src, m.dst): len(m.blocks) for m in step}
        assert all(pairs.get((b, a)) == n for (a, b), n in pairs.items())
    assert [(m.src, m.dst, m.blocks) for m in s.steps[2] if m.dst == 0] == [
        (4, 0, (4, 5, 6, 7))]
    # 5 ranks: in the last step rank 4 sends its block to all of 0..3, and gets 0..3 from 0
    last = build("recursive-doubling", 5).steps[2]
    assert sorted((m.src, m.dst, m.blocks) for m in last) == [
        (0, 4, (0, 1, 2, 3)), *((4, r, (4,)) for r in range(4))]
    out, _into = traffic(build("recursive-doubling", 5))
    # rank 0 sends 1, 2 and then 4 blocks (to 4), rank 4 its one block to 4 ranks (standing
    # in for 5, 6 and 7), ranks 1 to 3 only 1 and 2
    assert out == [7, 3, 3, 3, 4]


def test_bruck_sends_down_and_wraps():
    s = build("bruck", 5)
    assert [(m.dst, m.blocks) for m in s.steps[2] if m.src == 3] == [(4, (3,))]
    assert [(m.dst, m.blocks) for m in s.steps[1] if m.src == 4] == [(2, (4, 0))]


def test_one_rank_has_nothing_to_do():
    assert all(build(a, 1).steps == () for a in BUILDERS)


def test_what_has_no_schedule_is_refused():
    with pytest.raises(ValueError, match="mpich has no schedule"):
        build("mpich", 4)
    with pytest.raises(ValueError, match="unknown allgather 'binomial'"):
        build("binomial", 4)
    with pytest.raises(ValueError, match="at least 1 rank"):
        build("ring", 0)
