"""Tseng2001: network partitioning (DDN/DCN) for multi-node multicast on a torus, the U-torus
baseline, hot-spot destination sets and the contention step model. All pure.

Numbers from Tseng2001 (copied here, never read from the notes): 16x16 torus, dilation h = 2
or 4, Fig. 1 "four dilated-4 subnetworks, each as an undirected 4x4 torus, in a 16x16
torus", T_s = 30 or 300 us, T_c = 1 us per flit, |M_i| = 32 to 1024 flits, as many sources as
destinations per set (16 to 240; Figs. 2-4 use 80), hot-spot factor p = 25, 50, 80, 100 %.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from collectives.partitioning.hotspot_sets import HOT_SPOT_FACTORS, hot_set, hotspot_multicasts
from collectives.partitioning.torus import Torus

SIDE, T_S, T_S_SMALL, T_C = 16, 300.0, 30.0, 1.0
SOURCES = 80  # = |D_i|, Figs. 2(a), 3(a), 4(a)
T16 = Torus(SIDE, SIDE)


# ---- hot-spot destination sets ------------------------------------------------------------------
@pytest.mark.parametrize("p", HOT_SPOT_FACTORS)
def test_hot_spot_sets_share_p_k_destinations(p):
    assert HOT_SPOT_FACTORS == (0.25, 0.5, 0.8, 1.0)
    k = SOURCES
    pairs = hotspot_multicasts(T16, SOURCES, k, p, seed=5)
    assert len({s for s, _ in pairs}) == SOURCES
    # the hot set: nodes in every destination set but their own multicast's
    hot_nodes = {n for n in range(T16.size) if all(n in d or n == s for s, d in pairs)}
    assert len(hot_nodes) == round(p * k)
    for s, dests in pairs:
        assert len(dests) == k == len(set(dests)) and s not in dests
        share = len(set(dests) & hot_nodes) / k
        assert share == pytest.approx(p - 1 / k if s in hot_nodes else p)
    hot = Counter(itertools.chain(*(d for _, d in pairs)))
    if p < 1:  # the rest is spread over the whole network
        assert len(hot) > 2 * k


def test_hot_spot_clustered_set_is_an_area_and_arguments_are_checked():
    rng = random.Random(0)
    area = hot_set(T16, 20, rng, clustered=True)
    assert max(T16.distance(a, b) for a in area for b in area) <= 6
    with pytest.raises(ValueError, match="hot-spot factor"):
        hotspot_multicasts(T16, 4, 4, 1.5)
    with pytest.raises(ValueError, match="destinations per source"):
        hotspot_multicasts(T16, 4, 256, 0.5)
