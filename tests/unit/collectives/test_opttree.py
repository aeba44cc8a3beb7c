"""collectives.opttree: OPT-Tree (Nupairoj 1998, ch. 4) against the thesis's tables and
brute force.

Reference numbers are copied from the dissertation: Table 4.3 (k=9, t_hold=20, t_end=55),
Table 4.4 (3 ports, k=12, t_int=10, t_hold=22, t_end=55) and the chapter 3 toy example.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator

import pytest

from collectives.opttree import (
    MultiPortTable,
    OptTable,
    alpha_max,
    exhaustive_optimum,
    multiport_children,
    multiport_latency,
    multiport_table,
    opt_children,
    opt_table,
    tree_latency,
)

T43_T = (0, 55, 75, 95, 110, 115, 130, 130, 135)  # t[1..9]
T43_J = (1, 2, 3, 3, 4, 5, 5, 6)  # j_2..j_9
# (t[j_i] + t_hold, t[i - j_i] + t_end) for i = 2..9, as printed (row 2 charges t[1] + t_hold)
T43_COLUMNS = ((20, 55), (75, 55), (95, 55), (95, 110), (115, 110), (130, 110), (130, 130),
               (135, 130))


def test_table_4_3_latencies_and_splits() -> None:
    table = opt_table(9, 20, 55)
    assert isinstance(table, OptTable)
    assert table.k == 9
    assert len(table.t) == len(table.j) == 10
    assert table.t[0] == 0.0
    assert table.t[1:] == T43_T
    assert table.j[2:] == T43_J
    assert all(isinstance(x, float) for x in table.t)


def test_table_4_3_columns() -> None:
    table = opt_table(9, 20, 55)
    t, j = table.t, table.j
    columns = tuple((t[j[i]] + 20, t[i - j[i]] + 55) for i in range(2, 10))
    assert columns == T43_COLUMNS
    # from row 3 on, t[i] is the larger of the two columns
    assert all(t[i] == max(columns[i - 2]) for i in range(3, 10))


def test_table_4_3_tree() -> None:
    children = opt_children(9, opt_table(9, 20, 55).j)
    assert children == {0: [6, 4, 3, 2, 1], 4: [5], 6: [8, 7]}
    assert tree_latency(children, 20, 55) == 135


def test_tie_prefers_growing_the_root_subtree() -> None:
    # row 7 of Table 4.3: both candidates give 130; the thesis keeps j_7 = j_6 + 1 = 5
    table = opt_table(7, 20, 55)
    assert table.j[6:] == (4, 5)


def test_prefix_of_a_larger_table_is_the_smaller_table() -> None:
    big = opt_table(30, 20, 55)
    small = opt_table(9, 20, 55)
    assert big.t[:10] == small.t and big.j[:10] == small.j
    assert opt_children(9, big.j) == opt_children(9, small.j)


def test_chapter_3_toy_example() -> None:
    # t_send=2, t_net=1, t_recv=2, t_hold=t_send: t_hold=2, t_end=5, 4 nodes
    assert tree_latency({0: [1, 2, 3]}, 2, 5) == 9  # sequential
    assert tree_latency({0: [2, 1], 2: [3]}, 2, 5) == 10  # binomial
    assert tree_latency({0: [1], 1: [2], 2: [3]}, 2, 5) == 15  # chain
    assert opt_table(4, 2, 5).t[4] == 9  # OPT picks the sequential latency here


def test_single_node_and_leaves_left_out() -> None:
    assert tree_latency({}, 2, 5) == 0
    assert tree_latency({0: []}, 2, 5) == 0
    assert tree_latency({0: [1], 1: []}, 2, 5) == 5
    assert tree_latency({3: [1, 2]}, 2, 5, root=3) == 7
    table = opt_table(1, 2, 5)
    assert table.t == (0.0, 0.0) and table.j == (0, 0)
    assert opt_children(1, table.j) == {}
    assert opt_table(2, 80, 5).t[2] == 5  # one send: t_hold never matters


def test_logp_example() -> None:
    # Karp et al. (ch. 7): P=8, L=6, g=4, o=2  =>  t_hold = g = 4, t_end = L + 2o = 10
    table = opt_table(8, 4, 10)
    assert table.t[8] == 24
    children = opt_children(8, table.j)
    assert children == {0: [5, 3, 2, 1], 3: [4], 5: [7, 6]}
    assert tree_latency(children, 4, 10) == 24


def test_extreme_regimes_give_sequential_and_chain() -> None:
    seq = opt_table(10, 1, 1000)
    assert seq.t[10] == 8 * 1 + 1000  # (k - 2) t_hold + t_end
    assert opt_children(10, seq.j) == {0: [9, 8, 7, 6, 5, 4, 3, 2, 1]}
    chain = opt_table(10, 1000, 1)
    assert chain.t[10] == 9  # (k - 1) t_end
    assert opt_children(10, chain.j) == {i: [i + 1] for i in range(9)}


HOLDS = (1, 2, 5, 10, 20, 55, 80)
ENDS = (1, 3, 10, 20, 55, 60)


@pytest.mark.parametrize(("t_hold", "t_end"), list(itertools.product(HOLDS, ENDS)))
def test_opt_tree_is_optimal_for_every_k_up_to_12(t_hold: float, t_end: float) -> None:
    table = opt_table(12, t_hold, t_end)
    for k in range(1, 13):
        assert table.t[k] == exhaustive_optimum(k, t_hold, t_end), k
        children = opt_children(k, table.j)
        assert tree_latency(children, t_hold, t_end) == table.t[k], k
        nodes = {0} | {c for cs in children.values() for c in cs}
        assert nodes == set(range(k))


def test_opt_tree_is_optimal_on_random_real_parameters() -> None:
    rng = random.Random(1998)
    for _ in range(60):
        t_hold, t_end = rng.uniform(0, 100), rng.uniform(0, 100)
        k = rng.randint(1, 30)
        table = opt_table(k, t_hold, t_end)
        assert table.t[k] == pytest.approx(exhaustive_optimum(k, t_hold, t_end))
        latency = tree_latency(opt_children(k, table.j), t_hold, t_end)
        assert latency == pytest.approx(table.t[k])


def test_zero_times() -> None:
    for k in range(1, 9):
        assert opt_table(k, 0, 7).t[k] == exhaustive_optimum(k, 0, 7) == (7 if k > 1 else 0)
        assert opt_table(k, 3, 0).t[k] == exhaustive_optimum(k, 3, 0) == 0


def _plane_trees(n: int) -> Iterator[list]:
    """Every ordered rooted tree with n nodes, as nested lists of child subtrees."""
    if n == 1:
        yield []
        return
    for first in range(1, n):
        for head in _plane_trees(first):
            for rest in _plane_trees(n - first):
                yield [head, *rest]


def _labelled(shape: list) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    counter = itertools.count()

    def walk(node: list) -> int:
        me = next(counter)
        children[me] = [walk(sub) for sub in node]
        return me

    walk(shape)
    return children


@pytest.mark.parametrize(("t_hold", "t_end"), [(2, 5), (20, 55), (55, 20), (7, 7), (9, 2)])
def test_exhaustive_optimum_matches_enumerating_every_tree(t_hold: float, t_end: float) -> None:
    for k in range(1, 9):
        trees = [_labelled(shape) for shape in _plane_trees(k)]
        assert len(trees) == math.comb(2 * (k - 1), k - 1) // k  # Catalan(k - 1)
        best = min(tree_latency(tree, t_hold, t_end) for tree in trees)
        assert exhaustive_optimum(k, t_hold, t_end) == best, k


# i: (j_i, j_i^1, j_i^2, j_i^3, C1, C2, C3, C4, t[i]); None where the table prints "-"
T44 = {
    1: (None, None, None, None, None, None, None, None, 0),
    2: (1, 1, 0, 0, None, None, None, None, 55),
    3: (1, 1, 1, 0, 77, 110, 65, 75, 65),
    4: (1, 1, 1, 1, 77, 110, 120, 75, 75),
    5: (2, 1, 1, 1, 77, 110, 120, 130, 77),
    6: (3, 1, 1, 1, 87, 110, 120, 130, 87),
    7: (4, 1, 1, 1, 97, 110, 120, 130, 97),
    8: (5, 1, 1, 1, 99, 110, 120, 130, 99),
    9: (6, 1, 1, 1, 109, 110, 120, 130, 109),
    10: (6, 2, 1, 1, 119, 110, 120, 130, 110),
    11: (7, 2, 1, 1, 119, 120, 120, 130, 119),
    12: (7, 3, 1, 1, 121, 120, 120, 130, 120),
}


def test_table_4_4_every_row() -> None:
    table = multiport_table(12, t_hold=22, t_end=55, t_int=10, alpha=3)
    assert isinstance(table, MultiPortTable)
    assert (table.k, table.alpha) == (12, 3)
    assert len(table.t) == len(table.j) == len(table.jr) == len(table.c) == 13
    for i, (j, j1, j2, j3, c1, c2, c3, c4, t) in T44.items():
        assert table.t[i] == t, i
        if j is None:
            assert table.c[i] == ()
            continue
        assert (table.j[i], *table.jr[i]) == (j, j1, j2, j3), i
        assert table.j[i] + sum(table.jr[i]) == i
        if c1 is None:
            assert table.c[i] == ()
        else:
            assert table.c[i] == (c1, c2, c3, c4), i


def test_table_4_4_tree() -> None:
    table = multiport_table(12, 22, 55, 10, 3)
    children = multiport_children(12, table)
    # rounds at 0, 22, 44; port r starts (r - 1) * 10 into the round; node 7 has it at 55
    assert children == {
        0: [(7, 1), (10, 2), (11, 3), (4, 1), (5, 2), (6, 3), (1, 1), (2, 2), (3, 3)],
        7: [(8, 1), (9, 2)],
    }
    assert multiport_latency(children, 22, 55, 10) == table.t[12] == 120


def test_alpha_max() -> None:
    assert alpha_max(22, 10) == 3  # 20 < 22 <= 30
    assert alpha_max(30, 10) == 3  # 20 < 30 <= 30
    assert alpha_max(31, 10) == 4
    assert alpha_max(20, 19) == 2
    assert alpha_max(0.3, 0.1) == 3  # 0.3 / 0.1 is 2.9999999999999996


def test_multiport_latency_rounds() -> None:
    # a port not above the previous one starts a new round
    assert multiport_latency({0: [(1, 1), (2, 1)]}, 22, 55, 10) == 22 + 55
    assert multiport_latency({0: [(1, 1), (2, 3)]}, 22, 55, 10) == 20 + 55
    assert multiport_latency({0: [(1, 2), (2, 1)]}, 22, 55, 10) == 22 + 55
    assert multiport_latency({0: [(1, 1)], 1: [(2, 2)]}, 22, 55, 10) == 55 + 10 + 55
    assert multiport_latency({}, 22, 55, 10) == 0


def test_one_port_matches_opt_tree() -> None:
    for t_hold, t_end in [(20, 55), (55, 20), (4, 10), (12, 12)]:
        single = opt_table(15, t_hold, t_end)
        table = multiport_table(15, t_hold, t_end, t_int=1, alpha=1)
        assert table.t == single.t
        for k in range(1, 16):
            children = multiport_children(k, table)
            assert all(port == 1 for sends in children.values() for _, port in sends)
            assert multiport_latency(children, t_hold, t_end, 1) == single.t[k]


def _multiport_brute(k: int, t_hold: float, t_end: float, t_int: float, alpha: int) -> list:
    """Optimum over every first-round split (root keeps j >= 1, port r takes j^r >= 0)."""
    t = [0.0] * (k + 1)
    for i in range(2, k + 1):
        best = math.inf
        for sizes in itertools.product(range(i), repeat=alpha):
            j = i - sum(sizes)
            if not 1 <= j <= i - 1:
                continue
            terms = [t[j] + t_hold if j > 1 else 0.0]  # nothing left to send when j == 1
            terms += [t[s] + t_end + r * t_int for r, s in enumerate(sizes) if s]
            best = min(best, max(terms))
        t[i] = best
    return t


MULTIPORT_CASES = [  # (t_hold, t_end, t_int), alpha up to min(3, alpha_max)
    (22, 55, 10),
    (30, 7, 10),
    (12, 12, 5),
    (9, 40, 4),
    (100, 3, 40),
    (5, 1, 2),
]


@pytest.mark.parametrize(("t_hold", "t_end", "t_int"), MULTIPORT_CASES)
def test_multiport_recurrence_matches_brute_force(
    t_hold: float, t_end: float, t_int: float
) -> None:
    for alpha in range(1, min(3, alpha_max(t_hold, t_int)) + 1):
        brute = _multiport_brute(10, t_hold, t_end, t_int, alpha)
        table = multiport_table(10, t_hold, t_end, t_int, alpha)
        for k in range(1, 11):
            assert table.t[k] == brute[k], (alpha, k)
            children = multiport_children(k, table)
            assert multiport_latency(children, t_hold, t_end, t_int) == table.t[k], (alpha, k)
            nodes = {0} | {c for sends in children.values() for c, _ in sends}
            assert nodes == set(range(k))
            assert all(1 <= p <= alpha for sends in children.values() for _, p in sends)


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one(k: int) -> None:
    for call in (
        lambda: opt_table(k, 20, 55),
        lambda: opt_children(k, (0, 0, 1)),
        lambda: exhaustive_optimum(k, 20, 55),
        lambda: multiport_table(k, 22, 55, 10, 3),
        lambda: multiport_children(k, multiport_table(3, 22, 55, 10, 3)),
    ):
        with pytest.raises(ValueError, match="k must be at least 1"):
            call()


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_bad_times_name_the_parameter(bad: float) -> None:
    cases = [
        ("t_hold", lambda: opt_table(5, bad, 55)),
        ("t_end", lambda: opt_table(5, 20, bad)),
        ("t_hold", lambda: exhaustive_optimum(5, bad, 55)),
        ("t_end", lambda: exhaustive_optimum(5, 20, bad)),
        ("t_hold", lambda: tree_latency({0: [1]}, bad, 55)),
        ("t_end", lambda: tree_latency({0: [1]}, 20, bad)),
        ("t_hold", lambda: multiport_table(5, bad, 55, 10, 1)),
        ("t_end", lambda: multiport_table(5, 22, bad, 10, 1)),
        ("t_int", lambda: multiport_table(5, 22, 55, bad, 1)),
        ("t_int", lambda: multiport_latency({0: [(1, 1)]}, 22, 55, bad)),
        ("t_int", lambda: alpha_max(22, bad)),
        ("t_hold", lambda: alpha_max(bad, 10)),
    ]
    for name, call in cases:
        with pytest.raises(ValueError, match=name):
            call()


def test_alpha_errors() -> None:
    with pytest.raises(ValueError, match="alpha must be at least 1"):
        multiport_table(5, 22, 55, 10, 0)
    with pytest.raises(ValueError, match="alpha=4 exceeds alpha_max=3"):
        multiport_table(5, 22, 55, 10, 4)
    with pytest.raises(ValueError, match="t_int must be less than t_hold"):
        multiport_table(5, 22, 55, 22, 1)
    with pytest.raises(ValueError, match="t_int must be less than t_hold"):
        alpha_max(10, 30)
    with pytest.raises(ValueError, match="t_int must be positive"):
        alpha_max(22, 0)


def test_malformed_trees_and_tables() -> None:
    with pytest.raises(ValueError, match="reached twice"):
        tree_latency({0: [1, 1]}, 2, 5)
    with pytest.raises(ValueError, match="reached twice"):
        tree_latency({0: [1], 1: [0]}, 2, 5)
    with pytest.raises(ValueError, match="not reachable"):
        tree_latency({0: [1], 5: [6]}, 2, 5)
    with pytest.raises(ValueError, match="j must have entries"):
        opt_children(9, opt_table(5, 20, 55).j)
    with pytest.raises(ValueError, match=r"j\[3\] must be between 1 and 2"):
        opt_children(3, (0, 0, 1, 3))
    with pytest.raises(ValueError, match="exceeds the table"):
        multiport_children(13, multiport_table(12, 22, 55, 10, 3))
    with pytest.raises(ValueError, match="port 4 would start after the next round"):
        multiport_latency({0: [(1, 4)]}, 22, 55, 10)
    with pytest.raises(ValueError, match="must be an int >= 1"):
        multiport_latency({0: [(1, 0)]}, 22, 55, 10)
