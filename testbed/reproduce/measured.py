"""The papers' claims the testbed measures on an emulated network, at the calibrated
operating point, every point with its fidelity flags."""

from __future__ import annotations

from .claims import Claim

CLAIMS: tuple[Claim, ...] = ()
