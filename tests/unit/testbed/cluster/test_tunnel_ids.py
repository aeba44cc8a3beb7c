"""testbed.cluster.tunnel_ids: a run's tunnel identifiers are drawn per link, in the VNI's
range, never twice in a run (a draw that repeats one is drawn again), stable for a link, and
recorded; two runs draw differently."""

from __future__ import annotations

from testbed.cluster.tunnel_ids import HIGHEST, TunnelIds


def test_a_link_keeps_its_id_and_no_two_links_share_one():
    draws = iter([5, 5, 0, HIGHEST + 1, 9, 5, 9, 12])
    ids = TunnelIds(lambda: next(draws))
    assert ids.of(1) == 5
    assert ids.of(2) == 9  # 5 taken, 0 and 2^24 out of range: drawn again
    assert ids.of(1) == 5  # the same for the link's other end
    assert ids.of(3) == 12
    assert ids.record() == {"1": 5, "2": 9, "3": 12}


def test_the_ids_are_random_within_the_vni_range_and_not_the_link_numbers():
    runs = [TunnelIds() for _ in range(2)]
    got = [[r.of(k) for k in range(1, 65)] for r in runs]
    for ids in got:
        assert len(set(ids)) == 64 and all(0 < v <= HIGHEST for v in ids)
    assert got[0] != got[1]  # (the same 64 draws twice: 1 in 2^1536)
    assert got[0] != list(range(1, 65))
