"""collectives.trees.run.execute on a recording communicator (no MPI started): a pipelined
tree (a schedule with a `fragment`) posts its next piece's receive before it waits for the
current piece and forwards it, as Open MPI's tuned chain does; a whole-message tree posts
each receive when it comes to it."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from collectives.trees import run
from collectives.trees.schedules import Recv, build


class _Request:
    def __init__(self, log: list[str], what: str):
        self.log, self.what = log, what


class _Comm:
    """One rank of a communicator: every Irecv and Isend logged by piece (its first byte)."""

    def __init__(self, rank: int, log: list[str]):
        self.rank, self.log = rank, log

    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's name)
        return self.rank

    def Irecv(self, buf: list[Any], source: int, tag: int) -> _Request:  # noqa: N802
        return self._post(f"post recv {buf[0].obj_lo}")

    def Isend(self, buf: list[Any], dest: int, tag: int) -> _Request:  # noqa: N802
        return self._post(f"send {buf[0].obj_lo}")

    def _post(self, what: str) -> _Request:
        if not what.startswith("send"):
            self.log.append(what)
        return _Request(self.log, what)


class _View:
    """Stands in for the buffer's memoryview: a slice remembers where it starts."""

    def __init__(self, n: int, lo: int = 0):
        self.n, self.obj_lo = n, lo

    def cast(self, _fmt: str) -> _View:
        return self

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, s: slice) -> _View:
        return _View(s.stop - s.start, s.start)


@pytest.fixture
def fake_mpi(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """execute's MPI, waits and marks replaced: returns the log of what the rank did."""
    log: list[str] = []
    mpi = types.ModuleType("mpi4py.MPI")
    mpi.BYTE = "BYTE"  # type: ignore[attr-defined]
    package = types.ModuleType("mpi4py")
    package.MPI = mpi  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mpi4py", package)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", mpi)
    monkeypatch.setattr(run, "memoryview", lambda buf: buf, raising=False)
    monkeypatch.setattr(run.waiting, "wait",
                        lambda reqs, *a, **k: log.extend(
                            ("wait " + r.what.replace("post ", "")) if r.what.startswith(
                                "post") else r.what for r in reqs))
    monkeypatch.setattr(run.held, "mark", lambda: None)
    monkeypatch.setattr(run.outqueue, "wait_sent", lambda *a, **k: log.append("left"))
    return log


def test_a_pipelined_node_posts_the_next_pieces_receive_before_it_forwards() -> None:
    prog = build("fragmented-chain", 3, 0, 12, fragment=4).programs[1]
    assert run.next_receives(prog) == {0: 2, 2: 4}
    assert run.next_receives(build("chain", 3, 0, 12).programs[1]) == {}
    assert all(isinstance(prog[i], Recv) for i in (0, 2, 4))


def test_the_fragmented_chain_runs_as_open_mpis_tuned_chain(fake_mpi: list[str]) -> None:
    """A middle node of 3, 3 pieces: piece k+1's receive is posted before piece k is
    waited for and forwarded; send order overlapped: no wait for the link between sends."""
    s = build("fragmented-chain", 3, 0, 12, fragment=4, send_order="overlapped")
    run.execute(s, _View(12), _Comm(1, fake_mpi))
    assert fake_mpi == ["post recv 0", "post recv 4", "wait recv 0", "send 0",
                        "post recv 8", "wait recv 4", "send 4", "wait recv 8", "send 8"]


def test_fifo_waits_for_the_link_between_a_pipelined_nodes_sends(fake_mpi: list[str]) -> None:
    s = build("fragmented-chain", 3, 0, 8, fragment=4)  # send order fifo, the default
    run.execute(s, _View(8), _Comm(1, fake_mpi))
    assert fake_mpi == ["post recv 0", "post recv 4", "wait recv 0", "send 0",
                        "wait recv 4", "left", "send 4"]


def test_a_whole_message_tree_posts_each_receive_when_it_comes_to_it(
        fake_mpi: list[str]) -> None:
    s = build("chain", 3, 0, 8)
    run.execute(s, _View(8), _Comm(1, fake_mpi))
    assert fake_mpi == ["post recv 0", "wait recv 0", "send 0"]
