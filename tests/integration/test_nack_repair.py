"""NACK's repair acts on evidence, not on fixed timers: with chosen datagrams dropped by
netfilter rules in the hosts (the end marker, the only fragment, everything a receiver
should hear, fragments on the root's own link), every broadcast completes, every rank's
bytes are right, and it takes a few group round trips, where the fixed timers it replaces
took 100 ms at least. The root's account of each broadcast (collectives.ipmc.accounting:
repair rounds, detection, the GRTT it used, end markers, completions over MPI, rescues) says
what the loss cost it.

Datagram layout (collectives.ipmc.datagram): after the 8-byte UDP header, version (1 byte), kind
(1: data, 4: end), root (2), bid (4), index (4). nft's `@th,OFFSET,LEN` reads bits from the
transport header; `quota until N bytes` matches while fewer than N bytes passed, counting
the packet itself, so a rule can drop a first copy and let the re-sent one through."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator

from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .shared import shared_network

KIND = "@th,72,8"
INDEX = "@th,128,32"
DATA, END, REPORT, PARITY, ACK = 1, 4, 5, 6, 8
HEADERS = 20 + 8 + 16 + 12  # IP, UDP, our header, CRC and tag
END_PAYLOAD = 12  # an end marker's sequence number and the root's GRTT (ipmc.nack)


def first(payload: int = 0) -> str:
    """Matches the first packet of this payload only (a quota counts the IP length)."""
    return f"quota until {HEADERS + payload + 1} bytes"


BOUND_S = 0.06  # the old fixed timers alone took 0.1 s; a few GRTT here is ~1-10 ms


# the tests that change only their own rules share one star (tests/integration/shared.py)
emu, emu_network = shared_network("emu", "star:hosts=4,bw=100")


@contextlib.contextmanager
def dropping(emu, name: str, hook: str, *rules: str, match: str = "ip daddr 224.0.0.0/4",
             table: str = "mcastlab_test") -> Iterator[None]:
    """nft rules dropping datagrams (multicast ones unless `match` says otherwise) in one
    host while the block runs (the shared network is left without them)."""
    drop(emu, name, hook, *rules, match=match, table=table)
    try:
        yield
    finally:
        emu.host(name).cmd(f"nft delete table inet {table}")


def drop(emu, name: str, hook: str, *rules: str, match: str = "ip daddr 224.0.0.0/4",
         table: str = "mcastlab_test") -> None:
    """nft rules dropping datagrams (multicast ones unless `match` says otherwise) in one
    host (in their own table: one per hook)."""
    script = [f"add table inet {table}",
              f"add chain inet {table} c {{ type filter hook {hook} priority 0 ; }}"]
    script += [f"add rule inet {table} c {match} {r} counter drop" for r in rules]
    path = emu.run_dir / f"drop-{name}-{table}.nft"
    path.write_text("\n".join(script) + "\n")
    out = emu.host(name).cmd(f"nft -f {path}; echo rc=$?")
    assert out.strip().endswith("rc=0"), out


def dropped(emu, name: str, table: str = "mcastlab_test") -> int:
    """Packets the rules in this host's table dropped so far."""
    out = emu.host(name).cmd(f"nft list table inet {table}")
    return sum(int(n) for n in re.findall(r"counter packets (\d+)", out))


def nack(emu, size: int, *extra: str, env: dict[str, str] | None = None) -> dict:
    res = run_mpi(emu, ["-m", "collectives.programs.verify", "--algorithms", "nack", "--sizes",
                        str(size), "--roots", "0", *extra], timeout=120, env=env)
    (got,) = [json.loads(ln) for out in res.rank_output.values() for ln in out.splitlines()
              if ln.startswith("{")]
    assert got["all_correct"], got
    return got


def account(got: dict, case: int = 0) -> dict:
    """The root's repair account of one broadcast (collectives.ipmc.accounting)."""
    return {k: column[case] for k, column in got["repairs"].items()}


def test_lost_end_marker_and_last_fragment_cost_a_few_round_trips(emu):
    # h2 loses the first copy of the end marker and of the last of 16 fragments: only
    # the repeated end marker tells it the broadcast is over
    size = 16 * 1400
    with dropping(emu, "h2", "input", f"{KIND} {END} {first(END_PAYLOAD)}",
                  f"{KIND} {DATA} {INDEX} 15 {first(1400)}"):
        got = nack(emu, size, "--mcast-fragment", "1400")
        assert dropped(emu, "h2") == 2  # the first end marker and the last fragment
    assert got["datagrams"]["repaired"] >= 1
    assert got["seconds"][0] < BOUND_S + 2 * got["grtt_s"], got
    acc = account(got)
    # h2 learnt of its gap from the second end marker, 2 GRTT after the first, or from a
    # later one: a receiver that wakes late (a loaded machine) reads end markers queued
    # meanwhile, and its report names the last it saw
    assert acc["rounds"] >= 1 and acc["end_markers"] >= 3, acc
    assert 2 <= acc["detect_at"] <= acc["end_markers"], acc
    assert 2 * acc["grtt_s"] < acc["detect_s"] < got["seconds"][0], acc


def test_a_lost_only_fragment_is_repaired_at_once(emu):
    with dropping(emu, "h1", "input", f"{KIND} {DATA} {first(1024)}"):
        got = nack(emu, 1024, "--repeat", "2")  # the second broadcast loses nothing
        assert dropped(emu, "h1") == 1
    assert got["datagrams"]["repaired"] >= 1
    assert got["seconds"][0] < BOUND_S, got
    lost, clean = account(got, 0), account(got, 1)
    # h1 reported at an end marker (a lone lost fragment is provable no sooner: the first,
    # or a later one where h1 woke late and read those queued meanwhile): one repair,
    # detected within the broadcast
    assert lost["rounds"] == 1 and 0 < lost["detect_s"] < got["seconds"][0], lost
    assert 1 <= lost["detect_at"] <= lost["end_markers"], lost
    # the clean one: no repair, no rescue. Its end markers repeat by the group round trip
    # (1.3 ms here) until every "complete" is in: a receiver woken late on a loaded machine
    # costs repeats (3 in a CI run of 2026-12-07), never a repair
    assert clean["rounds"] == 0 and clean["detect_s"] is None, clean
    assert clean["end_markers"] >= 1 and clean["rescued"] == 0, clean


def test_a_receiver_that_hears_nothing_at_first(emu):
    # every fragment of the broadcast and its first three end markers never reach h3
    with dropping(emu, "h3", "input",
                  f"{KIND} {DATA} quota until {8 * (HEADERS + 1400) + 1} bytes",
                  f"{KIND} {END} quota until {3 * (HEADERS + END_PAYLOAD) + 1} bytes"):
        got = nack(emu, 8 * 1400, "--mcast-fragment", "1400")
        assert dropped(emu, "h3") == 8 + 3
    assert got["datagrams"]["repaired"] >= 8
    acc = account(got)
    assert acc["rounds"] >= 1 and acc["end_markers"] >= 4 + acc["rounds"], acc
    assert got["seconds"][0] < BOUND_S + 8 * got["grtt_s"], got


def test_loss_on_the_roots_own_link_is_repaired_by_multicast(emu):
    # every receiver misses fragments 3, 4 and 5: they go again once, to the group
    with dropping(emu, "h0", "output",
                  *(f"{KIND} {DATA} {INDEX} {i} {first(1400)}" for i in (3, 4, 5))):
        got = nack(emu, 16 * 1400, "--mcast-fragment", "1400")
    assert got["datagrams"]["repaired"] >= 3 * 3  # three receivers, three fragments each
    assert got["seconds"][0] < BOUND_S, got
    acc = account(got)
    assert acc["rounds"] >= 1 and acc["detect_s"] is not None and acc["rescued"] == 0, acc
    # at the last fragment or an end marker (a receiver that woke late names the last end
    # marker it read, which need not be the first)
    assert 0 <= acc["detect_at"] <= acc["end_markers"], acc


def test_a_receiver_whose_reports_are_all_lost_completes_over_mpi(emu):
    # nothing h2 reports (its "complete"s, its answers to end markers: reports, or ACKs
    # in the tree of acknowledgements) reaches the root: the copy of its "complete" sent
    # over MPI ends the broadcast
    with dropping(emu, "h2", "output", f"{KIND} {{ {REPORT}, {ACK} }}",
                  match="meta l4proto udp"):
        got = nack(emu, 4 * 1400, "--mcast-fragment", "1400")
        # its "complete" went out (once: it saw no loss, ipmc.acktree.copies) and was lost
        assert dropped(emu, "h2") >= 1
    assert got["seconds"][0] < BOUND_S, got
    acc = account(got)
    assert (acc["rounds"], acc["detect_s"]) == (0, None) and acc["by_mpi"] >= 1, acc


def test_a_receiver_that_hears_no_multicast_is_sent_the_message_over_mpi(emu):
    """A receiver that never reports is almost always one that returned and whose
    "complete"s were lost (its MPI copy comes), so it is sent nothing at first; only after
    RESCUE_QUIET_S of silence does it get the message over MPI (here it hears nothing: its
    data, end markers and repairs are all dropped)."""
    from collectives.ipmc.nack import RESCUE_QUIET_S

    with dropping(emu, "h3", "input", *(f"{KIND} {k}" for k in (DATA, END, PARITY))):
        got = nack(emu, 8 * 1400, "--mcast-fragment", "1400")
        assert dropped(emu, "h3") >= 8 + 20  # every fragment, the robust end markers
    assert RESCUE_QUIET_S < got["seconds"][0] < RESCUE_QUIET_S + 5, got
    acc = account(got)
    assert acc["rescued"] == 1 and acc["rounds"] == 0 and acc["detect_s"] is None, acc


def test_up_a_tree_of_acks_loss_is_repaired_and_lost_acks_are_made_good(emu):
    # acks up a binary tree (0 <- 1, 2; 1 <- 3): h3 misses the first copy of fragment 2
    # (repaired by the root as ever: its gap report goes to the root) and every ACK it
    # sends is lost (to its parent h1 and, later, to the root): its MPI copy to h1 covers it
    with dropping(emu, "h3", "input", f"{KIND} {DATA} {INDEX} 2 {first(1400)}"), \
            dropping(emu, "h3", "output", f"{KIND} {ACK}", match="meta l4proto udp",
                     table="mcastlab_test_out"):
        got = nack(emu, 8 * 1400, "--mcast-fragment", "1400", "--acks", "tree",
                   "--ack-fanout", "2", "--repeat", "2")
        assert dropped(emu, "h3") == 1  # the first copy of fragment 2
        assert dropped(emu, "h3", "mcastlab_test_out") >= 2  # an ACK in each broadcast
    assert got["datagrams"]["repaired"] >= 1
    lost, clean = account(got, 0), account(got, 1)
    assert lost["rounds"] >= 1 and lost["detect_s"] is not None and lost["rescued"] == 0
    # the root hears h3 through h1's ACK (h1 took h3's MPI copy), never over MPI itself
    assert lost["by_mpi"] == 0 and clean["by_mpi"] == 0, (lost, clean)
    assert clean["rounds"] == 0 and clean["rescued"] == 0, clean
    assert max(got["seconds"]) < BOUND_S, got


SLOW_LINK = """
[defaults]
bw = 100
[[switches]]
name = "s1"
[[hosts]]
name = "h0"
[[hosts]]
name = "h1"
[[hosts]]
name = "h2"
[[hosts]]
name = "h3"
[[links]]
a = "h0"
b = "s1"
[[links]]
a = "h1"
b = "s1"
[[links]]
a = "h2"
b = "s1"
[[links]]
a = "h3"
b = "s1"
bw = 10
max_queue = 50
"""


def test_a_slow_receiver_brings_the_pace_down(caps, clean_after, tmp_path):
    # h3's link is a tenth of the others' with a 50-packet queue, but the root is told the
    # links run at 100 Mbit/s: its first pass loses most of what h3 should get, and h3's
    # timing of that pass (it took it in ten times as long as the root sent it) sets the
    # next pace to the rate h3 takes data in
    spec = tmp_path / "slow.toml"
    spec.write_text(SLOW_LINK)
    size = 128 * 1400
    with Emulation(parse_spec(str(spec)), caps=caps) as emu:
        got = nack(emu, size, "--mcast-fragment", "1400", "--repeat", "5",
                   env={"MCASTLAB_LINK_MBIT": "100"})
    slow_rate = 10e6
    assert 0.5 * slow_rate < got["pace_bps"] < 1.5 * slow_rate, got
    # h3's report lowers the pace within the first broadcast (its repair goes at h3's rate);
    # later ones cost about their wire time at h3's rate (a rank's time in a broadcast also
    # holds its wait for the root to finish the one before)
    wire = size * 8 / slow_rate
    assert got["seconds"][0] < 3 * wire, got
    assert min(got["seconds"][1:]) < 1.5 * wire + 2 * got["grtt_s"], got
