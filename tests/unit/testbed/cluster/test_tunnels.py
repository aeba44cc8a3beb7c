"""testbed.cluster.tunnels.tunnel_batch: a tunnel end (vxlan or gretap) is one `ip` batch of its
kind; an unknown kind is refused."""

from __future__ import annotations

import pytest

from testbed.cluster.tunnels import tunnel_batch


def test_a_tunnel_end_is_one_batch_of_its_kind():
    vx = tunnel_batch("vxlan", "s1-eth3", "10.9.0.1", "10.9.0.2", 5, "aa:bb:cc:00:00:01")
    assert vx.splitlines() == [
        "link add name s1-eth3 type vxlan id 5 local 10.9.0.1 remote 10.9.0.2 dstport 4789 "
        "nolearning",
        "link set s1-eth3 mtu 1450", "link set s1-eth3 address aa:bb:cc:00:00:01",
        "link set s1-eth3 up"]
    gre = tunnel_batch("gretap", "s1-eth3", "10.9.0.1", "10.9.0.2", 5)
    assert gre.splitlines()[0] == ("link add name s1-eth3 type gretap local 10.9.0.1 "
                                   "remote 10.9.0.2 ttl 64 key 5")
    with pytest.raises(ValueError, match="unknown tunnel kind"):
        tunnel_batch("geneve", "x", "a", "b", 1)
