"""What a broadcast schedule is made of (plain data): for every rank of the communicator, its
program, an ordered tuple of operations (`Send`, `Recv`, `SendRecv`) on byte ranges of the
message. Below trees/ and contention/, which both use it. Built by
collectives.trees.schedules (and contention.schedules), run by
collectives.trees.run, predicted by collectives.trees.latency_model, drawn by the reports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Send:
    peer: int
    lo: int
    hi: int


@dataclass(frozen=True)
class Recv:
    peer: int
    lo: int
    hi: int


@dataclass(frozen=True)
class SendRecv:
    """Send one range and receive another at the same time (no deadlock on a ring)."""

    send: Send
    recv: Recv


Op = Send | Recv | SendRecv


@dataclass(frozen=True)
class Schedule:
    algorithm: str
    size: int
    root: int
    nbytes: int
    programs: tuple[tuple[Op, ...], ...]
    params: Mapping[str, Any] = field(default_factory=dict)

    def transfers(self) -> list[tuple[int, int, int, int]]:
        """Every send as (sender, receiver, lo, hi), in each sender's program order."""
        out = []
        for rank, prog in enumerate(self.programs):
            for op in prog:
                s = op.send if isinstance(op, SendRecv) else op
                if isinstance(s, Send):
                    out.append((rank, s.peer, s.lo, s.hi))
        return out

    def parents(self) -> list[int | None]:
        """Per rank, the rank it first receives from (None for the root and any rank that
        receives nothing): the tree of a whole-message schedule."""
        first: dict[int, int] = {}
        for sender, receiver, _lo, _hi in self.transfers():
            first.setdefault(receiver, sender)
        return [first.get(r) for r in range(self.size)]

    def to_dict(self) -> dict[str, Any]:
        def op(o: Op) -> dict[str, Any]:
            if isinstance(o, SendRecv):
                return {"op": "sendrecv", "send": op(o.send), "recv": op(o.recv)}
            return {"op": "send" if isinstance(o, Send) else "recv", "peer": o.peer,
                    "lo": o.lo, "hi": o.hi}

        return {"algorithm": self.algorithm, "size": self.size, "root": self.root,
                "nbytes": self.nbytes, "params": dict(self.params),
                "programs": [[op(o) for o in prog] for prog in self.programs]}
