"""collectives.ipmc.datagram: a round trip keeps every field; damaged datagrams, another key's
and an index beyond the count are rejected; the payload fits the MTU without IP
fragmentation, fragments cover the message, broadcast ids wrap, and wire_bits counts the
whole Ethernet frame; the allgather's aggregated report (GAPS) is a kind of its own, the
older kinds keep their numbers."""

from __future__ import annotations

import pytest

from collectives.ipmc import datagram as dg
from collectives.ipmc.plans import fragment_count, fragment_range

KEY = bytes(range(16))


def test_round_trip_keeps_every_field():
    c = dg.Codec(KEY)
    d = c.decode(c.encode(dg.DATA, 3, 77, 5, 9, b"payload"))
    assert (d.kind, d.root, d.bid, d.index, d.count, bytes(d.payload)) == \
        (dg.DATA, 3, 77, 5, 9, b"payload")


@pytest.mark.parametrize("mutate, reason", [
    (lambda b: b[:10], "short"),
    (lambda b: b[:20] + bytes([b[20] ^ 1]) + b[21:], "crc"),
    (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "tag"),
])
def test_damaged_datagrams_are_rejected(mutate, reason):
    c = dg.Codec(KEY)
    data = c.encode(dg.DATA, 0, 1, 0, 1, b"x" * 40)
    with pytest.raises(dg.Rejected) as e:
        c.decode(mutate(data))
    assert e.value.reason == reason


def test_another_key_is_rejected_even_with_a_valid_crc():
    forged = dg.Codec(bytes(16)).encode(dg.DATA, 0, 1, 0, 1, b"evil")
    with pytest.raises(dg.Rejected) as e:
        dg.Codec(KEY).decode(forged)
    assert e.value.reason == "tag"


def test_index_beyond_count_is_rejected():
    c = dg.Codec(KEY)
    with pytest.raises(dg.Rejected):
        c.decode(c.encode(dg.DATA, 0, 1, 4, 4, b""))
    # a parity symbol's index is block x PARITY_MAX + j, beyond the fragment count
    assert c.decode(c.encode(dg.PARITY, 0, 1, 200, 4, b"x")).index == 200


def test_payload_fits_the_mtu_without_ip_fragmentation():
    p = dg.payload_for_mtu(1500)
    assert p + dg.OVERHEAD + 28 == 1500 and p >= 1400


def test_bid_order_wraps():
    assert dg.ahead(1, 2) == 1 and dg.ahead(2, 1) == 0xFFFFFFFF
    assert dg.ahead(0xFFFFFFFF, 1) == 2 and dg.ahead(5, 5) == 0


def test_fragments_cover_the_message():
    assert fragment_count(0, 1444) == 1 and fragment_range(0, 0, 1444) == (0, 0)
    assert fragment_count(1444, 1444) == 1 and fragment_count(1445, 1444) == 2
    assert fragment_range(1, 1445, 1444) == (1444, 1445)


def test_wire_bits_counts_the_whole_ethernet_frame():
    from collectives.ipmc.datagram import payload_for_mtu, wire_bits

    # the largest payload for a 1500-byte MTU fills a 1538-byte frame slot on the wire
    assert wire_bits(payload_for_mtu(1500)) == 1538 * 8


def test_the_aggregated_report_kind_round_trips_and_the_older_kinds_keep_their_numbers():
    c = dg.Codec(KEY)
    d = c.decode(c.encode(dg.GAPS, 5, 9, 0, 16, b"\xff\xff"))
    assert (d.kind, d.root, d.count, bytes(d.payload)) == (dg.GAPS, 5, 16, b"\xff\xff")
    assert (dg.DATA, dg.END, dg.REPORT, dg.PARITY, dg.GAPS) == (1, 4, 5, 6, 7)
