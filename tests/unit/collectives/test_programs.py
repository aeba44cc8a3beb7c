"""collectives.programs.command: each rank program's argument list is built beside its own
parser and read back by it as given, and an option the program has not is refused: the
testbed never spells a program's flags by hand. A rank's start-up: the programs import no
algorithm family's modules until a call needs them (collectives.executor's runners, the
programs' branches), and look at the multicast channel only where its module is loaded
(peek_stats)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from collectives import programs
from collectives.ipmc import channel
from collectives.programs import command

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("barrier_bench", {"algorithms": ["mpich", "mcast:release=both"], "iters": 30,
                       "nodes": [0, 1, 3], "fattree": (4, 16)},
     {"algorithms": "mpich,mcast:release=both", "iters": 30, "nodes": "0,1,3",
      "fattree": "4,16"}),
    ("multinode_bench", {"torus": (4, 4), "factors": 3.0, "sizes": [4096, 65536], "seed": 2},
     {"torus": "4,4", "factors": "3.0", "sizes": "4096,65536", "seed": 2}),
    ("multinode_bench", {"mesh": (2, 4), "sets": "0:1,2;3:4", "torus": None},
     {"mesh": "2,4", "sets": "0:1,2;3:4", "torus": None}),
    ("osu", {"bench": "bcast", "algorithm": "nack", "records": True, "iterations": None,
             "message_size": "1:1024", "full": False},
     {"bench": "bcast", "algorithm": "nack", "records": True, "iterations": None,
      "message_size": "1:1024", "full": False}),
    ("params", {"sizes": [1, 1024], "repeats": 3, "send_order": "overlapped",
                "budget_bytes": None, "pin_pair": True},
     {"sizes": "1,1024", "repeats": 3, "send_order": "overlapped", "budget_bytes": 8 << 20,
      "pin_pair": True}),
    ("params", {"sizes": [1], "pin_pair": None}, {"sizes": "1", "pin_pair": False}),
    ("pingpong", {"out": "/tmp/pp.jsonl", "lat_bytes": 65536, "bw_bytes": 1 << 20},
     {"out": "/tmp/pp.jsonl", "lat_bytes": 65536, "bw_bytes": 1 << 20}),
    ("naive_bench", {"algorithm": "chain", "size": 1 << 20}, {"algorithm": "chain",
                                                              "size": 1 << 20}),
    ("idle_bench", {"ops": "recv,bcast", "iters": 3, "timer_slack_us": 1000},
     {"ops": "recv,bcast", "iters": 3, "timer_slack_us": 1000.0}),
    ("sweep_bench", {"iters": 6, "interval": 0.25, "label": 1, "armed": True,
                     "nodes": [2, 5], "flow": None},
     {"iters": 6, "interval": 0.25, "label": "1", "armed": True, "nodes": "2,5", "flow": 0,
      "rounds": 1}),
    ("sweep_bench", {"iters": 10, "rounds": 5}, {"iters": 10, "rounds": 5}),
    ("verify", {"sizes": [0, 1], "algorithms": ["nack"], "subsets": True},
     {"sizes": "0,1", "algorithms": "nack", "subsets": True}),
]


@pytest.mark.parametrize(("name", "given", "read"), CASES, ids=[c[0] for c in CASES])
def test_a_programs_argv_is_read_back_by_its_parser(name: str, given: dict[str, Any],
                                                     read: dict[str, Any]) -> None:
    program = importlib.import_module(f"collectives.programs.{name}")
    argv = program.argv(**given)
    assert argv[:2] == ["-m", f"collectives.programs.{name}"]
    args = vars(program.parser().parse_args(argv[2:]))
    assert {k: args[k] for k in read} == read


def test_an_option_the_program_has_not_is_refused() -> None:
    from collectives.programs import pingpong

    with pytest.raises(TypeError, match="collectives.programs.pingpong takes no speed"):
        pingpong.argv(speed=9)
    with pytest.raises(TypeError, match="takes no help"):
        command("x", pingpong.parser(), help=True)


# what one program of the list below, any algorithm, loads
PROGRAMS = ("bcast_bench", "sweep_bench", "naive_bench", "barrier_bench", "params", "verify",
            "allgather_bench", "allgather_check", "osu", "pingpong", "idle_bench")
FAMILIES = ("collectives.trees.", "collectives.contention.", "collectives.range_trees.",
            "collectives.exchanges.", "collectives.partitioning.", "collectives.ipmc.bcast",
            "collectives.ipmc.barrier", "collectives.ipmc.allgather", programs.CHANNEL,
            "mpi4py.MPI")


def test_the_rank_programs_import_no_family_until_a_call_needs_it() -> None:
    """In a fresh interpreter, as a rank starts: every program imported, none of the
    families' modules (nor MPI) is loaded."""
    code = ("import json, sys\n"
            + "".join(f"import collectives.programs.{p}\n" for p in PROGRAMS)
            + "print(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                       text=True, check=True).stdout)
    assert "collectives.programs.bcast_bench" in loaded
    assert [m for m in loaded if m.startswith(FAMILIES)] == []


def test_peek_stats_asks_the_channel_only_where_its_module_is_loaded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert channel.__name__ == programs.CHANNEL
    comm = object()
    seen: list[Any] = []
    monkeypatch.setattr(channel, "peek_stats", lambda c: seen.append(c) or {"sent": 1})
    monkeypatch.setattr(channel, "peek_arrivals", lambda c, after: {after + 1: b"\x01"})
    assert programs.peek_stats(comm) == {"sent": 1} and seen == [comm]
    assert programs.peek_arrivals(comm, 4) == {5: b"\x01"}
    monkeypatch.delitem(sys.modules, programs.CHANNEL)
    assert programs.peek_stats(comm) is None and programs.peek_arrivals(comm, 4) == {}
    assert seen == [comm]
