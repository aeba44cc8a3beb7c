"""testbed.cluster.guard: the tunnel guard's nftables rules (nft itself takes the script).
In: VXLAN and OpenFlow from the servers' addresses only (no VXLAN rule for gretap). Out, on
every server: the tunnels' port (GRE for gretap) and the controller's from root's sockets
or the kernel only. A bad address, port or tunnel kind is refused. (What the kernel does with
the rules: tests/integration/test_cluster_guard.py.)"""

from __future__ import annotations

import subprocess

import pytest

from testbed.cluster.guard import guard_script

PEERS = ["10.9.0.2", "10.9.0.1"]


def _rules(script: str) -> list[str]:
    return [ln for ln in script.splitlines() if ln.startswith("add rule")]


def _nft_takes(script: str) -> None:
    check = subprocess.run(["nft", "-c", "-f", "-"], input=script, capture_output=True,
                           text=True)  # nftables itself takes it (checked, not applied)
    assert check.returncode == 0, check.stderr


def test_the_tunnel_guard_admits_the_servers_and_their_root_sockets_only():
    script = guard_script("r1", PEERS, "vxlan", openflow_port=6653)
    assert "type filter hook input priority -10" in script
    assert "add chain inet mcastlab-r1 guard_out { type filter hook output priority -10 ; " \
        "policy accept ; }" in script
    assert _rules(script) == [
        "add rule inet mcastlab-r1 guard meta nfproto ipv4 udp dport 4789 "
        "ip saddr != { 10.9.0.1, 10.9.0.2 } counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv6 udp dport 4789 counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv4 tcp dport 6653 "
        "ip saddr != { 10.9.0.1, 10.9.0.2 } counter drop",
        "add rule inet mcastlab-r1 guard meta nfproto ipv6 tcp dport 6653 counter drop",
        "add rule inet mcastlab-r1 guard_out udp dport 4789 meta skuid != 0 counter drop",
        "add rule inet mcastlab-r1 guard_out tcp dport 6653 meta skuid != 0 counter drop"]
    _nft_takes(script)


def test_a_server_without_the_controller_guards_its_way_out_to_it():
    """The OpenFlow input rule only where the controller listens; the output rule on every
    server (a non-root user there would connect from a server's address)."""
    script = guard_script("r1", PEERS, "vxlan", openflow_port=6653, controller_here=False)
    rules = _rules(script)
    assert not any("guard meta" in r and "6653" in r for r in rules), rules
    assert "add rule inet mcastlab-r1 guard_out tcp dport 6653 meta skuid != 0 counter drop" \
        in rules
    _nft_takes(script)


def test_gretap_has_no_vxlan_rules_and_guards_gre_on_the_way_out():
    script = guard_script("r1", PEERS, "gretap")
    assert _rules(script) == [
        "add rule inet mcastlab-r1 guard_out meta l4proto gre meta skuid != 0 counter drop"]
    assert "4789" not in script
    _nft_takes(script)


@pytest.mark.parametrize("peers, tunnel, port", [
    (["10.9.0.1; flush ruleset"], "vxlan", None),
    (["10.9.0.1"], "vxlan; flush ruleset", None),
    (["10.9.0.1"], "vxlan", 70000),
    (["10.9.0.1"], "vxlan", 0),
])
def test_bad_input_is_refused(peers, tunnel, port):
    with pytest.raises(ValueError):
        guard_script("r1", peers, tunnel, openflow_port=port)
