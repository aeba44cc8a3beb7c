"""testbed.fidelity.wire_units: a message's wire time, a frame's time and a time in those units
(none without a rate or a size), and the dilation a LinkRate reports."""

from __future__ import annotations

import pytest

from testbed.fidelity.link_rate import LinkRate
from testbed.fidelity.wire_units import frame_time_s, in_units, wire_time_s


def test_dilation_and_units() -> None:
    r = LinkRate(100.0, 25.0, True, "calibration cache")
    assert r.dilation == 4.0
    assert r.to_dict()["dilation"] == 4.0
    assert "dilation x4" in r.text()
    assert LinkRate(None, None, False, "given").dilation is None
    assert wire_time_s(65536, 10) == pytest.approx(0.0524288)
    assert frame_time_s(100) == pytest.approx(1538 * 8 / 100e6)
    u = in_units(0.1048576, 65536, 10)
    assert u["per_wire_time"] == pytest.approx(2.0)
    assert u["per_frame_time"] == pytest.approx(0.1048576 / (1538 * 8 / 10e6))
    assert in_units(0.1, 65536, None) == {"per_wire_time": None, "per_frame_time": None}
    assert in_units(0.1, 0, 10)["per_wire_time"] is None
