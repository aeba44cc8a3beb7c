"""testbed.specs.cluster: the [cluster] table and --servers become a ClusterSpec (and back, for
--resume); a bad table names its key."""

from __future__ import annotations

import pytest

from testbed.specs.cluster import ClusterSpec, Server, from_dict, from_servers


def test_the_cluster_table_and_servers_option():
    spec = from_dict({"servers": ["localhost", "alice@10.1.0.2", "node3"],
                      "placement": "switch-bin", "tunnel": "vxlan", "listen": "10.1.0.1"})
    assert spec == ClusterSpec((Server("localhost"), Server("10.1.0.2", "alice"),
                                Server("node3")), "switch-bin", "vxlan", "10.1.0.1")
    assert spec.names == ["localhost", "10.1.0.2", "node3"] and spec.servers[0].local
    assert str(spec.servers[1]) == "alice@10.1.0.2" and str(spec.servers[2]) == "node3"
    assert from_servers("localhost,server2") == ClusterSpec(
        (Server("localhost"), Server("server2")))
    assert from_servers("server2", placement="switch-bin", tunnel=None) == ClusterSpec(
        (Server("localhost"), Server("server2")), "switch-bin")  # this one comes first
    assert from_dict(spec.to_dict()) == spec  # what a results folder keeps for --resume
    assert spec.to_dict()["servers"] == ["localhost", "alice@10.1.0.2", "node3"]


@pytest.mark.parametrize("table, words", [
    ({"servers": []}, "cluster.servers: a list of the other servers"),
    ({"servers": ["localhost"]}, "at least one server besides localhost"),
    ({"servers": "a,b"}, "cluster.servers: a list"),
    ({"servers": ["a", "b c"]}, "cluster.servers: a server is [user@]host, got 'b c'"),
    ({"servers": ["a", "a"]}, "named twice"),
    ({"servers": ["a", "localhost"]}, "only the first server may be localhost"),
    ({"servers": ["a", "b"], "placement": "x"}, "cluster.placement: unknown 'x'"),
    ({"servers": ["a", "b"], "tunnel": "gre"}, "cluster.tunnel: unknown 'gre' (one of auto"),
    ({"servers": ["a", "b"], "listen": "8.8.8.8"}, "cluster.listen: the controller listens"),
    ({"servers": ["a", "b"], "ssh_config": 3}, "cluster.ssh_config: must be a string"),
    ({"servers": ["a", "b"], "hosts": 3}, "cluster.hosts: unknown key"),
])
def test_a_bad_cluster_table_names_its_key(table, words):
    with pytest.raises(ValueError) as e:
        from_dict(table)
    assert words in str(e.value)
