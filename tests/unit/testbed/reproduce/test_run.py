"""testbed.reproduce.run: a network another claim is compared with is brought up before any
claim on the other network."""

from __future__ import annotations

from testbed.reproduce.all_claims import BY_KEY


def test_a_network_compared_with_comes_before_any_claim_on_the_other_network():
    """chen.hub-frames (on the hub, no `before`) comes ahead of chen.hub-mpich (on the hub,
    compared with the switch): the switch is still brought up first."""
    from testbed.reproduce.run import network_order

    claims = [BY_KEY[k] for k in ("chen.frames", "chen.hub-frames", "chen.hub-mpich")]
    order = network_order(claims)
    assert order.index("star9") < order.index("star9-hub")
    assert order == ["star9", "star16", "star9-hub"]


def _claim(key: str, run):
    """A pure claim that runs `run`."""
    import dataclasses

    from testbed.reproduce.all_claims import BY_KEY

    return dataclasses.replace(BY_KEY["nupairoj.table-4.1"], key=key, run=run)


def _where(_ctx):
    """An outcome that says which process judged it."""
    import os

    from testbed.reproduce.verdict import REPRODUCED, Outcome

    return Outcome(REPRODUCED, str(os.getpid()))


def test_a_claims_seconds_count_its_points_on_the_network_it_compares_with():
    """A claim measured on another network first (Claim.before) is charged those seconds
    too, and says how many of them were there."""
    from testbed.reproduce.claims import Context
    from testbed.reproduce.run import _one

    entry = _one(_claim("x.compared", _where), Context(False, lambda _m: None), 12.34)
    assert entry["seconds_before"] == 12.3 and 12.3 <= entry["seconds"] < 20
    plain = _one(_claim("x.alone", _where), Context(False, lambda _m: None))
    assert "seconds_before" not in plain and plain["seconds"] < 5
