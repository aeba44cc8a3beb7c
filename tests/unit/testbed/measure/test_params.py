"""testbed.measure.params: params_timeout, the t_hold/t_end job's timeout grows with the
bytes it sends on the first host's link, never below PARAMS_TIMEOUT_S."""

from __future__ import annotations

import pytest

from testbed.measure.params import PARAMS_TIMEOUT_S, params_timeout

SIZES = [1, 1024, 65536, 1 << 20]


def test_a_fast_or_unshaped_network_keeps_the_floor() -> None:
    assert params_timeout(SIZES, 5, 16, None, None, 65536, None) == PARAMS_TIMEOUT_S
    assert params_timeout([1, 1024, 65536], 5, 16, None, None, 65536, 20.0) == PARAMS_TIMEOUT_S


def test_64_hosts_at_3_mbit_get_the_time_their_bytes_take() -> None:
    # 63 sends of 1 MiB are 176 s a round at 3 Mbit/s: the defaults outgrew 900 s (2026-12-07)
    whole = params_timeout(SIZES, 5, 64, None, None, 65536, 3.0)
    one_round = 63 * (1 << 20) * 8 / 3e6
    assert whole > 5 * 4 * one_round  # 5 rounds of t_hold at 1 MiB, four times over
    lean = params_timeout(SIZES, 3, 64, 262144, 16, 65536, 3.0)  # experiments/scale.toml's
    assert PARAMS_TIMEOUT_S < lean < whole / 5
    assert params_timeout(SIZES, 3, 64, 262144, 16, 65536, 1.0) == pytest.approx(3 * lean)


def test_the_dummy_loops_sweep_counts_as_the_program_is_told_to_run_it() -> None:
    # Nupairoj's knee (reproduce.nupairoj_local) runs more fractions and runs than the default
    default = params_timeout([65536], 3, 64, 262144, 16, 65536, 1.0)
    more = params_timeout([65536], 3, 64, 262144, 16, 65536, 1.0, tuple(range(18)), 6)
    assert more > default == params_timeout([65536], 3, 64, 262144, 16, 65536, 1.0, None, 3)
