"""testbed.reproduce.pure_siebert: Siebert2006's Table 1 from the birthday formula of section
1.7.2, every entry within one unit of its last printed digit."""

from __future__ import annotations

from testbed.reproduce import pure_siebert
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, REPRODUCED


def test_table_1_follows_the_birthday_formula(monkeypatch) -> None:
    out = BY_KEY["siebert.collisions"].run(Context(True, lambda _m: None))
    assert out.verdict == REPRODUCED, out.why
    assert "16 of 17 entries are the value truncated" in out.testbed
    assert out.values["off_in_last_digit"][100] < 1  # the one the table rounds up
    monkeypatch.setattr(pure_siebert, "TABLE_1", {**pure_siebert.TABLE_1,
                                                  200: "0.0000003573483"})
    bad = BY_KEY["siebert.collisions"].run(Context(True, lambda _m: None))
    assert bad.verdict == DIFFERS and "200 communicators" in bad.why
