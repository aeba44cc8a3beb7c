"""Nupairoj1998's claims the testbed measures: the order of the trees across the
t_hold/t_end regimes, with the model's error."""

from __future__ import annotations

from .claims import Claim

CLAIMS: tuple[Claim, ...] = ()
