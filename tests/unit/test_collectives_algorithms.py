"""The algorithm registry is the one list: every record runs through its family's runner,
every scheduled one builds a schedule, and what a record says it needs is what building it
takes."""

from __future__ import annotations

import pytest

from collectives import executor
from collectives.algorithms import (
    BARRIERS,
    BCASTS,
    FAMILIES,
    NATIVE,
    bcast_algorithm,
    names,
)
from collectives.trees.schedules import build

GEOMETRY = {"mesh": (2, 4), "torus": (2, 4), "bmin": (2, 3)}


def test_every_family_runs() -> None:
    assert {a.family for a in BCASTS.values()} <= FAMILIES.keys()
    assert {a.family for a in BCASTS.values()} == executor.RUNNERS.keys()
    assert {a.family for a in BARRIERS.values()} == executor.BARRIER_RUNNERS.keys()


@pytest.mark.parametrize("name", [n for n, a in BCASTS.items() if a.scheduled])
def test_every_scheduled_algorithm_builds_with_what_it_says_it_needs(name: str) -> None:
    a = BCASTS[name]
    params: dict = {}
    if a.timing:
        params |= {"t_hold": 20e-6, "t_end": 55e-6}
    if a.geometry:
        params[a.geometry] = GEOMETRY[a.geometry]
    s = build(name, 8, 0, 4096, **params)
    assert s.algorithm == name and len(s.programs) == 8
    if a.timing and a.family == "tree":  # without its timing it cannot be built
        with pytest.raises(ValueError, match="t_hold"):
            build(name, 8, 0, 4096)


def test_the_mpi_librarys_own_has_no_schedule() -> None:
    assert not BCASTS[NATIVE].scheduled
    with pytest.raises(ValueError, match="no schedule"):
        build(NATIVE, 4)


def test_names_filter_by_family_in_the_registrys_order() -> None:
    assert names() == tuple(BCASTS)
    assert names("multicast") == ("two-stage", "nack", "scout-linear", "scout-binary")
    assert names("mpi", "tree")[:3] == (NATIVE, "sequential", "binomial")
    assert names(collective="barrier") == tuple(BARRIERS)


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown algorithm 'fast'; choose from mpich, "):
        bcast_algorithm("fast")


def test_every_paper_key_is_in_the_reference_table() -> None:
    from pathlib import Path

    from testbed.labs import labs

    table = (Path(__file__).resolve().parents[2] / "docs" / "references.md").read_text()
    keys = {a.paper for a in (*BCASTS.values(), *BARRIERS.values()) if a.paper}
    keys |= {word.strip(",()") for lab in labs().values() for word in lab.paper.split()
             if word[:1].isupper() and word[-4:].isdigit()}
    # Tseng2001 has no broadcast or lab of its own: its plans run as a benchmark
    assert keys == {"Nupairoj1998", "Coll2003", "Siebert2006", "Chen2000"}
    for key in (*keys, "Tseng2001"):
        assert f"| [{key}] |" in table


def test_known_gives_a_record_that_needs_nothing_for_an_unknown_name() -> None:
    from collectives.algorithms import UNKNOWN, known

    assert known("opt-mesh") is BCASTS["opt-mesh"] and known("opt-mesh").nodes
    assert known("range-tree", "barrier") is BARRIERS["range-tree"]
    assert known("fast") is UNKNOWN
    assert not (UNKNOWN.family or UNKNOWN.timing or UNKNOWN.nodes or UNKNOWN.model_tree)
    assert [n for n, a in BCASTS.items() if a.model_tree] == [
        *names("tree"), "dyn-tree"]  # dyn-mesh is placed on a mesh, as opt-mesh is


def test_a_dynamic_tree_names_the_scheduled_tree_it_builds_at_zero_load() -> None:
    for a in BCASTS.values():
        if a.family == "dynamic":  # dyn-tree: opt-tree; dyn-mesh: opt-mesh, on the same mesh
            s = BCASTS[a.zero_load]
            assert s.scheduled and s.timing and s.geometry == a.geometry and a.timing
        else:
            assert not a.static and a.zero_load == a.name
    assert BCASTS["dyn-mesh"].nodes and not BCASTS["dyn-mesh"].model_tree
