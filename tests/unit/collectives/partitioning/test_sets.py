"""collectives.partitioning.sets: sets given by hand, as text or a mapping (a TOML table),
read with nodes by number or host name, written back, and every fault refused with its own
message."""

from __future__ import annotations

import pytest

from collectives.partitioning.grid import Mesh, Torus
from collectives.partitioning.sets import (
    check_sets,
    node_of,
    parse_sets,
    sets_of_mapping,
    sets_text,
)

M = Mesh(4, 4)


def test_text_by_number_or_name_sorted_in_the_order_given():
    pairs = parse_sets(" h3 : 4,h6, 7 ;0:5,2,1; ", M)
    assert pairs == [(3, (4, 6, 7)), (0, (1, 2, 5))]
    assert sets_text(pairs) == "3:4,6,7;0:1,2,5"
    assert parse_sets(sets_text(pairs), M) == pairs


def test_a_mapping_as_toml_gives_it():
    assert sets_of_mapping({"h0": ["h1", 2, "5"], "3": [4, 6, 7]}, M) == \
        [(0, (1, 2, 5)), (3, (4, 6, 7))]
    with pytest.raises(ValueError, match="sets.h0: a list of destinations, got 'h1'"):
        sets_of_mapping({"h0": "h1"}, M)


def test_node_of():
    assert node_of(3, M, "x") == node_of("3", M, "x") == node_of(" h3", M, "x") == 3
    for bad in ("h16", 16, -1, "03", "host3", True, None, 2.0):
        with pytest.raises(ValueError, match=r"x: .* is not a node of the 4x4 mesh \(0..15 or "
                                             r"h0..h15\)"):
            node_of(bad, M, "x")


@pytest.mark.parametrize("text,needle", [
    ("0:1;2:h16", r"set 2 \(source 2\): 'h16' is not a node of the 4x4 torus"),
    ("x:1", "set 1: 'x' is not a node"),
    ("0:1,0", "set 1: source 0 lists itself as a destination"),
    ("0:1,h1,2,2", r"set 1 \(source 0\): destination 1 given twice"),
    ("0:1;h0:2", "set 2: source 0 already has set 1; give each source one set"),
    ("0:", "set 1: source 0 has no destinations"),
    ("0: , ", "set 1: source 0 has no destinations"),
    ("0-1", r"set 1 \('0-1'\): write SOURCE:DEST,DEST,...;SOURCE:DEST,... \(nodes by number "
            r"or name, 3 or h3\)"),
    (":1", "set 1 .*: write SOURCE:DEST"),
    ("", "give at least one set"),
    (" ; ;", "give at least one set"),
])
def test_every_fault_has_its_own_message(text, needle):
    with pytest.raises(ValueError, match=needle):
        parse_sets(text, Torus(4, 4))


def test_check_sets_takes_pairs():
    assert check_sets(M, [(0, [3, 1])]) == [(0, (1, 3))]
    with pytest.raises(ValueError, match="give at least one set"):
        check_sets(M, [])
