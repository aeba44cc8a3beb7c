"""collectives.trees.dyn_bcast against Nupairoj1998's section 6.3: its static terms, given or
from t_hold and t_end; at equal estimates DYN-Mesh builds OPT-Mesh's tree and DYN-Tree the
chain from the root; as load evens out hold and end, DYN-Mesh halves as U-Mesh does. A
layout that does not fit is refused. The relay's protocol on recording communicators (no MPI
started): it probes for a message from any source with the broadcast's tag, then receives
the whole message (its part's far end in front of the data) from the sender the probe found;
no receive from any source is ever posted (on MPICH 5's ch4:ucx such receives lost messages:
the comment in dyn_bcast.bcast)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from collectives.opttree import opt_children, opt_table, tree_latency
from collectives.trees import dyn_bcast
from collectives.trees.dyn_bcast import HEADER, TAG_BASE, bcast, chain, forwards, last_parent
from collectives.trees.dyntree import StaticParams


def test_static_terms_are_given_or_come_from_hold_and_end():
    from collectives.trees.dyn_bcast import static_params

    given = {"t_hs": 5e-6, "t_hd": 1e-9, "t_ns": 30e-6, "t_nd": 8e-8, "t_rs": 0.0, "t_rd": 2e-9}
    assert static_params(given) == StaticParams(5e-6, 1e-9, 30e-6, 8e-8, 0.0, 2e-9)
    assert static_params({"t_hold": 2.0, "t_end": 5.0}).static(100) == (2.0, 5.0)
    with pytest.raises(ValueError):
        static_params({"t_hold": 2.0})
    with pytest.raises(ValueError):  # receiving may be negative, t_end may not
        StaticParams(1.0, 0, 0, 0, -2.0, 0)


def dyn_parents(order, root, hold, end):
    """Each rank's children in send order as collectives.trees.dyn_bcast's protocol builds
    them when every rank has the same estimates (hold, end): the root owns the whole chain,
    a child the part from itself to the far end its header carries."""
    from collectives.trees.dyn_bcast import forwards

    pos = {r: i for i, r in enumerate(order)}
    children: dict[int, list[int]] = {}
    todo = [(root, 0, len(order) - 1)]
    while todo:
        rank, lo, hi = todo.pop()
        for child, far in forwards(order, pos[rank], lo, hi, hold, end):
            children.setdefault(rank, []).append(child)
            todo.append((child, min(pos[child], far), max(pos[child], far)))
    return children


MESH_NODES = [list(range(16)), [0, 1, 2, 3, 4, 5, 6, 7], [10, 5, 12, 9, 14, 3, 0, 8, 13, 2]]


@pytest.mark.parametrize("nodes", MESH_NODES)
@pytest.mark.parametrize("root", [0, 3, 5])
@pytest.mark.parametrize(("hold", "end"), [(54, 741), (20, 55), (55, 20), (10, 10)])
def test_at_equal_estimates_dyn_mesh_builds_opt_meshs_tree(nodes, root, hold, end):
    """Section 6.3: DYN-Mesh is OPT-Mesh's construction under each node's own estimates, so
    with the same estimates everywhere (zero load: the static t_hold, t_end) it is OPT-Mesh,
    send by send, wherever the root sits in the chain."""
    from collectives.contention.trees import opt_mesh
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-mesh", len(nodes), root, {"mesh": (4, 4), "nodes": nodes})
    assert sorted(order) == list(range(len(nodes)))
    rank = {node: r for r, node in enumerate(nodes)}
    want = {rank[s]: [rank[c] for c in cs] for s, cs in
            opt_mesh(nodes, nodes[root], 4, 4, hold, end).children().items()}
    assert dyn_parents(order, root, hold, end) == want


@pytest.mark.parametrize("nodes", [list(range(16)), [9, 2, 14, 7, 0, 11, 4, 13]])
@pytest.mark.parametrize("root", [0, 3, 5])
@pytest.mark.parametrize(("hold", "end"), [(20, 55), (55, 20), (10, 10)])
def test_at_equal_estimates_dyn_min_builds_opt_mins_tree(nodes, root, hold, end):
    """DYN-Min (section 6.3 on a BMIN) is OPT-Min's construction under each node's own
    estimates: at zero load OPT-Min send by send, on the BMIN's lexicographic chain."""
    from collectives.contention.trees import opt_min
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-min", len(nodes), root, {"bmin": (2, 4), "nodes": nodes})
    assert [nodes[r] for r in order] == sorted(nodes)
    rank = {node: r for r, node in enumerate(nodes)}
    want = {rank[s]: [rank[c] for c in cs] for s, cs in
            opt_min(nodes, nodes[root], 2, 4, hold, end).children().items()}
    assert dyn_parents(order, root, hold, end) == want


@pytest.mark.parametrize("root", [0, 5])
def test_dyn_tree_is_the_chain_from_the_root_in_rank_order(root):
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-tree", 9, root, {})
    assert order == tuple((root + i) % 9 for i in range(9))
    got = dyn_parents(order, root, 20, 55)
    want = opt_children(9, opt_table(9, 20, 55).j)
    assert got == {(s + root) % 9: [(c + root) % 9 for c in cs] for s, cs in want.items()}


def test_as_load_evens_out_hold_and_end_dyn_mesh_halves_as_u_mesh_does():
    """Under load t^e_end / t^e_hol tends to 1 (above): DYN-Mesh's split tends to halving,
    a binomial-like tree as fast as U-Mesh's in the model, where at low load (t_hold well
    below t_end) it keeps OPT-Mesh's flatter, faster tree."""
    from collectives.contention.trees import opt_mesh, u_mesh
    from collectives.trees.dyn_bcast import chain

    nodes = list(range(16))
    order = chain("dyn-mesh", 16, 0, {"mesh": (4, 4), "nodes": nodes})
    heavy = dyn_parents(order, 0, 1000, 1000)
    assert tree_latency(heavy, 1000, 1000) == u_mesh(nodes, 0, 4, 4, 1000, 1000).latency == 4000
    assert max(len(c) for c in heavy.values()) == 4  # log2(16) sends at the root
    light = dyn_parents(order, 0, 54, 741)
    assert tree_latency(light, 54, 741) == opt_mesh(nodes, 0, 4, 4, 54, 741).latency
    assert tree_latency(light, 54, 741) < u_mesh(nodes, 0, 4, 4, 54, 741).latency


def test_dyn_mesh_is_refused_a_layout_that_does_not_fit():
    from collectives.executor import check

    check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4, "mesh": [4, 4],
                                    "nodes": [0, 1, 2, 3, 4, 5, 6, 7]})
    check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4})  # a 1 x 8 line
    with pytest.raises(ValueError, match="not a node of the 2x2 grid"):
        check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4, "mesh": [2, 2]})
    with pytest.raises(ValueError, match="dyn-mesh runs on a mesh"):
        check("dyn-mesh", "mpich", 4, {"t_hold": 1e-4, "t_end": 2e-4, "torus": [2, 2]})
    with pytest.raises(ValueError, match="dyn-mesh needs t_hs"):
        check("dyn-mesh", "mpich", 4, {"mesh": [2, 2]})


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
