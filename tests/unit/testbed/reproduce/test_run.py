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
