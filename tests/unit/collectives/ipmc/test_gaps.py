"""collectives.ipmc.gaps.provable_gaps: a missing fragment is a proved gap only before the last
fragment held; after it, or with nothing held, nothing is proved missing."""

from __future__ import annotations

from collectives.ipmc.gaps import provable_gaps


def test_a_gap_is_proved_only_before_the_last_fragment_held() -> None:
    assert provable_gaps(bytearray([1, 0, 1, 0, 0])) == bytearray([1, 0, 1, 1, 1])
    assert provable_gaps(bytearray([0, 0, 0])) == bytearray([1, 1, 1])  # nothing held
    assert provable_gaps(bytearray([1, 1])) == bytearray([1, 1])
    assert provable_gaps(bytearray([0, 1])) == bytearray([0, 1])
