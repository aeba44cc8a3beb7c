"""IGMP parsing against frames crafted with scapy, malformed input, and the querier's frames."""

from __future__ import annotations

import contextlib
import random

import pytest
from scapy.all import IP, Ether, raw
from scapy.layers.igmp import IGMP, IGMPv3, IGMPv3_MQ, IGMPv3_MR, IGMPv3_MR_Group

from controller import igmp


def frame(payload, dst: str = "224.0.0.22") -> bytes:
    return raw(Ether(src="00:00:00:00:00:02") / IP(src="10.0.0.2", dst=dst) / payload)


def test_v1_and_v2_reports_and_v2_leave():
    m = igmp.parse(frame(IGMP(type=0x12, gaddr="239.1.1.1"), "239.1.1.1"))
    assert (m.version, m.kind, m.joins, m.src_ip) == (1, "report", ("239.1.1.1",), "10.0.0.2")
    m = igmp.parse(frame(IGMP(type=0x16, gaddr="239.1.1.2"), "239.1.1.2"))
    assert (m.version, m.kind, m.joins) == (2, "report", ("239.1.1.2",))
    m = igmp.parse(frame(IGMP(type=0x17, gaddr="239.1.1.2"), "224.0.0.2"))
    assert (m.version, m.kind, m.leaves) == (2, "leave", ("239.1.1.2",))


@pytest.mark.parametrize(("rtype", "nsrc", "join"), [
    (2, 0, True), (4, 0, True),       # MODE_IS_EXCLUDE{}, TO_EX{}: joins
    (1, 0, False), (3, 0, False),     # INCLUDE{}, TO_IN{}: leaves
    (1, 1, True), (5, 1, True),       # INCLUDE{S}, ALLOW{S}: joins (sources ignored)
])
def test_v3_records(rtype, nsrc, join):
    rec = IGMPv3_MR_Group(rtype=rtype, maddr="239.9.9.9", srcaddrs=["10.0.0.5"] * nsrc)
    m = igmp.parse(frame(IGMPv3_MR(records=[rec])))
    assert m.version == 3 and m.kind == "report"
    assert (m.joins, m.leaves) == ((("239.9.9.9",), ()) if join else ((), ("239.9.9.9",)))


def test_v3_block_changes_nothing_and_several_records_count():
    recs = [IGMPv3_MR_Group(rtype=6, maddr="239.0.0.1", srcaddrs=["10.0.0.9"]),
            IGMPv3_MR_Group(rtype=4, maddr="239.0.0.2"),
            IGMPv3_MR_Group(rtype=3, maddr="239.0.0.3")]
    m = igmp.parse(frame(IGMPv3_MR(records=recs)))
    assert (m.joins, m.leaves) == (("239.0.0.2",), ("239.0.0.3",))


@pytest.mark.parametrize(("data", "reason"), [
    (b"\x01\x02", "truncated"),
    (raw(Ether() / (b"\x00" * 40)), "not_ipv4"),
])
def test_garbage_is_refused_with_a_reason(data, reason):
    with pytest.raises(igmp.IgmpError, match=reason):
        igmp.parse(data)


def test_bad_checksum_truncation_unknown_type_bad_group():
    good = bytearray(frame(IGMP(type=0x16, gaddr="239.1.1.1"), "239.1.1.1"))
    bad = bytearray(good)
    bad[-1] ^= 0xFF
    with pytest.raises(igmp.IgmpError, match="bad_checksum"):
        igmp.parse(bytes(bad))
    with pytest.raises(igmp.IgmpError, match="bad_ip_header|truncated"):
        igmp.parse(bytes(good[:-3]))
    with pytest.raises(igmp.IgmpError, match="unknown_type"):
        igmp.parse(frame(IGMP(type=0x42, gaddr="239.1.1.1")))
    with pytest.raises(igmp.IgmpError, match="bad_group"):
        igmp.parse(frame(IGMP(type=0x16, gaddr="10.1.1.1")))
    short = IGMPv3_MR(records=[IGMPv3_MR_Group(rtype=2, maddr="239.0.0.1")])
    short.numgrp = 3  # claims records that are not there
    with pytest.raises(igmp.IgmpError, match="truncated"):
        igmp.parse(frame(short))


def test_random_bytes_never_raise_anything_but_igmp_error():
    rng = random.Random(7)
    base = frame(IGMPv3_MR(records=[IGMPv3_MR_Group(rtype=2, maddr="239.0.0.1")]))
    for _ in range(3000):
        data = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = data[: rng.randint(0, len(data))]
        with contextlib.suppress(igmp.IgmpError):
            igmp.parse(bytes(data))


def test_queries_are_valid_igmpv3_with_router_alert():
    q = Ether(igmp.query("10.0.255.254", None, max_resp_s=10, qqi_s=125))
    assert q[IP].dst == "224.0.0.1" and q.dst == "01:00:5e:00:00:01"
    assert q[IP].ttl == 1 and q[IP].options[0].option == 20  # router alert
    assert isinstance(q[IP].payload, IGMPv3)
    assert q[IGMPv3_MQ].gaddr == "0.0.0.0"
    assert igmp.checksum(raw(q[IP])[:24]) == 0 and igmp.checksum(raw(q[IP].payload)) == 0
    g = Ether(igmp.query("10.0.255.254", "239.4.5.6", max_resp_s=1, qqi_s=2))
    assert g[IP].dst == "239.4.5.6" and g.dst == "01:00:5e:04:05:06"
    assert g[IGMPv3_MQ].gaddr == "239.4.5.6"
    assert igmp.parse(raw(g)).kind == "query"  # what the controller would see from another querier


def test_v3_records_keep_their_type_group_and_sources():
    from controller.source_filter import RECORDS

    recs = [IGMPv3_MR_Group(rtype=t, maddr=f"239.0.0.{t}",
                            srcaddrs=[f"10.0.0.{t}", "10.0.0.9"][:t % 3]) for t in range(1, 7)]
    m = igmp.parse(frame(IGMPv3_MR(records=recs)))
    assert [r.record for r in m.records] == list(RECORDS)
    assert m.records[0] == igmp.GroupRecord("is_in", "239.0.0.1", frozenset({"10.0.0.1"}))
    assert m.records[1].sources == frozenset({"10.0.0.2", "10.0.0.9"})
    assert m.records[2].sources == frozenset()  # TO_IN{}: a leave
    assert set(igmp.RECORD_NAMES.values()) == set(RECORDS)
