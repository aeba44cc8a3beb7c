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
MAX_SWITCHES = 8 * MAX_HOSTS  # a full k-ary n-tree of 4096 hosts has up to 12 x 2048
"""Every shape refuses a larger network, before it builds anything, with one message
(check_size): far beyond what Mininet emulates, and the routing table (switches x hosts
entries) would take long to compute. Switches are capped too: a fat tree of a few hosts
under a large k or n still has every top-level switch."""

Count = int | str  # a str: a power written out (k^n), too large to compute


def power(base: int, exp: int) -> Count:
    """base**exp, or the text base^exp where it is surely beyond every limit (a number of
    thousands of digits is not computed, nor printed)."""
    if exp * (base.bit_length() - 1) > 64:
        return f"{base}^{exp}"
    return int(base**exp)


def check_size(shape: str, hosts: Count, switches: Count = 0) -> None:
    """The one size limit and message of every shape."""
    for count, what, limit in ((hosts, "hosts", MAX_HOSTS), (switches, "switches",
                                                             MAX_SWITCHES)):
        if isinstance(count, str) or count > limit:
            raise TopologyError(f"{shape}: {count} {what} is more than the limit of {limit}")
