"""A broadcast's repair account (collectives.ipmc.accounting) as columns aligned with the
broadcasts' samples, and consecutive runs of them joined."""

from __future__ import annotations

import pytest

from collectives.ipmc.accounting import FIELDS, RepairAccount, columns, joined


def account(rounds: int, detect: float | None = None) -> RepairAccount:
    return RepairAccount(rounds, detect, None if detect is None else 1, 1e-3, 2e-4, 3e-3,
                         1 + rounds, 0, 0)


def test_accounts_become_one_list_per_field_in_broadcast_order() -> None:
    got = columns([account(0), None, account(1, 5e-4)])
    assert got is not None and tuple(got) == FIELDS
    assert got["rounds"] == [0, None, 1]
    assert got["detect_s"] == [None, None, 5e-4]
    assert got["end_markers"] == [1, None, 2]
    assert columns([None, None]) is None and columns([]) is None


def test_runs_of_broadcasts_join_and_a_run_without_accounts_is_padded() -> None:
    a, b = columns([account(0), account(2, 1e-3)]), columns([account(1, 2e-3)])
    got = joined([a, None, b], [2, 3, 1])
    assert got is not None
    assert got["rounds"] == [0, 2, None, None, None, 1]
    assert got["detect_s"] == [None, 1e-3, None, None, None, 2e-3]
    assert joined([None, None], [2, 1]) is None
    with pytest.raises(ValueError, match="2 rounds for 3 broadcasts"):
        joined([a], [3])
