"""The group and the many source addresses the IGMP and membership tests speak of."""

from __future__ import annotations

GROUP = "239.1.2.3"


def sources(n: int) -> tuple[str, ...]:
    return tuple(f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(n))
