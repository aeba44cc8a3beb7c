"""testbed.cli.catalog, without root: `mcastlab algorithms` lists every registry entry with
its family, paper, options and their defaults and its MPICH / Open MPI / SimGrid names; NAME
shows one in full; --json says everything; a name it lacks is one error line."""

from __future__ import annotations

import json

from collectives import catalog
from collectives.algorithms import (
    ALLGATHERS,
    BARRIERS,
    BCASTS,
    COLLECTIVES,
    ELSEWHERE,
    LIBRARIES,
    mpich_function,
)
from testbed.cli.catalog import LIBRARY_TITLES, wrap
from testbed.cli.main import main


def rows_of(out: str) -> dict[tuple[str, str], str]:
    """(name, collective) -> its row with the option lines below it joined on."""
    rows: dict[tuple[str, str], str] = {}
    key = None
    for line in out.splitlines()[2:]:
        if not line.strip():
            break
        if not line.startswith(" "):
            name, collective = line.split()[:2]
            key = (name, collective)
            rows[key] = line
        elif key is not None:
            rows[key] += " " + line.strip()
    return rows


def test_the_table_has_every_entry_with_its_options_defaults(capsys):
    assert main(["algorithms"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:4] == ["name", "collective", "family", "paper"]
    rows = rows_of(out)
    assert set(rows) == {(n, c) for c, records in COLLECTIVES.items() for n in records}
    for (name, collective), row in rows.items():
        alg = COLLECTIVES[collective][name]
        assert alg.family in row.split()[2]
        for o in catalog.options(alg):
            assert f"{o.name}={o.short}" in row, (name, o.name, row)
    assert "basic_linear" in rows[("sequential", "bcast")]
    assert "~pipelined_tree" in rows[("fragmented-chain", "bcast")]  # only the closest
    assert "fragment=8192" in rows[("fragmented-chain", "bcast")]
    for text in LIBRARIES.values():  # where the names come from
        assert text in out


def test_collective_keeps_to_one(capsys):
    assert main(["algorithms", "--collective", "barrier"]) == 0
    assert {c for _, c in rows_of(capsys.readouterr().out)} == {"barrier"}
    assert main(["algorithms", "--collective", "allgather"]) == 0
    assert [n for n, _ in rows_of(capsys.readouterr().out)] == [
        "mpich", "ring", "recursive-doubling", "bruck", "mcast-sequential", "mcast-concurrent"]


def test_one_in_full(capsys):
    assert main(["algorithms", "scout-binary"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("scout-binary (bcast): ")
    assert "paper     Chen2000" in out
    assert "completion = report: how the receivers end it: report or none" in out
    assert "MPICH     -" in out
    assert main(["algorithms", "range-tree"]) == 0  # a broadcast and a barrier
    out = capsys.readouterr().out
    assert "range-tree (bcast)" in out and "range-tree (barrier)" in out
    assert main(["algorithms", "pairwise"]) == 0
    assert "Open MPI  recursive_doubling: MPICH 1's" in capsys.readouterr().out


def test_json_says_everything(capsys):
    assert main(["algorithms", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["libraries"] == LIBRARIES
    assert len(d["algorithms"]) == sum(len(records) for records in COLLECTIVES.values())
    assert d["algorithms"] == [catalog.entry(a) for a in catalog.table()]
    assert main(["algorithms", "mcast", "--json"]) == 0
    (one,) = json.loads(capsys.readouterr().out)["algorithms"]
    assert [(o["name"], o["default"]) for o in one["options"]] == [("timeout", 60.0),
                                                                     ("release", "both")]


def test_an_unknown_name_is_one_error_line(capsys):
    assert main(["algorithms", "fastest"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == ("mcastlab: error: unknown algorithm 'fastest'; choose from "
                           + ", ".join(dict.fromkeys([*BCASTS, *BARRIERS, *ALLGATHERS]))
                           + " (or its name in MPICH, Open MPI or SimGrid)")
    assert main(["algorithms", "binomial", "--collective", "barrier"]) == 2
    assert "unknown algorithm 'binomial'" in capsys.readouterr().err


def test_wrap_keeps_each_option_whole():
    assert wrap(["a=1", "rate=link rate", "b=2"], width=16) == ["a=1,", "rate=link rate,",
                                                                 "b=2"]
    assert wrap([]) == []


def test_an_algorithm_is_found_by_every_name_another_library_gives_it(capsys):
    """Each name of the registry's table of foreign names (ELSEWHERE; MPICH's also as its
    MPIR_<Coll>_intra_<value> function) shows our algorithm, saying whose name it is."""
    checked = 0
    for (collective, ours), there in ELSEWHERE.items():
        for library, e in there.items():
            names = [e.name] + ([mpich_function(collective, e.name)] if library == "mpich"
                                else [])
            for name in names:
                assert main(["algorithms", name, "--collective", collective]) == 0, name
                out = capsys.readouterr().out
                assert f"\n{ours} ({collective}): " in "\n" + out
                checked += 1
                if name in COLLECTIVES[collective]:
                    continue  # ours too (ring, binomial, mpich): shown as ours
                assert f"{name}: {LIBRARY_TITLES[library]}'s " in out
                assert f"for ours, {ours}" + ("" if e.same else " (only the closest") in out
    assert checked == 42  # 33 names, MPICH's 9 also as functions
    for name, ours in [("flattree", "sequential"), ("binomial_tree", "binomial"),
                       ("MPIR_Bcast_intra_binomial", "binomial"), ("BRUCKS", "bruck"),
                       ("scatter_ring_allgather", "scatter-allgather")]:
        assert main(["algorithms", name]) == 0
        assert f"for ours, {ours}" in capsys.readouterr().out, name
    assert main(["algorithms", "binomial"]) == 0  # ours first: no foreign line
    assert "'s name" not in capsys.readouterr().out


def test_the_multicast_allgathers_list_the_options_every_entry_point_gives_them(capsys):
    assert main(["algorithms", "mcast-concurrent"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("    ")] == [
        "fragment", "rate", "timeout", "rcvbuf"]
    assert main(["algorithms", "ring"]) == 0
    assert "  options   none" in capsys.readouterr().out
    assert main(["algorithms"]) == 0
    assert "one set serves the three, each given those\n  listed here for it" in \
        capsys.readouterr().out
