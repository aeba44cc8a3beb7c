"""collectives.catalog (and the names of collectives.algorithms.ELSEWHERE): every registry
entry described with its options and their defaults, each option one the executor's check
takes, and the MPICH / Open MPI / SimGrid names only for entries that exist and only names
those libraries have, as docs/algorithms.md lists them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from collectives import catalog
from collectives.algorithms import ALLGATHERS, BARRIERS, BCASTS, COLLECTIVES, ELSEWHERE, LIBRARIES
from collectives.executor import (
    barrier_options,
    bcast_takes,
    check_allgather,
    check_barrier,
    check_bcast,
)
from collectives.ipmc.message import Options
from collectives.range_trees.bcast import RangeOptions
from collectives.trees.schedules import DEFAULT_FRAGMENT

# The names each library has, as its sources list them (docs/algorithms.md cites them):
# MPICH 4's MPIR_CVAR_{BCAST,BARRIER}_INTRA_ALGORITHM, Open MPI coll/tuned's forced
# algorithms, SimGrid's docs/source/app_smpi.rst.
KNOWN = {
    ("bcast", "mpich"): {"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                         "scatter_ring_allgather", "pipelined_tree", "tree"},
    ("barrier", "mpich"): {"auto", "nb", "smp", "k_dissemination", "recexch"},
    ("bcast", "openmpi"): {"basic_linear", "chain", "pipeline", "split_binary_tree",
                           "binary_tree", "binomial", "knomial", "scatter_allgather",
                           "scatter_allgather_ring"},
    ("barrier", "openmpi"): {"linear", "double_ring", "recursive_doubling", "bruck",
                             "two_proc", "tree"},
    ("bcast", "simgrid"): {"default", "ompi", "mpich", "mvapich2", "impi", "automatic",
                           "arrival_pattern_aware", "arrival_pattern_aware_wait",
                           "binomial_tree", "flattree", "flattree_pipeline", "NTSB", "NTSL",
                           "NTSL_Isend", "scatter_LR_allgather", "scatter_rdb_allgather",
                           "arrival_scatter", "SMP_binary", "SMP_binomial", "SMP_linear",
                           "ompi_split_bintree", "ompi_pipeline", "mvapich2_inter_node",
                           "mvapich2_intra_node", "mvapich2_knomial_intra_node"},
    ("barrier", "simgrid"): {"default", "ompi", "mpich", "mvapich2", "impi", "automatic",
                             "ompi_basic_linear", "ompi_two_procs", "ompi_bruck",
                             "ompi_recursivedoubling", "ompi_tree", "ompi_doublering",
                             "mvapich2_pair", "mpich_smp"},
    # MPICH 4's MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM, Open MPI's coll_tuned_allgather_algorithm,
    # SimGrid's smpi/allgather
    ("allgather", "mpich"): {"auto", "brucks", "k_brucks", "nb", "recursive_doubling", "ring",
                             "recexch_doubling", "recexch_halving"},
    ("allgather", "openmpi"): {"linear", "bruck", "recursive_doubling", "ring", "neighbor",
                               "two_proc", "sparbit", "direct_messaging"},
    ("allgather", "simgrid"): {"default", "ompi", "mpich", "mvapich2", "impi", "automatic",
                               "2dmesh", "3dmesh", "bruck", "GB", "loosely_lr", "NTSLR",
                               "NTSLR_NB", "pair", "rdb", "rhv", "ring", "SMP_NTS",
                               "smp_simple", "spreading_simple", "ompi_neighborexchange",
                               "mvapich2_smp"},
}

# a value each option can take on 4 ranks (nodes 0..3), for those without a plain default
SAMPLES = {"t_hold": 1e-5, "t_end": 3e-5, "mesh": [2, 2], "torus": [2, 2], "bmin": [2, 2],
           "nodes": [0, 1, 2, 3], "fattree": [4, 4], "fragment": 1000, "rate": 1e6}
DYN = {"t_hs": 1e-5, "t_hd": 0.0, "t_ns": 0.0, "t_nd": 0.0, "t_rs": 2e-5, "t_rd": 0.0}


def given(option: catalog.Option) -> dict:
    if option.name == "t_hs..t_rd":
        return dict(DYN)
    if option.name in SAMPLES:
        return {option.name: SAMPLES[option.name]}
    assert option.default not in (None, catalog.REQUIRED), option
    return {option.name: option.default}


def test_every_registry_entry_is_in_the_table_in_its_order():
    assert [(a.collective, a.name) for a in catalog.table()] == [
        *(("bcast", n) for n in BCASTS), *(("barrier", n) for n in BARRIERS),
        *(("allgather", n) for n in ALLGATHERS)]
    assert [a.name for a in catalog.table("barrier")] == list(BARRIERS)
    assert [a.name for a in catalog.table("allgather")] == list(ALLGATHERS)
    with pytest.raises(ValueError, match="collective must be one of bcast, barrier, allgather"):
        catalog.table("allreduce")


@pytest.mark.parametrize("alg", catalog.table(), ids=lambda a: f"{a.collective}-{a.name}")
def test_every_option_listed_is_one_the_executor_takes(alg):
    opts = catalog.options(alg)
    assert len({o.name for o in opts}) == len(opts)
    values: dict = {}
    for o in opts:
        values |= given(o)
    if alg.collective == "bcast":
        check_bcast(alg.name, 4, values)  # no ValueError: every option taken together
    elif alg.collective == "allgather":
        check_allgather(alg.name, values)
    else:
        assert barrier_options(alg.name, values) == values  # none left out
        check_barrier(alg.name, values)


@pytest.mark.parametrize("alg", catalog.table("bcast"), ids=lambda a: a.name)
def test_the_drop_in_gives_a_broadcast_the_options_listed(alg):
    """What `mcastlab algorithms` lists for a broadcast is what the drop-in hands it of the
    options it shares with the barrier and the allgather (executor.bcast_takes, kept light
    for a rank's start-up), no more, no less."""
    assert bcast_takes(alg) == catalog.taken(alg)


def test_defaults_are_the_codes_own():
    def default(alg, name):
        return next(o for o in catalog.options(alg) if o.name == name)

    assert default(BCASTS["fragmented-chain"], "fragment").default == DEFAULT_FRAGMENT
    assert default(BCASTS["binomial"], "send_order").default == "fifo"
    assert default(BCASTS["scout-binary"], "completion").default == "report"
    assert default(BARRIERS["mcast"], "release").default == "both"
    assert default(BCASTS["nack"], "timeout").default == Options.__dataclass_fields__[
        "timeout"].default
    assert [o.name for o in catalog.options(BCASTS["range-tree"])] == [
        f.name for f in dataclasses.fields(RangeOptions)]
    # the timing parameters are required (measured where they are not given)
    assert default(BCASTS["opt-tree"], "t_hold").to_dict()["required"]
    assert catalog.options(BCASTS["mpich"]) == catalog.options(BARRIERS["tree"]) == ()
    # crossover only where it means something: the two-stage broadcast
    assert "crossover_nodes" in {o.name for o in catalog.options(BCASTS["two-stage"])}
    assert "crossover_nodes" not in {o.name for o in catalog.options(BCASTS["nack"])}


def test_entry_is_json_with_every_field():
    e = catalog.entry(BCASTS["fragmented-chain"])
    assert (e["family"], e["paper"], e["collective"]) == ("tree", "Siebert2006", "bcast")
    assert {o["name"]: o["default"] for o in e["options"]} == {"send_order": "fifo",
                                                                "fragment": DEFAULT_FRAGMENT}
    assert e["elsewhere"]["openmpi"] == {"name": "pipeline", "same": True,
                                         "note": e["elsewhere"]["openmpi"]["note"]}
    assert set(e["elsewhere"]) == set(LIBRARIES)
    assert catalog.entry(BCASTS["opt-tree"])["elsewhere"] == dict.fromkeys(LIBRARIES)


def test_the_foreign_names_refer_to_entries_and_names_that_exist():
    for (collective, name), there in ELSEWHERE.items():
        assert name in COLLECTIVES[collective], name
        for lib, e in there.items():
            assert lib in LIBRARIES
            assert e.name in KNOWN[(collective, lib)], (collective, name, lib, e.name)
            assert e.same or e.note, f"{name} in {lib}: say how it is only the closest"


def test_the_names_the_issue_gives():
    def there(name, lib, collective="bcast"):
        return ELSEWHERE[(collective, name)][lib]

    assert there("sequential", "openmpi").name == "basic_linear"
    assert there("sequential", "simgrid").name == "flattree"
    assert there("fragmented-chain", "openmpi").name == "pipeline"
    assert there("scatter-allgather", "mpich").name == "scatter_ring_allgather"
    assert there("scatter-allgather", "simgrid").name == "scatter_LR_allgather"
    assert there("pairwise", "openmpi", "barrier").name == "recursive_doubling"
    assert [there(n, "mpich", "allgather").name for n in ("ring", "recursive-doubling",
                                                          "bruck")] == [
        "ring", "recursive_doubling", "brucks"]
    assert there("recursive-doubling", "simgrid", "allgather").name == "rdb"
    # no library broadcasts over IP multicast or builds the model's trees
    assert not any((c, n) in ELSEWHERE for c, n in [("bcast", "nack"), ("bcast", "opt-tree"),
                                                     ("barrier", "mcast")])


def test_lookup_by_name_finds_both_collectives():
    assert [a.collective for a in catalog.lookup("range-tree")] == ["bcast", "barrier"]
    assert [a.collective for a in catalog.lookup("mpich", "barrier")] == ["barrier"]
    assert [a.collective for a in catalog.lookup("mpich")] == ["bcast", "barrier", "allgather"]
    with pytest.raises(ValueError, match="unknown algorithm 'binomial'; choose from mpich, "):
        catalog.lookup("binomial", "barrier")


def test_the_docs_table_of_foreign_names_agrees():
    """docs/algorithms.md copies the names as prose: the same names, the same 'closest'."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "algorithms.md").read_text()
    table = text[text.index("| here | MPICH |"):].split("\n\n")[0].splitlines()[2:]
    said = {}
    for line in table:
        here, *cells = (c.strip() for c in line.strip("|").split("|"))
        name = re.search(r"`([^`]+)`", here).group(1)
        collective = next((c for c in ("barrier", "allgather") if f"({c})" in here), "bcast")
        said[(collective, name)] = {
            lib: (re.search(r"`([^`]+)`", cell).group(1), not cell.startswith("closest"))
            for lib, cell in zip(LIBRARIES, cells, strict=True) if cell}
    assert said == {key: {lib: (e.name, e.same) for lib, e in there.items()}
                    for key, there in ELSEWHERE.items()}
