"""testbed.emulation.linkshape: tc batch lines, netfilter and nftables loss rules, the
capability check naming the offending link, and Emulation's checks of switch-link loss."""

import re

import pytest

from testbed.emulation.linkshape import (
    LOSS_SINK,
    check,
    htb_burst,
    htb_rate_change,
    netfilter_loss,
    netfilter_set_loss,
    nft_link_loss,
    nft_table,
    tc_batch,
)
from testbed.errors import CapabilityError
from topologies import Host, Link, LinkParams, Switch, Topology, parse_spec

from .machines import caps


def lines(batch: str) -> list[str]:
    assert batch == "" or batch.endswith("\n")
    return batch.splitlines()


# ---- tc_batch ---------------------------------------------------------------------------
HTB = ["qdisc add dev {i} root handle 1: htb default 1",
       "class add dev {i} parent 1: classid 1:1 htb rate {bw}mbit burst {b} cburst {b} "
       "overhead 24 mpu 84 quantum 1514"]


def htb(intf: str, bw: str) -> list[str]:
    return [line.format(i=intf, bw=bw, b=htb_burst(float(bw))) for line in HTB]


@pytest.mark.parametrize(("mbit", "burst"), [(10, 125), (30, 375), (100, 1250), (1000, 12500),
                                             (0.01, 1)])
def test_buckets_hold_a_tenth_of_a_millisecond_of_the_rate(mbit: float, burst: int) -> None:
    # below one full frame (1514 bytes) up to 100 Mbit/s: the second frame of two waits
    assert htb_burst(mbit) == burst


def test_a_rate_change_keeps_the_buckets_and_the_wire_overhead_in_step() -> None:
    assert htb_rate_change("ifb0", 50) == (
        "class change dev ifb0 parent 1: classid 1:1 htb rate 50mbit burst 625 cburst 625 "
        "overhead 24 mpu 84 quantum 1514\n")


@pytest.mark.parametrize("netem", [True, False])
def test_bandwidth_only_is_one_htb_class(netem: bool) -> None:
    assert lines(tc_batch("h0-eth0", LinkParams(bw_mbit=10), netem)) == htb("h0-eth0", "10")


@pytest.mark.parametrize(("bw", "text"), [(100.0, "100"), (2.5, "2.5"), (1000, "1000"),
                                          (0.125, "0.125")])
def test_bandwidth_is_written_without_trailing_zeros(bw: float, text: str) -> None:
    assert lines(tc_batch("s1-eth1", LinkParams(bw_mbit=bw), True)) == htb("s1-eth1", text)


def test_bandwidth_and_delay_hang_netem_under_the_htb_class() -> None:
    batch = lines(tc_batch("s1-eth2", LinkParams(bw_mbit=10, delay_ms=5), True))
    assert batch == [*htb("s1-eth2", "10"),
                     "qdisc add dev s1-eth2 parent 1:1 handle 10: netem delay 5ms"]


def test_netem_carries_delay_loss_and_queue_limit() -> None:
    p = LinkParams(bw_mbit=20, delay_ms=0.5, loss_pct=1.5, max_queue=100)
    batch = lines(tc_batch("x", p, True))
    assert batch[:2] == htb("x", "20")
    assert batch[2:] == ["qdisc add dev x parent 1:1 handle 10: netem delay 0.5ms loss 1.5% "
                         "limit 100"]


def test_delay_without_bandwidth_puts_netem_at_the_root() -> None:
    batch = lines(tc_batch("h3-eth0", LinkParams(bw_mbit=None, delay_ms=2), True))
    assert batch == ["qdisc add dev h3-eth0 root handle 10: netem delay 2ms"]
    assert "htb" not in "\n".join(batch)


def test_loss_alone_with_netem() -> None:
    batch = lines(tc_batch("i", LinkParams(bw_mbit=None, loss_pct=3), True))
    assert batch == ["qdisc add dev i root handle 10: netem loss 3%"]


def test_loss_without_netem_is_left_to_netfilter() -> None:
    # The loss goes into iptables rules (netfilter_loss), so tc only shapes bandwidth.
    assert lines(tc_batch("i", LinkParams(bw_mbit=10, loss_pct=3), False)) == htb("i", "10")
    assert tc_batch("i", LinkParams(bw_mbit=None, loss_pct=3), False) == ""


@pytest.mark.parametrize("netem", [True, False])
def test_queue_limit_without_netem_settings_is_a_pfifo(netem: bool) -> None:
    batch = lines(tc_batch("s2-eth1", LinkParams(bw_mbit=10, max_queue=50), netem))
    assert batch == [*htb("s2-eth1", "10"),
                     "qdisc add dev s2-eth1 parent 1:1 handle 10: pfifo limit 50"]
    root = lines(tc_batch("s2-eth1", LinkParams(bw_mbit=None, max_queue=50), netem))
    assert root == ["qdisc add dev s2-eth1 root handle 10: pfifo limit 50"]


def test_queue_limit_with_loss_but_no_netem_is_a_pfifo() -> None:
    batch = lines(tc_batch("i", LinkParams(bw_mbit=None, loss_pct=2, max_queue=30), False))
    assert batch == ["qdisc add dev i root handle 10: pfifo limit 30"]


@pytest.mark.parametrize("netem", [True, False])
def test_nothing_to_do_is_empty(netem: bool) -> None:
    assert tc_batch("h0-eth0", LinkParams(bw_mbit=None), netem) == ""
    assert tc_batch("h0-eth0", LinkParams(bw_mbit=None, delay_ms=0, loss_pct=0), netem) == ""


def test_every_line_is_a_tc_batch_command() -> None:
    p = LinkParams(bw_mbit=7, delay_ms=3, loss_pct=0.1, max_queue=10)
    for line in lines(tc_batch("veth7", p, True)):
        assert re.fullmatch(r"(qdisc|class) add dev veth7 \S.*", line), line


# ---- netfilter_loss ---------------------------------------------------------------------
def test_no_loss_no_rules() -> None:
    assert netfilter_loss("h0-eth0", LinkParams()) == []


@pytest.mark.parametrize(("loss", "prob", "threshold"),
                         [(1.5, "0.015", 15000), (50, "0.5", 500000), (0.01, "0.0001", 100),
                          (99.9, "0.999", 999000), (0.00001, "1e-07", 0)])
def test_loss_rules_drop_both_ways_with_the_probability(loss: float, prob: str,
                                                        threshold: int) -> None:
    rules = netfilter_loss("h1-eth0", LinkParams(loss_pct=loss))
    chain = "MCASTLAB_LOSS"
    assert f"iptables -w -A INPUT -i h1-eth0 -j {chain}" in rules[1]
    assert not any("OUTPUT" in r for r in rules)  # no EPERM to the sender: below IP
    assert rules[2] == (f"iptables -w -A {chain} -m statistic --mode random "
                        f"--probability {prob} -j DROP")
    assert float(prob) == pytest.approx(loss / 100)
    # outgoing: taken to the host's sink device, made first, as a wire loses a packet (a
    # drop there is reported to TCP, which then holds the segment unsent: LOSS_SINK)
    assert rules[3] == (f"{{ ip link show {LOSS_SINK} >/dev/null 2>&1 || "
                        f"ip link add {LOSS_SINK} type ifb; }}")
    out = rules[4]
    assert out.startswith("nft '") and 'hook egress device "h1-eth0"' in out
    assert out.endswith(f"meta protocol ip numgen random mod 1000000 < {threshold} "
                        f'fwd to "{LOSS_SINK}"\'')
    assert "drop" not in out


def test_run_time_loss_replaces_the_rate_and_cuts_off_at_100() -> None:
    assert netfilter_loss("h1-eth0", LinkParams()) == []
    off = netfilter_set_loss("h1-eth0", 0)
    assert "iptables -w -F MCASTLAB_LOSS" in off[0] and len(off) == 3
    assert off[-1].endswith("flush chain netdev mcastlab_loss out-h1-eth0'")  # no rule
    cut = netfilter_set_loss("h1-eth0", 100)
    assert cut[-3] == "iptables -w -A MCASTLAB_LOSS -j DROP"
    assert LOSS_SINK in cut[-2]
    assert cut[-1].endswith(f'out-h1-eth0 meta protocol ip fwd to "{LOSS_SINK}"\'')
    with pytest.raises(ValueError):
        netfilter_set_loss("h1-eth0", 101)
    multicast = netfilter_set_loss("h", 30, "multicast")
    assert "-p udp -d 224.0.0.0/4 -m statistic" in multicast[-3]
    assert "ip daddr 224.0.0.0/4 meta l4proto udp numgen" in multicast[-1]
    incoming = netfilter_set_loss("h", 50, "multicast-in")  # each receiver its own share
    assert "-p udp -d 224.0.0.0/4 -m statistic --mode random --probability 0.5" in incoming[-2]
    assert incoming[-1].endswith("flush chain netdev mcastlab_loss out-h'")  # sends whole
    assert not any(LOSS_SINK in c for c in incoming)  # no sink where nothing goes out lost
    with pytest.raises(ValueError):
        netfilter_set_loss("h1-eth0", 5, "tcp")


# ---- check ------------------------------------------------------------------------------
def two_switches(host_link: LinkParams, core_link: LinkParams) -> Topology:
    """h0 - s1 - s2 - h1 with the given link parameters."""
    return Topology(
        name="two", shape="file",
        hosts=[Host.numbered(0), Host.numbered(1)],
        switches=[Switch.numbered(1), Switch.numbered(2)],
        links=[Link("h0", 0, "s1", 1, host_link), Link("s1", 2, "s2", 1, core_link),
               Link("h1", 0, "s2", 2, host_link)])


def test_capable_machine_accepts_everything() -> None:
    topo = two_switches(LinkParams(bw_mbit=10, delay_ms=1, loss_pct=1, max_queue=5),
                        LinkParams(bw_mbit=100, delay_ms=2, loss_pct=2))
    check(topo, caps())


def test_delay_without_netem_names_netem_and_the_link() -> None:
    topo = parse_spec("star:hosts=2,delay_ms=5")
    link = topo.links[0]
    with pytest.raises(CapabilityError) as err:
        check(topo, caps(sch_netem=False))
    message = str(err.value)
    assert "netem" in message
    assert f"{link.node1}-{link.node2}" in message
    assert "5 ms" in message
    assert err.value.exit_code == 3


def test_no_delay_needs_no_netem() -> None:
    check(parse_spec("mesh:rows=2,cols=2"), caps(sch_netem=False, netfilter_statistic=False))


def test_host_link_loss_without_netem_uses_netfilter() -> None:
    topo = two_switches(LinkParams(loss_pct=2), LinkParams())
    check(topo, caps(sch_netem=False, netfilter_statistic=True))
    assert caps(sch_netem=False, netfilter_statistic=True).loss_mechanism == "netfilter"


def test_host_link_loss_without_netem_or_netfilter_is_refused() -> None:
    topo = two_switches(LinkParams(loss_pct=2), LinkParams())
    with pytest.raises(CapabilityError, match=r"h0-s1 .*2% loss.*\(also missing\)"):
        check(topo, caps(sch_netem=False, netfilter_statistic=False))


def test_switch_link_loss_without_netem_is_refused() -> None:
    topo = two_switches(LinkParams(), LinkParams(loss_pct=0.5))
    with pytest.raises(CapabilityError) as err:
        check(topo, caps(sch_netem=False, netfilter_statistic=True))
    message = str(err.value)
    assert "s1-s2" in message and "0.5% loss" in message and "sch_netem" in message
    assert "also missing" not in message


def test_bandwidth_without_htb_is_refused() -> None:
    topo = parse_spec("star:hosts=2,bw=25")
    with pytest.raises(CapabilityError) as err:
        check(topo, caps(sch_htb=False))
    message = str(err.value)
    assert "sch_htb" in message and "25 Mbit/s" in message
    assert f"{topo.links[0].node1}-{topo.links[0].node2}" in message


def test_unlimited_bandwidth_needs_no_htb() -> None:
    topo = parse_spec("star:hosts=3,bw=unlimited")
    assert all(link.params.bw_mbit is None for link in topo.links)
    check(topo, caps(sch_htb=False))


def test_check_names_the_first_offending_link() -> None:
    topo = two_switches(LinkParams(bw_mbit=None), LinkParams(bw_mbit=None, delay_ms=4))
    with pytest.raises(CapabilityError, match="s1-s2"):
        check(topo, caps(sch_netem=False))


# ---- nft_link_loss: switch-to-switch links ---------------------------------------------------
def test_nft_table_is_named_after_the_run() -> None:
    assert nft_table("20260101-120000-42") == "mcastlab-20260101-120000-42"


def test_nft_link_loss_drops_a_share_on_the_egress_of_both_ends() -> None:
    script = lines(nft_link_loss("mcastlab-r1", ["s1-eth1", "s2-eth1"], 10))
    assert script[0] == "add table netdev mcastlab-r1"
    for intf in ("s1-eth1", "s2-eth1"):
        chain = f"netdev mcastlab-r1 loss-{intf}"
        i = script.index(f"add chain {chain} {{ type filter hook egress device \"{intf}\" "
                         "priority 0 ; policy accept ; }")
        # flushed first: setting the rate again replaces it instead of adding a second rule
        assert script[i + 1:i + 3] == [
            f"flush chain {chain}",
            f"add rule {chain} numgen random mod 1000000 < 100000 counter drop"]
    assert len(script) == 7


@pytest.mark.parametrize(("pct", "rule"), [
    (100, "counter drop"),  # everything, with no draw
    (0.5, "numgen random mod 1000000 < 5000 counter drop"),
    (33.3333, "numgen random mod 1000000 < 333333 counter drop"),
])
def test_nft_link_loss_rates(pct: float, rule: str) -> None:
    assert lines(nft_link_loss("t", ["a"], pct))[-1] == f"add rule netdev t loss-a {rule}"


def test_nft_link_loss_zero_removes_the_chains() -> None:
    script = lines(nft_link_loss("t", ["s1-eth1", "s2-eth1"], 0))
    assert "drop" not in "\n".join(script)
    # added first, so the delete works whether or not the chain was there
    assert script[1].startswith("add chain netdev t loss-s1-eth1 ")
    assert script[2] == "delete chain netdev t loss-s1-eth1"
    assert script[4] == "delete chain netdev t loss-s2-eth1"


@pytest.mark.parametrize(("table", "intfs", "pct", "message"), [
    ("t", ["a"], -1, r"\[0, 100\]"), ("t", ["a"], 100.5, r"\[0, 100\]"),
    ("t", ['a"; flush ruleset'], 1, "not a name"), ("bad table", ["a"], 1, "not a name"),
])
def test_nft_link_loss_refuses_bad_input(table: str, intfs: list[str], pct: float,
                                         message: str) -> None:
    with pytest.raises(ValueError, match=message):
        nft_link_loss(table, intfs, pct)
