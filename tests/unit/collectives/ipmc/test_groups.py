"""collectives.ipmc.groups: multicast group leases are unique and released, each server leases
from its own part of the pool, a bad slice is refused, and a dead process's lease is taken
over."""

from __future__ import annotations

import ipaddress
import os
import random
from fractions import Fraction

import pytest

from collectives.ipmc.groups import (
    POOL,
    SIEBERT_PAIRS,
    GroupError,
    collision_probability,
    lease,
    leases,
    pool,
)


def test_leases_are_unique_and_released(tmp_path):
    got = [lease(tmp_path, random.Random(1)) for _ in range(20)]
    assert len({g.group for g in got}) == 20
    assert all(ipaddress.ip_address(g.group) in POOL for g in got)
    assert len(leases(tmp_path)) == 20
    for g in got:
        g.release()
    assert leases(tmp_path) == []


@pytest.mark.parametrize("part, n, want", [
    (0, 2, "239.192.0.0/15"), (1, 2, "239.194.0.0/15"), (2, 3, "239.194.0.0/16"),
    (31, 32, "239.195.224.0/19")])
def test_each_server_leases_from_its_own_part_of_the_pool(monkeypatch, tmp_path, part, n,
                                                         want):
    monkeypatch.setenv("MCASTLAB_GROUP_SLICE", f"{part}/{n}")
    assert str(pool()) == want
    got = [lease(tmp_path, random.Random(3)) for _ in range(5)]
    assert all(ipaddress.ip_address(g.group) in ipaddress.ip_network(want) for g in got)


@pytest.mark.parametrize("text", ["2/2", "1", "a/b", "-1/2", "0/5000"])
def test_a_bad_slice_is_refused(monkeypatch, text):
    monkeypatch.setenv("MCASTLAB_GROUP_SLICE", text)
    with pytest.raises(GroupError, match="MCASTLAB_GROUP_SLICE is i/n"):
        pool()


def test_a_lease_of_a_dead_process_is_taken_over(tmp_path):
    first = lease(tmp_path, random.Random(7))
    first.path.write_text("999999999 ghost 5000\n")  # no such pid
    again = lease(tmp_path, random.Random(7))  # same first draw: the stale lease goes
    assert leases(tmp_path) == [again.group] and again.group != first.group
    assert again.path.read_text().split()[0] == str(os.getpid())


# ---- Siebert2006, section 1.7.2: the birthday formula -------------------------------------
def test_collision_probability_is_the_birthday_formula():
    """p(n, m) = m! / (m^n (m - n)!) exactly; Table 1's ends over m = 200,540,160 x 27,769:
    2 communicators 1.79572e-11 %, 200 communicators 3.573481e-7 %."""
    assert SIEBERT_PAIRS == 200_540_160 * 27_769
    assert collision_probability(2) == Fraction(1, SIEBERT_PAIRS)
    assert float(collision_probability(200)) * 100 == pytest.approx(3.573481e-7, rel=1e-6)
    assert collision_probability(3, 3) == 1 - Fraction(2, 9)  # 3! / 3^3 all distinct
    assert collision_probability(0) == 0 and collision_probability(5, 4) == 1
    with pytest.raises(ValueError, match="communicators"):
        collision_probability(-1)
