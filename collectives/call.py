"""One broadcast call, typed, from the command line to the rank: the algorithm, the message
size, the root and the algorithm's options, checked once against the registry
(collectives.algorithms) and carried to the rank programs as one JSON line.

Before, a call was written four ways (bcast_bench's flags with --static/--params JSON,
collectives.use's -o NAME=JSON, sweep_bench's JSON points, and the testbed's argument lists)
and its algorithm's name was checked three times. Now the testbed builds a BcastCall,
`check`s it for the communicator's size before a job starts, and the programs read it back
with `from_json`; executor.bcast takes `kwargs()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from .algorithms import (
    DEFAULT_COMPLETION,
    DEFAULT_SEND_ORDER,
    bcast_algorithm,
    check_ack_options,
    check_completion,
    check_send_order,
)
from .executor import check_bcast

FIELDS = ("algorithm", "size", "root", "send_order", "completion", "options")


@dataclass(frozen=True)
class BcastCall:
    """A broadcast of `size` bytes from `root` by `algorithm` with its `options` (its own
    keyword arguments: t_hold and t_end, nodes and the network's shape, fragment, timeout,
    crossover_nodes, ...). `send_order` (a point-to-point tree's) and `completion` (a scout
    broadcast's) are fields of their own: the registry says which algorithm has one, and
    they are filled with the default there and refused elsewhere."""

    algorithm: str
    size: int
    root: int = 0
    send_order: str | None = None
    completion: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        alg = bcast_algorithm(self.algorithm)  # ValueError listing the choices
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
        try:  # as the ranks will read them: JSON values (tuples become lists)
            options = json.loads(json.dumps(dict(self.options)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the options must be JSON values: {exc}") from None
        _set(self, "options", MappingProxyType(options))

    def __hash__(self) -> int:
        return hash(self.to_json())

    def kwargs(self) -> dict[str, Any]:
        """What executor.bcast takes besides the buffer, root and communicator."""
        out: dict[str, Any] = {"algorithm": self.algorithm, **self.options}
        for name in ("send_order", "completion"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def check(self, ranks: int) -> None:
        """ValueError, before any message, for options the algorithm cannot take on `ranks`
        ranks (a missing t_hold, a layout that does not fit)."""
        if self.root >= ranks:
            raise ValueError(f"root {self.root} is not one of the {ranks} ranks")
        kwargs = self.kwargs()
        check_bcast(kwargs.pop("algorithm"), ranks, kwargs)

    def with_options(self, **more: Any) -> BcastCall:
        """The same call with these options added (or replaced)."""
        return replace(self, options={**self.options, **more})

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "size": self.size, "root": self.root,
                "send_order": self.send_order, "completion": self.completion,
                "options": dict(self.options)}

    def to_json(self) -> str:
        """The call as the rank programs read it: one JSON line."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BcastCall:
        unknown = set(d) - set(FIELDS)
        if unknown:
            raise ValueError(f"a broadcast call has no {', '.join(sorted(unknown))}")
        return cls(**d)

    @classmethod
    def from_json(cls, text: str) -> BcastCall:
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError("a broadcast call is a JSON object")
        return cls.from_dict(d)


def _set(call: BcastCall, name: str, value: Any) -> None:
    object.__setattr__(call, name, value)  # a frozen dataclass's own normalising
