"""The identifiers of a run's tunnels (a VXLAN device's VNI, a gretap device's key): drawn at
random for every link that crosses servers, none twice in a run, and kept in the run's record
(RunRecord.tunnels). A tunnel's identifier is not its link's number: someone who does not
see the run's state cannot name a tunnel from the topology (one of 2^24 - 1 values per
datagram). It is not an authentication: what keeps a stranger's datagram out is the guard
(testbed.cluster.guard), and an eavesdropper on the servers' network reads it off any frame.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

BITS = 24  # a VNI's width (RFC 7348); a GRE key has 32 bits, of which these are used
HIGHEST = (1 << BITS) - 1


class TunnelIds:
    """One run's tunnel identifiers, by link number, drawn when a link first asks."""

    def __init__(self, draw: Callable[[], int] | None = None) -> None:
        self._draw = draw or _random  # (a test gives its own, to draw the same twice)
        self.by_link: dict[int, int] = {}

    def of(self, link: int) -> int:
        """The identifier of link `link`'s tunnel (the same for both of its ends), in
        1..2^24-1 and unlike every other of the run's."""
        if link not in self.by_link:
            taken = set(self.by_link.values())
            vni = self._draw()
            while vni in taken or not 0 < vni <= HIGHEST:
                vni = self._draw()
            self.by_link[link] = vni
        return self.by_link[link]

    def record(self) -> dict[str, int]:
        """For the run's record (JSON keys are strings)."""
        return {str(k): v for k, v in sorted(self.by_link.items())}


def _random() -> int:
    return 1 + secrets.randbelow(HIGHEST)

