"""Every topology shape at a small size, on the real stack: all-pairs ping with no loss and
TCP between the two most distant hosts, along routes the controller installed; on the fat
tree and the torus, socket joins deliver a group to exactly its members too (test_multicast's
check, on the networks brought up here)."""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

import pytest

from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import deliver_to_exactly_the_members
from .netutil import all_pairs_ping, tcp_transfer

TRAIN = Path(__file__).with_name("udp_train.py")

SHAPES = [
    "star:hosts=4",
    "tree:leaves=2,hosts_per_leaf=2",
    "fattree:k=2,n=3",
    "mesh:rows=2,cols=3",
    "torus:rows=3,cols=3",
    "bmin:n=2",
    str(Path(__file__).parents[2] / "topologies/examples/dumbbell.toml"),
]
# the shapes with many paths where test_multicast's delivery check runs too
MULTICAST = {"fattree:k=2,n=3", "torus:rows=3,cols=3"}


@pytest.mark.parametrize("spec", SHAPES)
def test_all_pairs_ping_and_tcp_between_most_distant(spec, caps, clean_after, tmp_path):
    topo = parse_spec(spec)
    with Emulation(topo, caps=caps) as emu:
        if spec in MULTICAST:
            deliver_to_exactly_the_members(emu, tmp_path)
        reached = all_pairs_ping(emu)
        n = len(topo.hosts)
        assert len(reached) == n * (n - 1)
        unreached = [pair for pair, ok in reached.items() if not ok]
        assert not unreached, f"{spec}: no reply for {unreached}"

        a, b = topo.diameter_pair()
        assert topo.hops(a.name, b.name) == max(
            topo.hops(x.name, y.name) for x in topo.hosts for y in topo.hosts)
        # iperf3's receiver counts what arrived by the end of the test: up to a queue's worth
        # (HTB's 1000 frames, 1.5 MB) can still be in flight then, so the transfer is larger
        # (4 MB: 0.32 s on the wire at 100 Mbit/s; 8 MB, as it was, took 2.2 s more of the
        # module's seven shapes, and the bounds below hold the same for either)
        got = tcp_transfer(emu, a.name, b.name, nbytes=4_000_000)
        assert got["sent"]["bytes"] >= 4_000_000
        assert got["received"]["bytes"] > 2_000_000
        # Links are 100 Mbit/s: TCP gets through, and no faster than the shaped rate.
        assert 5e6 < got["received"]["bits_per_second"] < 105e6


def _train(emu, trains: int, count: int, size: int, gap: float) -> list[list[float]]:
    """UDP datagrams from h0 to h1 as [index, sent, arrived] (tests/integration/udp_train)."""
    h0, h1 = emu.host("h0"), emu.host("h1")
    out = emu.run_dir / "train.json"
    recv = h1.popen([sys.executable, str(TRAIN), "recv", "29510", str(trains * count),
                     str(out)])
    deadline = time.monotonic() + 10
    while not Path(str(out) + ".ready").exists():
        assert recv.poll() is None and time.monotonic() < deadline, "receiver did not bind"
        time.sleep(0.01)
    h0.cmd(sys.executable, TRAIN, "send", h1.IP(), 29510, trains, count, size, gap)
    recv.wait(timeout=30)
    return json.loads(out.read_text())


def test_link_rate_is_enforced_and_a_frame_behind_another_waits_its_wire_time(caps, clean_after):
    with Emulation(parse_spec("star:hosts=2,bw=10"), caps=caps) as emu:
        # the sender's link queue, sampled while TCP fills it: every packet in it is one
        # frame (1514 bytes at most), or a packet of many frames would leave at once and pay
        # afterwards (this kernel's TCP built them of 6-10 frames with `gso off`: a message
        # counted as gone while its last frames were still to be sent)
        queue = emu.host("h0").popen(
            ["sh", "-c", "for i in $(seq 40); do tc -s qdisc show dev h0-eth0 root; "
                         "sleep 0.04; done"], text=True)
        got = tcp_transfer(emu, "h0", "h1", nbytes=3_000_000)
        assert 6e6 < got["received"]["bits_per_second"] < 10.5e6, got
        backlog = [(int(b), int(p)) for b, p in
                   re.findall(r"backlog (\d+)b (\d+)p", queue.communicate(timeout=30)[0])]
        busy = [(b, p) for b, p in backlog if p]
        assert len(busy) >= 10, backlog
        assert max(b / p for b, p in busy) <= 1514, busy
        # Pairs of 1 KiB datagrams, 50 ms apart: the first of a pair leaves at once (a token
        # bucket cannot delay a lone frame), the second waits the first's wire time (1090
        # bytes with headers, 24 of preamble, gap and FCS: 0.89 ms at 10 Mbit/s). tc's
        # default buckets let both through together.
        pairs = _train(emu, 8, 2, 1024, 0.05)
        wire = (1024 + 8 + 20 + 14 + 24) * 8 / 10e6
        second = sorted(arrived - pairs[i - 1][1] for i, (_, _, arrived) in enumerate(pairs)
                        if i % 2)
        assert len(second) == 8 and statistics.median(second) > 0.85 * wire, second
        # Trains of 10 full frames: each after the first one wire time (1538 bytes). The
        # median of 3 trains: one train's last arrival once came 5 ms late (the receiver
        # waited for a core at the end of a full test run).
        trains = _train(emu, 3, 10, 1472, 0.05)
        frame = 1538 * 8 / 10e6
        spans = [trains[t + 9][2] - trains[t][1] for t in range(0, len(trains), 10)]
        span = statistics.median(spans)
        assert len(trains) == 30 and 0.9 * 9 * frame < span < 9 * frame + 0.004, (spans, frame)
