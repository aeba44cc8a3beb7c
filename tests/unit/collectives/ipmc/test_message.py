"""collectives.ipmc.message: the multicast's default pace follows the link rate
MCASTLAB_LINK_MBIT gives (none where it gives no number), and Options keeps a rate of None
as given."""

from __future__ import annotations

import pytest


def test_multicast_pacing_follows_the_link_rate(monkeypatch):
    from collectives.ipmc.message import PACE, Options, default_rate

    monkeypatch.setenv("MCASTLAB_LINK_MBIT", "100")
    assert default_rate() == pytest.approx(PACE * 100e6)
    assert Options(fragment=1444).rate == pytest.approx(PACE * 100e6)
    monkeypatch.setenv("MCASTLAB_LINK_MBIT", "fast")
    assert default_rate() is None
    monkeypatch.delenv("MCASTLAB_LINK_MBIT")
    assert Options(fragment=1444, rate=None).rate is None
