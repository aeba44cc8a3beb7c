"""A rank's start-up: the rank programs import no algorithm family's modules until a call
needs them (collectives.executor's runners, the programs' branches), and the programs look
at the multicast channel only where its module is loaded (collectives.programs.peek_stats)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from collectives import programs
from collectives.ipmc import channel

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
