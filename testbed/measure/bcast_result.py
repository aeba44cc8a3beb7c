"""A measured broadcast experiment as a typed value (run_bcast's result), and its record.

The fields are what records, reports, benchmarks, labs and the CLI read. `to_dict` writes
the record every results folder has always held (the same keys, so old folders and the
reports that read them stay valid) and `from_dict` reads one back. The sub-records the
measuring programs produce and that only one reader looks into (`cpu`, `flow`, `frames`,
`tcp`, `dyn_tree`, `root_queue`, `datagrams`) stay as their JSON objects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from collectives.call import BcastCall
from collectives.waiting import DEFAULT as DEFAULT_WAIT

from .times import Times

Record = dict[str, Any]


@dataclass(frozen=True)
class BcastResult:
    """One measured broadcast experiment (testbed.measure.bcast.run_bcast says what
    each field means). Per-rank lists are in rank order, `rank_hosts[r]` rank r's host."""

    call: BcastCall
    rank_hosts: tuple[str, ...]
    iterations: int
    t_mcast: Times
    timing: Literal["direct", "flow"]
    verified: bool
    predicted_s: float | None
    topology: str
    switch: str
    window: tuple[float, float]
    servers: tuple[str, ...] = ()
    mpich_algorithm: str | None = None
    wait: str = DEFAULT_WAIT
    rank_done_s: tuple[float, ...] | None = None
    rank_return_s: tuple[float, ...] | None = None
    rank_done_from: str | None = None
    direct_across_servers: Record | None = None
    flow: Record | None = None
    flow_vs_direct: float | None = None
    cpu: Record | None = None
    datagrams: Record | None = None
    naive_s: float | None = None
    root_queue: Record | None = None
    late: tuple[str, float] | None = None
    final_phase_s: float | None = None
    loss: float = 0.0
    loss_scope: str | None = None
    tcp: Record | None = None
    frames: Record | None = None
    link_bytes: dict[str, int] | None = None
    dyn_tree: Record | None = None

    @property
    def algorithm(self) -> str:
        return self.call.algorithm

    @property
    def size(self) -> int:
        return self.call.size

    @property
    def hosts(self) -> int:
        return len(self.rank_hosts)

    @property
    def median_s(self) -> float:
        """The headline: t_mcast's median."""
        return self.t_mcast.median

    @property
    def wait_per_turn_s(self) -> float | None:
        """How long the ranks waited for a core each turn (None where not measured)."""
        return (self.cpu or {}).get("wait_per_turn_s")

    def to_dict(self) -> Record:
        """The record (JSON-ready), as results folders hold it."""
        return {"algorithm": self.algorithm, "mpich_algorithm": self.mpich_algorithm,
                "wait": self.wait, "send_order": self.call.send_order,
                "completion": self.call.completion, "call": self.call.to_dict(),
                "hosts": self.hosts, "size": self.size, "iterations": self.iterations,
                "t_mcast_s": self.t_mcast.to_dict(), "timing": self.timing,
                "direct_across_servers": self.direct_across_servers,
                "servers": list(self.servers), "verified": self.verified,
                "predicted_s": self.predicted_s, "rank_hosts": list(self.rank_hosts),
                "rank_done_s": _listed(self.rank_done_s),
                "rank_return_s": _listed(self.rank_return_s),
                "rank_done_from": self.rank_done_from, "flow": self.flow,
                "flow_vs_direct": self.flow_vs_direct, "cpu": self.cpu,
                "datagrams": self.datagrams, "window": list(self.window),
                "naive_s": self.naive_s, "root_queue": self.root_queue,
                "late": _listed(self.late), "final_phase_s": self.final_phase_s,
                "loss": self.loss, "loss_scope": self.loss_scope, "tcp": self.tcp,
                "frames": self.frames, "link_bytes": self.link_bytes,
                "topology": self.topology, "switch": self.switch, "dyn_tree": self.dyn_tree}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BcastResult:
        """A record written by to_dict (extra keys, such as a point's fidelity, ignored)."""
        call = (BcastCall.from_dict(d["call"]) if d.get("call")
                else BcastCall(d["algorithm"], d["size"]))
        late = d.get("late")
        return cls(call=call, rank_hosts=tuple(d["rank_hosts"]), iterations=d["iterations"],
                   t_mcast=Times.of(d["t_mcast_s"]), timing=d["timing"],
                   verified=d["verified"], predicted_s=d.get("predicted_s"),
                   topology=d["topology"], switch=d.get("switch", "controller"),
                   window=(d["window"][0], d["window"][1]),
                   servers=tuple(d.get("servers") or ()),
                   mpich_algorithm=d.get("mpich_algorithm"), wait=d.get("wait", DEFAULT_WAIT),
                   rank_done_s=_tupled(d.get("rank_done_s")),
                   rank_return_s=_tupled(d.get("rank_return_s")),
                   rank_done_from=d.get("rank_done_from"),
                   direct_across_servers=d.get("direct_across_servers"), flow=d.get("flow"),
                   flow_vs_direct=d.get("flow_vs_direct"), cpu=d.get("cpu"),
                   datagrams=d.get("datagrams"), naive_s=d.get("naive_s"),
                   root_queue=d.get("root_queue"),
                   late=(late[0], float(late[1])) if late else None,
                   final_phase_s=d.get("final_phase_s"), loss=d.get("loss", 0.0),
                   loss_scope=d.get("loss_scope"), tcp=d.get("tcp"), frames=d.get("frames"),
                   link_bytes=d.get("link_bytes"), dyn_tree=d.get("dyn_tree"))


def _listed(values: Sequence[Any] | None) -> list[Any] | None:
    return list(values) if values is not None else None


def _tupled(values: Sequence[float] | None) -> tuple[float, ...] | None:
    return tuple(values) if values is not None else None
