"""collectives.range_trees.final_step: the last step's shortcuts (the bounds and the
relaxation) only ever rule out what the paper's full search rules out, on random faulty
sets."""

from __future__ import annotations

import random

import pytest

from collectives.range_trees.bounds import pieces_lower_bound
from collectives.range_trees.final_step import (
    Budget,
    SearchLimitExceeded,
    final_step,
    relaxation_rules_out,
    search,
)
from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.overlap import (
    capabilities,
)
from collectives.range_trees.trees import (
    after_step,
    pending_groups,
)
from collectives.range_trees.trials import random_problem


# ------------------------------------------------------------------- the last step, exact
def test_last_step_shortcuts_agree_with_the_full_search() -> None:
    """The bounds and the relaxation only ever rule out what the paper's search rules out."""
    tree = KaryNTree.for_nodes(64)
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        source, dests = random_problem(rng, 64, rng.choice([3, 6, 9]))
        groups = tuple(pending_groups(tree, source, dests))
        for first in groups:
            holders, pending = after_step(tree, frozenset([source]), groups, [first])
            c = capabilities(tree, holders)
            exhaustive = next(search(tree, c, sorted(pending), set(), Budget(None)), None)
            if pieces_lower_bound(tree, c, pending) > len(holders):
                assert exhaustive is None
            if relaxation_rules_out(tree, c, pending):
                assert exhaustive is None
            assert (final_step(tree, c, pending) is None) == (exhaustive is None)
            checked += 1
    assert checked > 100


def test_the_relaxation_spends_the_search_budget() -> None:
    """Every list a relaxation resolves is a state: a small budget stops it (undecided, not
    a wrong answer), none lets it finish."""
    tree = KaryNTree.for_nodes(1024)
    rng = random.Random(11)
    source, dests = random_problem(rng, 1024, 31)
    groups = tuple(pending_groups(tree, source, dests))
    holders, pending = after_step(tree, frozenset([source]), groups, [groups[0]])
    c = capabilities(tree, holders)
    relaxation_rules_out(tree, c, pending)  # no budget: decides
    with pytest.raises(SearchLimitExceeded):
        relaxation_rules_out(tree, c, pending, Budget(2))
