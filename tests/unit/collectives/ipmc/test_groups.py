"""collectives.ipmc.groups: multicast group leases are unique and released, each server leases
from its own part of the pool, a bad slice is refused, and a dead process's lease is taken
over."""

from __future__ import annotations

import ipaddress
import os
import random

import pytest

from collectives.ipmc.groups import POOL, GroupError, lease, leases, pool


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
