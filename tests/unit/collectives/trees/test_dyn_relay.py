"""collectives.trees.dyn_bcast's protocol on recording communicators (no MPI started): a
relay, which does not know its parent, probes for a message from any source with the
broadcast's tag, then receives the whole message (its part's far end in front of the data)
from the sender the probe found; no receive from any source is ever posted (on MPICH 5's
ch4:ucx such receives lost messages: the comment in dyn_bcast.bcast). The messages the ranks
pass round build the tree `forwards` says and deliver the data."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from collectives.trees import dyn_bcast
from collectives.trees.dyn_bcast import HEADER, TAG_BASE, bcast, chain, forwards, last_parent
from collectives.trees.dyntree import StaticParams

ANY = -1


class _Status:
    def __init__(self) -> None:
        self.source: int | None = None

    def Get_source(self) -> int:  # noqa: N802 (mpi4py's name)
        assert self.source is not None
        return self.source


class _Request:
    def __init__(self, comm: _Comm, kind: str, buf: Any, peer: int, tag: int):
        self.comm, self.kind, self.buf, self.peer, self.tag = comm, kind, buf, peer, tag

    def complete(self, status: _Status | None) -> bool:
        """A send is done at once (eager); a receive once its message is in the mailbox."""
        c = self.comm
        c.log.append(f"test {self.kind}")
        if self.kind == "send":
            return True
        got = c.mailbox.get(c.rank)
        if got is None:
            return False
        source, tag, data = got
        assert self.peer in (ANY, source) and self.tag == tag and len(self.buf[0]) == len(data)
        self.buf[0][:] = data
        if status is not None:
            status.source = source
        return True


class _Comm:
    """One rank: its MPI calls logged; sends land in the shared mailbox (a rank gets one
    message a broadcast)."""

    def __init__(self, rank: int, size: int, mailbox: dict[int, tuple[int, int, bytes]]):
        self.rank, self.size, self.mailbox = rank, size, mailbox
        self.log: list[str] = []

    def Get_rank(self) -> int:  # noqa: N802
        return self.rank

    def Get_size(self) -> int:  # noqa: N802
        return self.size

    def py2f(self) -> int:
        return 1000 + self.rank  # each rank its own broadcast count and send costs

    def Irecv(self, buf: list[Any], source: int, tag: int) -> _Request:  # noqa: N802
        self.log.append(f"post recv from {'any' if source == ANY else source} "
                        f"tag {tag} {len(buf[0])} B")
        return _Request(self, "recv", buf, source, tag)

    def Isend(self, buf: list[Any], dest: int, tag: int) -> _Request:  # noqa: N802
        data = bytes(buf[0])
        self.log.append(f"send to {dest} far {int.from_bytes(data[:HEADER], 'little')}")
        assert dest not in self.mailbox
        self.mailbox[dest] = (self.rank, tag, data)
        return _Request(self, "send", buf, dest, tag)

    def Iprobe(self, source: int, tag: int, status: _Status) -> bool:  # noqa: N802
        self.log.append(f"probe from {'any' if source == ANY else source} tag {tag}")
        got = self.mailbox.get(self.rank)
        if got is None or got[1] != tag:
            return False
        status.source = got[0]
        return True


def _testall(requests: list[_Request], statuses: list[_Status] | None = None) -> bool:
    return all([r.complete(statuses[i] if statuses else None)
                for i, r in enumerate(requests)])


@pytest.fixture
def fake_mpi(monkeypatch: pytest.MonkeyPatch) -> None:
    mpi = types.ModuleType("mpi4py.MPI")
    mpi.BYTE, mpi.ANY_SOURCE, mpi.Status = "BYTE", ANY, _Status  # type: ignore[attr-defined]
    mpi.Request = types.SimpleNamespace(Testall=_testall)  # type: ignore[attr-defined]
    package = types.ModuleType("mpi4py")
    package.MPI = mpi  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mpi4py", package)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", mpi)
    monkeypatch.setattr(dyn_bcast.waiting, "MODE", "block")
    monkeypatch.setattr(dyn_bcast.outqueue, "wait_sent", lambda *a, **k: None)
    for state in ("_SEQ", "_COST", "_PARENT"):  # broadcast counts, send costs, parents
        monkeypatch.setattr(dyn_bcast, state, {})


@pytest.mark.parametrize("root", [0, 3])
def test_a_relay_probes_any_source_then_receives_from_its_parent(fake_mpi: None,
                                                                 root: int) -> None:
    """8 ranks, 5 bytes, the static estimates everywhere (hold 20, end 55: OPT-Tree's flat
    root). The root runs first; then every rank whose message has come, as it comes."""
    size, data = 8, b"hello"
    params = StaticParams(20, 0, 0, 0, 35, 0)
    mailbox: dict[int, tuple[int, int, bytes]] = {}
    comms = [_Comm(r, size, mailbox) for r in range(size)]
    bufs = [bytearray(data) if r == root else bytearray(len(data)) for r in range(size)]
    todo = [root]
    while todo:
        r = todo.pop(0)
        bcast(bufs[r], root, comms[r], params, send_order="overlapped")
        todo += [int(line.split()[2]) for line in comms[r].log if line.startswith("send")]
    assert all(b == data for b in bufs)
    order = chain("dyn-tree", size, root, {})
    parents = {r: last_parent(comms[r]) for r in range(size)}
    pos = {r: i for i, r in enumerate(order)}
    todo_parts = [(root, 0, size - 1)]
    want: dict[int, int | None] = {root: None}
    while todo_parts:
        r, lo, hi = todo_parts.pop()
        for child, far in forwards(order, pos[r], lo, hi, 20, 55):
            want[child] = r
            todo_parts.append((child, min(pos[child], far), max(pos[child], far)))
    assert parents == want and len(want) == size
    assert sum(p == root for p in want.values()) >= 2  # a flat root, not a chain
    for r in range(size):
        log = comms[r].log
        if r == root:
            assert not any(line.startswith("post") for line in log)
            continue
        # first the probe (the message was there), then the receive from the sender it
        # found, for the header and the data, then the sends to its children
        assert log[:3] == [f"probe from any tag {TAG_BASE}",
                           f"post recv from {want[r]} tag {TAG_BASE} {HEADER + len(data)} B",
                           "test recv"], log
        assert all(line.startswith(("send", "test send")) for line in log[3:]), log
        assert not any(line.startswith("post recv from any") for line in log)
