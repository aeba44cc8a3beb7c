"""Coll2003's claims the testbed measures: broadcast bandwidth of the range-multicast tree
around failed nodes against the software tree, and the barrier."""

from __future__ import annotations

from .claims import Claim

CLAIMS: tuple[Claim, ...] = ()
