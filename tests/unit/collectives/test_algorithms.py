"""collectives.algorithms, the one registry: every family runs through its runner (the
allgathers' too), every
scheduled algorithm builds with what it says it needs, names filter by family, an unknown
name lists the choices, and every paper key is in the reference table. The options only some
algorithms take (the multicast barrier's release, the scouts' completion) and their
defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from collectives import executor
from collectives.algorithms import (
    ALLGATHERS,
    BARRIERS,
    BCASTS,
    COMPLETIONS,
    DEFAULT_COMPLETION,
    DEFAULT_RELEASE,
    FAMILIES,
    NATIVE,
    RELEASES,
    allgather_algorithm,
    bcast_algorithm,
    check_completion,
    check_release,
    lookup,
    names,
)
from collectives.executor import barrier_options, bcast_options, check
from collectives.trees.schedules import build


def test_pairwise_is_a_point_to_point_barrier_of_the_registry() -> None:
    """MPICH 1's barrier exchanges pairwise (the family "exchange"), apart from the software
    tree (the family "tree"): a family names each barrier the testbed compares."""
    a = BARRIERS["pairwise"]
    assert (a.family, a.paper, a.collective) == ("exchange", "Chen2000", "barrier")
    assert names("tree", collective="barrier") == ("tree",)
    assert "pairwise" in names(collective="barrier") and not a.release
    assert barrier_options("pairwise", {"timeout": 1.0, "release": "both"}) == {}


# ---- the multicast barrier's release ------------------------------------------------------
def test_release_both_by_default_and_only_the_multicast_barrier_takes_one() -> None:
    assert DEFAULT_RELEASE == "both" and set(RELEASES) == {"both", "multicast"}
    assert check_release("multicast") == "multicast"
    assert [n for n, a in BARRIERS.items() if a.release] == ["mcast"]
    assert barrier_options("mcast", {"release": "multicast", "timeout": 2.0,
                                     "fragment": 9}) == {"release": "multicast",
                                                         "timeout": 2.0}
    # one set of options serves both collectives in the drop-in: no broadcast sees it
    assert bcast_options("nack", {"release": "multicast", "timeout": 2.0}) == {"timeout": 2.0}


def test_the_drop_in_gives_a_broadcast_only_its_own_options() -> None:
    """One set of options serves the three collectives of the drop-in (Intracomm,
    collectives.use, mcastlab mpirun -o): each is given those `mcastlab algorithms` lists
    for it, so a barrier's layout never reaches the broadcast, and an option none of the
    three takes is refused before any message."""
    layout = {"nodes": (0, 1, 2, 3), "fattree": (4, 4)}
    assert bcast_options("binomial", {**layout, "timeout": 2.0, "send_order": "overlapped",
                                      "release": "both"}) == {"send_order": "overlapped"}
    assert bcast_options("dyn-tree", {"t_hs": 1.0, "t_rd": 0.0, "rate": 1}) == {
        "t_hs": 1.0, "t_rd": 0.0}
    # the range-tree barrier's layout beside nack: the barrier's alone (nack refused it)
    bcast, barrier, _ = check("nack", "range-tree", 4, layout)
    assert (bcast.name, barrier.name) == ("nack", "range-tree")
    assert barrier_options("range-tree", {**layout, "send_order": "fifo"}) == layout
    with pytest.raises(ValueError, match="timeout: an option of none of binomial, tree and "
                                         "mpich"):
        check("binomial", "tree", 4, {"timeout": 2.0})


GEOMETRY = {"mesh": (2, 4), "torus": (2, 4), "bmin": (2, 3)}


def test_every_family_runs() -> None:
    assert {a.family for a in BCASTS.values()} <= FAMILIES.keys()
    assert {a.family for a in BCASTS.values()} == executor.RUNNERS.keys()
    assert {a.family for a in BARRIERS.values()} == executor.BARRIER_RUNNERS.keys()
    assert {a.family for a in ALLGATHERS.values()} == executor.ALLGATHER_RUNNERS.keys()


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
    assert names(collective="allgather") == ("mpich", "ring", "recursive-doubling", "bruck",
                                             "mcast-sequential", "mcast-concurrent")
    assert names("multicast", collective="allgather") == ("mcast-sequential",
                                                          "mcast-concurrent")
    assert names("exchange", collective="allgather") == ("ring", "recursive-doubling", "bruck")
    with pytest.raises(ValueError, match="collective must be one of bcast, barrier, allgather"):
        names(collective="allreduce")


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown broadcast 'fast'; choose from mpich, "):
        bcast_algorithm("fast")
    with pytest.raises(ValueError, match="unknown barrier 'fast'; choose from mpich, tree"):
        lookup("barrier", "fast")
    with pytest.raises(ValueError, match=r"unknown broadcast \['x'\]"):
        lookup("bcast", ["x"])  # unhashable: the same message
    with pytest.raises(ValueError, match="unknown allgather 'fast'; choose from mpich, ring, "
                                         "recursive-doubling, bruck"):
        allgather_algorithm("fast")


def test_the_allgathers_are_their_own_and_need_nothing() -> None:
    """No allgather takes the broadcast's model, a network shape or a send order, and none
    is a broadcast's or a barrier's record (names may repeat across collectives: mpich)."""
    assert ALLGATHERS["mpich"] is not BCASTS["mpich"] and ALLGATHERS["mpich"].family == "mpi"
    assert [a.paper for a in ALLGATHERS.values()] == ["", "Thakur2005", "Thakur2005",
                                                      "Bruck1997", "", ""]  # ours: no paper
    for a in ALLGATHERS.values():
        assert not (a.timing or a.geometry or a.nodes or a.send_order or a.scheduled
                    or a.completion or a.release or a.model_tree), a


def test_every_paper_key_is_in_the_reference_table() -> None:
    from testbed.labs import labs

    table = (Path(__file__).resolve().parents[3] / "docs" / "references.md").read_text()
    keys = {a.paper for a in (*BCASTS.values(), *BARRIERS.values(), *ALLGATHERS.values())
            if a.paper}
    keys |= {word.strip(",()") for lab in labs().values() for word in lab.paper.split()
             if word[:1].isupper() and word[-4:].isdigit()}
    # Tseng2001 has no broadcast or lab of its own: its plans run as a benchmark
    # Thakur2005 and Bruck1997: the point-to-point allgathers
    assert keys == {"Nupairoj1998", "Coll2003", "Siebert2006", "Chen2000", "Thakur2005",
                    "Bruck1997"}
    for key in (*keys, "Tseng2001"):
        assert f"| [{key}] |" in table


def test_resolve_passes_a_record_through_and_looks_a_name_up() -> None:
    from collectives.algorithms import resolve

    assert resolve("bcast", "opt-mesh") is BCASTS["opt-mesh"] and BCASTS["opt-mesh"].nodes
    assert resolve("barrier", BARRIERS["range-tree"]) is BARRIERS["range-tree"]
    with pytest.raises(ValueError, match="bruck is a allgather, not a broadcast"):
        resolve("bcast", ALLGATHERS["bruck"])
    with pytest.raises(ValueError, match="unknown broadcast 'bruck'"):
        resolve("bcast", "bruck")  # not a broadcast
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


def test_completions_report_by_default_and_only_the_scouts_take_one() -> None:
    assert DEFAULT_COMPLETION == "report" and set(COMPLETIONS) == {"report", "none"}
    assert check_completion("none") == "none"
    with pytest.raises(ValueError, match="completion must be one of report, none, got 'x'"):
        check_completion("x")
    assert [a for a in names() if BCASTS[a].completion] == ["scout-linear", "scout-binary"]
