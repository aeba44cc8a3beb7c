"""One call per collective, typed, from the command line to the rank: the algorithm, its
options and the collective's own fields (a broadcast's size and root), its name checked ONCE
against the registry (collectives.algorithms.lookup) where the call is made, the record kept
on the call (`call.record`: family, needs) and carried to the rank programs as one JSON line.

    BcastCall       a broadcast: algorithm, size, root, send_order, completion, options
    BarrierCall     a barrier: algorithm, options (a multicast barrier's release, timeout;
                    the range-tree barrier's layout)
    AllgatherCall   an allgather: algorithm, options (the multicast ones' fragment, rate,
                    timeout, rcvbuf); its block sizes are the measurement's, not the call's

Whoever holds a call reads `call.record` and never looks the name up again: the testbed
builds the calls (from the command line, a spec), `check`s them for the communicator's size
before a job starts, and the rank programs read them back with `from_json`; the executor
takes the record (`run_kwargs()`), so a rank looks its algorithm up once too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from .algorithms import (
    DEFAULT_COMPLETION,
    DEFAULT_SEND_ORDER,
    Algorithm,
    check_ack_options,
    check_completion,
    check_send_order,
    lookup,
)
from .executor import barrier_options, check_allgather, check_barrier, check_bcast

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["AllgatherCall", "BarrierCall", "BcastCall", "Call"]

C = TypeVar("C", bound="Call")


class Call:
    """What every call has: `algorithm`, the name, resolved once to `record` where the call
    is made; `options`, JSON values, frozen; one JSON line there and back. The subclasses
    are frozen dataclasses naming their `collective` and fields."""

    collective: ClassVar[str]
    noun: ClassVar[str]  # in messages: "a broadcast call has no ..."
    algorithm: str
    options: Mapping[str, Any]

    @property
    def record(self) -> Algorithm:
        """The registry's record of the algorithm, looked up when the call was made."""
        return self.__dict__["_record"]

    def _resolve(self) -> Algorithm:
        """The record, looked up (ValueError, the registry's one wording), kept on the call."""
        record = lookup(self.collective, self.algorithm)
        object.__setattr__(self, "_record", record)  # a frozen dataclass's own normalising
        return record

    def _freeze_options(self) -> None:
        try:  # as the ranks will read them: JSON values (tuples become lists)
            options = json.loads(json.dumps(dict(self.options)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the options must be JSON values: {exc}") from None
        _set(self, "options", MappingProxyType(options))

    def __hash__(self) -> int:
        return hash(self.to_json())

    def params(self) -> dict[str, Any]:
        """The keyword arguments the executor's function takes besides the algorithm."""
        return dict(self.options)

    def kwargs(self) -> dict[str, Any]:
        """The executor's keyword arguments, the algorithm by name."""
        return {"algorithm": self.algorithm, **self.params()}

    def run_kwargs(self) -> dict[str, Any]:
        """The executor's keyword arguments, the algorithm as its record: no look-up."""
        return {"algorithm": self.record, **self.params()}

    def with_options(self: C, **more: Any) -> C:
        """The same call with these options added (or replaced)."""
        return replace(self, options={**self.options, **more})  # type: ignore[type-var]

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name)
               for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        out["options"] = dict(self.options)
        return out

    def to_json(self) -> str:
        """The call as the rank programs read it: one JSON line."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls: type[C], d: Mapping[str, Any]) -> C:
        unknown = set(d) - {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        if unknown:
            raise ValueError(f"{cls.noun} call has no {', '.join(sorted(unknown))}")
        return cls(**d)

    @classmethod
    def from_json(cls: type[C], text: str) -> C:
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError(f"{cls.noun} call is a JSON object")
        return cls.from_dict(d)


@dataclass(frozen=True)
class BcastCall(Call):
    """A broadcast of `size` bytes from `root` by `algorithm` with its `options` (its own
    keyword arguments: t_hold and t_end, nodes and the network's shape, fragment, timeout,
    crossover_nodes, ...). `send_order` (a point-to-point tree's) and `completion` (a scout
    broadcast's) are fields of their own: the registry says which algorithm has one, and
    they are filled with the default there and refused elsewhere."""

    collective: ClassVar[str] = "bcast"
    noun: ClassVar[str] = "a broadcast"
    algorithm: str
    size: int
    root: int = 0
    send_order: str | None = None
    completion: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        alg = self._resolve()  # ValueError listing the choices
        for name in ("size", "root"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} is a whole number >= 0, got {value!r}")
        if alg.send_order:
            _set(self, "send_order", check_send_order(self.send_order or DEFAULT_SEND_ORDER))
        elif self.send_order is not None:
            raise ValueError(f"{self.algorithm} has no send order (a point-to-point tree's)")
        if alg.completion:
            _set(self, "completion", check_completion(self.completion or DEFAULT_COMPLETION))
        elif self.completion is not None:
            raise ValueError(f"{self.algorithm} has no completion (a scout broadcast's)")
        taken = {"algorithm", "send_order", "completion"} & set(self.options)
        if taken:
            raise ValueError(f"{', '.join(sorted(taken))}: a field of the call, not an option")
        check_ack_options(alg, self.completion, self.options)
        self._freeze_options()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def params(self) -> dict[str, Any]:
        """What executor.bcast takes besides the buffer, root, communicator and algorithm."""
        out: dict[str, Any] = dict(self.options)
        for name in ("send_order", "completion"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def check(self, ranks: int) -> None:
        """ValueError, before any message, for options the algorithm cannot take on `ranks`
        ranks (a missing t_hold, a layout that does not fit)."""
        if self.root >= ranks:
            raise ValueError(f"root {self.root} is not one of the {ranks} ranks")
        check_bcast(self.record, ranks, self.params())


@dataclass(frozen=True)
class BarrierCall(Call):
    """A barrier by `algorithm` with its `options`: the multicast barrier's release and
    timeout, the range-tree barrier's layout (nodes=, fattree=, ...); any other refused."""

    collective: ClassVar[str] = "barrier"
    noun: ClassVar[str] = "a barrier"
    algorithm: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        record = self._resolve()
        extra = set(self.options) - set(barrier_options(record, dict(self.options)))
        if extra:
            raise ValueError(f"{self.algorithm} takes no option {', '.join(sorted(extra))}")
        check_barrier(record, dict(self.options))
        self._freeze_options()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def check(self, ranks: int) -> None:
        """Nothing more on `ranks` ranks: every barrier runs on any number."""


@dataclass(frozen=True)
class AllgatherCall(Call):
    """An allgather by `algorithm` with its `options` (the multicast ones take fragment,
    rate, timeout and rcvbuf; the others none). Its block sizes are the measurement's."""

    collective: ClassVar[str] = "allgather"
    noun: ClassVar[str] = "an allgather"
    algorithm: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_allgather(self._resolve(), dict(self.options))
        self._freeze_options()

    def __hash__(self) -> int:
        return hash(self.to_json())

    def check(self, ranks: int) -> None:
        """Nothing more on `ranks` ranks: every allgather runs on any number."""


def _set(call: Call, name: str, value: Any) -> None:
    object.__setattr__(call, name, value)  # a frozen dataclass's own normalising
