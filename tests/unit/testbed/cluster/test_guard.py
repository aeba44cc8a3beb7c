"""testbed.cluster.guard: the tunnel guard's nftables rules admit the servers' addresses only
(nft itself takes the script), there are none for gretap, and a bad address is refused."""

from __future__ import annotations

import subprocess

import pytest

from testbed.cluster.guard import guard_script


def test_the_tunnel_guard_admits_the_servers_only():
    script = guard_script("r1", ["10.9.0.2", "10.9.0.1"], vxlan=True, openflow_port=6653)
    rules = [ln for ln in script.splitlines() if ln.startswith("add rule")]
    assert rules == [
        "add rule inet mcastlab-r1 guard meta nfproto ipv4 udp dport 4789 "
        "ip saddr != { 10.9.0.1, 10.9.0.2 } counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv6 udp dport 4789 counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv4 tcp dport 6653 "
        "ip saddr != { 10.9.0.1, 10.9.0.2 } counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv6 tcp dport 6653 counter drop"]
    check = subprocess.run(["nft", "-c", "-f", "-"], input=script, capture_output=True,
                           text=True)  # nftables itself takes it (checked, not applied)
    assert check.returncode == 0, check.stderr
    assert "rule" not in guard_script("r1", ["10.9.0.1"], vxlan=False)  # gretap: none
    with pytest.raises(ValueError):
        guard_script("r1", ["10.9.0.1; flush ruleset"], vxlan=True)
