"""Parameter checks and link profiles shared by the shape builders."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from topologies.errors import TopologyError
from topologies.model import LinkParams


def positive_int(shape: str, name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TopologyError(f"{shape}: {name} must be an integer >= {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class LinkProfile:
    """Link parameters of a built shape: host links, switch-switch links, and the record."""

    host: LinkParams
    core: LinkParams

    def record(self) -> dict[str, Any]:
        """The resolved bw/core_bw/delay_ms, for Topology.params."""
        return {"bw": self.host.bw_mbit, "core_bw": self.core.bw_mbit,
                "delay_ms": self.host.delay_ms}


def link_profile(shape: str, bw: float | None, core_bw: float | None,
                 delay_ms: float) -> LinkProfile:
    """`bw` for host links, `core_bw` (default: same as bw) for switch-switch links.

    None or infinity means unlimited bandwidth; to get limited host links with unlimited
    core links pass core_bw=math.inf (None already means "same as bw").
    """
    def params(name: str, value: float | None) -> LinkParams:
        if isinstance(value, float) and math.isinf(value) and value > 0:
            value = None
        try:
            LinkParams(bw_mbit=value)
        except TopologyError as err:
            raise TopologyError(f"{shape}: {name} is invalid: {err}") from None
        return LinkParams(bw_mbit=value, delay_ms=delay_ms)

    try:
        LinkParams(delay_ms=delay_ms)
    except TopologyError as err:
        raise TopologyError(f"{shape}: delay_ms is invalid: {err}") from None
    host = params("bw", bw)
    core = host if core_bw is None else params("core_bw", core_bw)
    return LinkProfile(host, core)


MAX_HOSTS = 4096
"""Builders refuse larger networks: far beyond what Mininet emulates, and the routing table
(switches x hosts entries) would take long to compute."""


def check_size(shape: str, hosts: int) -> None:
    if hosts > MAX_HOSTS:
        raise TopologyError(f"{shape}: {hosts} hosts is more than the limit of {MAX_HOSTS}")
