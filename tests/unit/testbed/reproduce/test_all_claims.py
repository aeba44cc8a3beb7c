"""testbed.reproduce.all_claims: claim keys are unique and every paper is in the reference
table; select picks claims by key, by paper and for quick runs, and refuses an unknown name."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.reproduce.all_claims import BY_KEY, CLAIMS, select

REFERENCES = Path(__file__).resolve().parents[4] / "docs" / "references.md"


def test_keys_are_unique_and_every_paper_is_in_the_reference_table() -> None:
    assert len(BY_KEY) == len(CLAIMS)
    refs = REFERENCES.read_text()
    assert all(c.paper in refs for c in CLAIMS)
    assert all(c.key.split(".")[0] in c.paper.lower() for c in CLAIMS)


def test_select_by_key_by_paper_quick_and_unknown() -> None:
    assert [c.key for c in select(["nupairoj.table-4.3"], False)] == ["nupairoj.table-4.3"]
    assert {c.paper for c in select(["nupairoj"], False)} == {"Nupairoj1998"}
    assert len(select(None, False)) == len(CLAIMS)
    assert all(c.in_quick for c in select(None, True))
    with pytest.raises(UsageError, match="no claim 'nope'"):
        select(["nope"], False)




def test_quick_keeps_every_paper_and_network_but_the_torus_within_its_ten_minutes() -> None:
    """--quick (goal: 10 minutes) runs every pure claim and each paper's headline measured
    claims; the measured claims that repeat a mechanism another quick claim shows are full
    run only, and so is the torus (its one quick claim was not applicable in 3 draws)."""
    quick = select(None, True)
    assert all(c in quick for c in CLAIMS if c.network is None)
    assert {c.paper for c in quick if c.network} == {c.paper for c in CLAIMS} - {"Tseng2001"}
    assert {c.network for c in quick if c.network} == {
        c.network for c in CLAIMS if c.network} - {"torus16"}
    assert {"nupairoj.source-contention", "nupairoj.bmin-load", "siebert.skew",
            "siebert.repair-rounds", "siebert.basic-scaling"}.isdisjoint(c.key for c in quick)
