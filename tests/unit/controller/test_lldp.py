"""controller.lldp: an LLDP frame round-trips; truncated, non-LLDP and foreign frames are not
taken for one."""

from __future__ import annotations

from controller import lldp


def test_lldp_round_trip_and_foreign_frames():
    f = lldp.frame(0x1F, 3)
    assert lldp.parse(f) == (0x1F, 3)
    assert f[:6] == bytes.fromhex("0180c200000e")
    assert lldp.parse(f[:20]) is None              # truncated
    assert lldp.parse(b"\x00" * 12 + b"\x08\x00" + f[14:]) is None   # not LLDP
    other = bytearray(f)
    other[17] = 4  # chassis subtype: MAC address, not ours
    assert lldp.parse(bytes(other)) is None
