"""collectives.partitioning.schemes: the multi-node multicast's schemes, their names on a
torus and on a mesh, the way back from a name, and each scheme's plan."""

from __future__ import annotations

import pytest

from collectives.partitioning.grid import Mesh, Torus
from collectives.partitioning.hotspot_sets import hotspot_multicasts
from collectives.partitioning.schemes import (
    BY_NAME,
    SCHEME_NAMES,
    SCHEMES,
    plan_for,
    scheme_name,
    scheme_names,
)


def test_every_scheme_is_named_on_either_grid_and_found_by_its_name() -> None:
    torus, mesh = Torus(4, 4), Mesh(4, 4)
    assert list(scheme_names(torus)) == list(SCHEMES) == ["direct", "random", "balanced"]
    assert scheme_names(torus) == SCHEME_NAMES
    assert scheme_names(mesh) == SCHEME_NAMES | {"direct": "u-mesh"}
    for grid in (torus, mesh):
        assert {BY_NAME[scheme_name(s, grid)] for s in SCHEMES} == set(SCHEMES)


def test_each_scheme_plans_the_pairs_and_an_unknown_one_is_refused() -> None:
    torus = Torus(4, 4)
    pairs = hotspot_multicasts(torus, 4, 6, 0.5, 0)
    for scheme in SCHEMES:
        plan = plan_for(scheme, torus, 2, pairs, 0)
        assert plan.choice == (None if scheme == "direct" else scheme)
        assert len(plan.multicasts) == 4
    with pytest.raises(ValueError, match="unknown scheme 'fast'; choose from direct, random, "
                                         "balanced"):
        plan_for("fast", torus, 2, pairs, 0)
