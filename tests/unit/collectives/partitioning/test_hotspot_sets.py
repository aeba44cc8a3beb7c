"""collectives.partitioning.hotspot_sets: Tseng2001's hot-spot destination sets on the 16x16
torus: with factor p the sets share p*k destinations, the clustered hot set is an area (on a
mesh one without wrap links), and bad arguments are refused."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from collectives.partitioning.grid import Mesh, Torus
from collectives.partitioning.hotspot_sets import HOT_SPOT_FACTORS, hot_set, hotspot_multicasts

from .tseng2001 import SOURCES, T16


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


def test_on_a_mesh_the_clustered_hot_set_is_an_area_without_wrap():
    """A corner's nearest nodes: on a mesh all on its own side, on a torus across the wraps."""
    seed = next(s for s in range(100) if random.Random(s).randrange(16) == 0)  # centre 0
    assert hot_set(Mesh(4, 4), 3, random.Random(seed), clustered=True) == {0, 1, 4}
    assert hot_set(Torus(4, 4), 3, random.Random(seed), clustered=True) == {0, 1, 3}
    pairs = hotspot_multicasts(Mesh(4, 4), 4, 6, 0.5, seed=1)
    assert len(pairs) == 4 and all(len(d) == 6 and s not in d for s, d in pairs)
