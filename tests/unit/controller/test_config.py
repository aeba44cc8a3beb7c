"""controller.config.ControllerConfig: bad settings are refused, settings round-trip through
JSON and `python -m controller`'s arguments, and off loopback only the listed switches stay."""

from __future__ import annotations

import pytest

from controller.config import ControllerConfig
from controller.timers import IgmpTimers


@pytest.mark.parametrize("kwargs", [dict(mode="hardware"), dict(unregistered="maybe"),
                                    dict(timers=IgmpTimers(query_interval=0)),
                                    dict(timers=IgmpTimers(query_interval=5,
                                                           query_response_interval=5)),
                                    dict(igmp_rate=0), dict(listen="0.0.0.0"),
                                    dict(listen="8.8.8.8", allow=("8.8.4.4",)),
                                    dict(listen="10.9.0.1"), dict(listen="nowhere"),
                                    dict(listen="10.9.0.1", allow=("10.9.0.x",))])
def test_bad_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        ControllerConfig(**kwargs)


def test_settings_round_trip_through_json_and_arguments():
    from controller.__main__ import add_arguments, config_from

    c = ControllerConfig(mode="contiguous", unregistered="flood", fast_leave=True,
                         querier=False, igmp_rate=77.0, listen="198.18.0.1",
                         allow=("198.18.0.1", "198.18.0.2"),
                         timers=IgmpTimers(robustness=3, query_interval=9,
                                           query_response_interval=2, last_member_interval=0.5))
    assert ControllerConfig.from_json(c.to_json()) == c
    import argparse

    ap = argparse.ArgumentParser()
    add_arguments(ap)
    assert config_from(ap.parse_args(c.to_args())) == c


def test_off_loopback_only_the_listed_switches_stay():
    """A cluster's controller listens on a private address; switches connecting from
    anywhere but loopback and the servers' addresses are closed (controller.app)."""
    c = ControllerConfig(listen="198.18.0.1", allow=("198.18.0.2",))
    assert c.admits(("127.0.0.1", 40000)) and c.admits(("198.18.0.2", 40000))
    assert not c.admits(("198.18.0.3", 40000)) and not c.admits(("10.0.0.1", 40000))
    assert ControllerConfig().admits(("127.0.0.1", 40000))
    unix = ControllerConfig(listen="/run/mcastlab/r1/openflow.sock")
    assert unix.unix and unix.admits("")  # a Unix socket's peer has no address
