"""controller.igmp against frames crafted with scapy: v1, v2 and v3 reports and leaves parsed
as RFC 3376 7.3.2 records, malformed and random input refused with IgmpError alone, and
every message built read back and equal to scapy's. A query naming many sources is split to
fit the MTU."""

from __future__ import annotations

import random
import struct
from collections import Counter

import pytest
from scapy.all import IP, Ether, Raw, raw
from scapy.layers.igmp import IGMP, IGMPv3, IGMPv3_MQ, IGMPv3_MR, IGMPv3_MR_Group

from controller import igmp
from controller.membership import Membership

from .addresses import GROUP, sources


def test_a_query_naming_many_sources_is_split_to_fit_the_mtu() -> None:
    many = sources(1000)
    frames = igmp.queries("10.0.255.254", GROUP, 1.0, 125.0, 2, many)
    assert len(frames) == 3 and all(len(f) <= 14 + 1500 for f in frames)
    parsed = [igmp.parse(f).query for f in frames]
    assert sum((q.sources for q in parsed), ()) == many
    assert len(igmp.queries("10.0.255.254", GROUP, 1.0, 125.0, 2, sources(70000))) == 192
    assert len(igmp.queries("10.0.255.254", None, 10.0, 125.0)) == 1  # a general query


def frame(payload, dst: str = "224.0.0.22") -> bytes:
    return raw(Ether(src="00:00:00:00:00:02") / IP(src="10.0.0.2", dst=dst, proto=2) / payload)


def test_v1_and_v2_reports_and_v2_leave_as_section_7_3_2_records():
    m = igmp.parse(frame(IGMP(type=0x12, gaddr="239.1.1.1"), "239.1.1.1"))
    assert (m.version, m.kind, m.src_ip) == (1, "report", "10.0.0.2")
    assert m.records == (igmp.GroupRecord("is_ex", "239.1.1.1"),)
    m = igmp.parse(frame(IGMP(type=0x16, gaddr="239.1.1.2"), "239.1.1.2"))
    assert (m.version, m.kind) == (2, "report")
    assert m.records == (igmp.GroupRecord("is_ex", "239.1.1.2"),)
    m = igmp.parse(frame(IGMP(type=0x17, gaddr="239.1.1.2"), "224.0.0.2"))
    assert (m.version, m.kind) == (2, "leave")
    assert m.records == (igmp.GroupRecord("to_in", "239.1.1.2"),)


def test_v3_report_with_several_records():
    recs = [IGMPv3_MR_Group(rtype=6, maddr="239.0.0.1", srcaddrs=["10.0.0.9"]),
            IGMPv3_MR_Group(rtype=4, maddr="239.0.0.2"),
            IGMPv3_MR_Group(rtype=3, maddr="239.0.0.3")]
    m = igmp.parse(frame(IGMPv3_MR(records=recs)))
    assert (m.version, m.kind) == (3, "report")
    assert [(r.record, r.group, set(r.sources)) for r in m.records] == [
        ("block", "239.0.0.1", {"10.0.0.9"}), ("to_ex", "239.0.0.2", set()),
        ("to_in", "239.0.0.3", set())]


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


def fix_checksums(data: bytearray) -> None:
    """Make a mutated frame's IPv4 and IGMP checksums right again, where its lengths allow,
    so the fuzzing reaches the parser beyond them."""
    ihl = (data[14] & 0x0F) * 4 if len(data) > 14 else 0
    if ihl < 20 or len(data) < 14 + ihl:
        return
    data[24:26] = b"\0\0"
    data[24:26] = igmp.checksum(bytes(data[14:14 + ihl])).to_bytes(2, "big")
    end = 14 + struct.unpack_from("!H", data, 16)[0]
    if 14 + ihl + 4 <= end <= len(data):
        data[14 + ihl + 2:14 + ihl + 4] = b"\0\0"
        csum = igmp.checksum(bytes(data[14 + ihl:end]))
        data[14 + ihl + 2:14 + ihl + 4] = csum.to_bytes(2, "big")


def test_random_bytes_never_raise_anything_but_igmp_error():
    rng = random.Random(7)
    bases = [frame(IGMPv3_MR(records=[IGMPv3_MR_Group(rtype=2, maddr="239.0.0.1"),
                                      IGMPv3_MR_Group(rtype=6, maddr="239.0.0.2",
                                                      srcaddrs=["10.0.0.1", "10.0.0.2"])])),
             igmp.query("10.0.0.9", "239.0.0.1", 1.0, 125.0, 2, ("10.0.0.1",), True)]
    parsed, state = Counter(), Membership()
    for i in range(10000):
        data = bytearray(bases[i % 2])
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(14, len(data))] = rng.randrange(256)
        if i % 4:
            fix_checksums(data)
        data = data[: rng.randint(0, len(data))] if i % 8 == 0 else data
        try:
            msg = igmp.parse(bytes(data))
        except igmp.IgmpError as exc:
            parsed[str(exc)] += 1
            continue
        parsed[msg.kind] += 1
        for r in msg.records:  # and the state takes whatever parses
            state.record(r.group, "h1", r.record, r.sources, i / 100, msg.version)
        state.expire(i / 100)
    assert parsed["report"] > 500 and parsed["query"] > 500, parsed  # the fuzz got deep


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


def test_queries_of_every_version_keep_their_fields():
    v1 = igmp.parse(frame(IGMP(type=0x11, mrcode=0, gaddr="0.0.0.0"), "224.0.0.1"))
    assert (v1.version, v1.kind, v1.query.group) == (1, "query", "0.0.0.0")
    v2 = igmp.parse(frame(IGMP(type=0x11, mrcode=50, gaddr="239.1.1.1"), "239.1.1.1"))
    assert (v2.version, v2.query.group, v2.query.max_resp_s) == (2, "239.1.1.1", 5.0)
    # by hand (RFC 3376 4.1): Max Resp Code 0x8F is (0xF | 0x10) << (0 + 3) = 248 tenths,
    # flags 0x0B are S=1 and QRV=3, QQIC 0x8C is (0xC | 0x10) << 3 = 224 s
    q = bytearray(struct.pack("!BBH4sBBH8s", 0x11, 0x8F, 0, bytes([239, 1, 1, 1]), 0x0B, 0x8C,
                              2, bytes([10, 0, 0, 1, 10, 0, 0, 2])))
    struct.pack_into("!H", q, 2, igmp.checksum(bytes(q)))
    v3 = igmp.parse(frame(Raw(bytes(q)), "239.1.1.1"))
    assert v3.version == 3 and v3.src_ip == "10.0.0.2"
    assert v3.query == igmp.QueryFields("239.1.1.1", 24.8, True, 3, 224.0,
                                        ("10.0.0.1", "10.0.0.2"))
    struct.pack_into("!H", q, 2, 0)
    struct.pack_into("!H", q, 10, 5)  # claims five sources
    struct.pack_into("!H", q, 2, igmp.checksum(bytes(q)))
    with pytest.raises(igmp.IgmpError, match="truncated"):
        igmp.parse(frame(Raw(bytes(q)), "239.1.1.1"))


def test_group_and_source_specific_queries_carry_the_sources_and_the_s_flag():
    raw_q = igmp.query("10.0.255.254", "232.1.2.3", max_resp_s=1, qqi_s=125, robustness=2,
                       sources=("10.0.0.1", "10.0.0.4"), suppress=True)
    q = Ether(raw_q)
    mq = q[IGMPv3_MQ]
    assert q[IP].dst == "232.1.2.3" and mq.gaddr == "232.1.2.3"
    assert (mq.numsrc, list(mq.srcaddrs), mq.s, mq.qrv) == (2, ["10.0.0.1", "10.0.0.4"], 1, 2)
    assert igmp.checksum(raw(q[IP].payload)) == 0
    assert igmp.parse(raw_q).query.sources == ("10.0.0.1", "10.0.0.4")


@pytest.mark.parametrize("value", [1, 100, 127, 128, 200, 1000, 3100, 31744])
def test_codes_round_trip_within_the_floating_point_format(value):
    got = igmp.decode(igmp.encode(value))
    assert got <= value and value - got < max(1, value / 16)


def test_unrecognized_record_types_are_silently_ignored():  # RFC 3376 4.2.12
    recs = [IGMPv3_MR_Group(rtype=9, maddr="239.0.0.1", srcaddrs=["10.0.0.9"]),
            IGMPv3_MR_Group(rtype=2, maddr="239.0.0.2")]
    m = igmp.parse(frame(IGMPv3_MR(records=recs)))
    assert m.records == (igmp.GroupRecord("is_ex", "239.0.0.2"),)


# ---- building: one definition for the controller, the host programs and the tests ---------
SRC, MAC = "10.0.0.2", "02:00:00:00:00:02"
BUILT = [
    igmp.join("239.1.1.1", SRC, 1), igmp.join("239.1.1.1", SRC, 2),
    igmp.leave("239.1.1.1", SRC, 2), igmp.join("239.1.1.1", SRC, 3),
    igmp.leave("239.1.1.1", SRC, 3),
    igmp.IgmpMessage(3, "report", SRC, records=(
        igmp.GroupRecord("allow", "232.1.1.1", frozenset({"10.0.0.9", "10.0.0.10"})),
        igmp.GroupRecord("block", "239.2.2.2", frozenset({"10.0.1.1"})),
        igmp.GroupRecord("is_in", "232.1.1.2", frozenset()))),
    igmp.IgmpMessage(1, "query", SRC, query=igmp.QueryFields()),
    igmp.IgmpMessage(2, "query", SRC, query=igmp.QueryFields("239.1.1.1", 1.0)),
    igmp.IgmpMessage(3, "query", SRC, query=igmp.QueryFields(
        "239.1.1.1", 2.0, True, 3, 60.0, ("10.0.0.5", "10.0.0.6"))),
]
# what scapy (another implementation) builds for each (RFC 2236 puts 0 in a report's max
# response field, where scapy's default is 20)
SCAPY = [
    IGMP(type=0x12, mrcode=0, gaddr="239.1.1.1"), IGMP(type=0x16, mrcode=0, gaddr="239.1.1.1"),
    IGMP(type=0x17, mrcode=0, gaddr="239.1.1.1"),
    IGMPv3_MR(records=[IGMPv3_MR_Group(rtype=4, maddr="239.1.1.1")]),
    IGMPv3_MR(records=[IGMPv3_MR_Group(rtype=3, maddr="239.1.1.1")]),
    IGMPv3_MR(records=[
        IGMPv3_MR_Group(rtype=5, maddr="232.1.1.1", srcaddrs=["10.0.0.9", "10.0.0.10"]),
        IGMPv3_MR_Group(rtype=6, maddr="239.2.2.2", srcaddrs=["10.0.1.1"]),
        IGMPv3_MR_Group(rtype=1, maddr="232.1.1.2")]),
    IGMP(type=0x11, mrcode=0, gaddr="0.0.0.0"), IGMP(type=0x11, mrcode=10, gaddr="239.1.1.1"),
    IGMPv3_MQ(mrcode=20, gaddr="239.1.1.1", s=1, qrv=3, qqic=60,
              srcaddrs=["10.0.0.5", "10.0.0.6"]),
]


@pytest.mark.parametrize(("msg", "theirs"), list(zip(BUILT, SCAPY, strict=True)))
def test_every_message_built_is_read_back_and_is_what_scapy_builds(msg, theirs) -> None:
    data = igmp.frame(msg, MAC)
    assert igmp.parse(data) == msg
    assert igmp.message(msg) == raw(theirs)  # byte for byte, checksum included
    ip = IP(data[14:])  # scapy reads our IPv4: TTL 1, router alert, to where it goes
    assert ip.ttl == 1 and ip.options[0].option == 20 and ip.dst == igmp.destination(msg)
    assert data[:6] == bytes.fromhex("01005e") + bytes([int(x) for x in ip.dst.split(".")[1:]])


def test_what_no_version_has_is_refused() -> None:
    with pytest.raises(ValueError, match="IGMPv1 has no leave"):
        igmp.message(igmp.IgmpMessage(1, "leave", SRC,
                                      records=(igmp.GroupRecord("to_in", "239.1.1.1"),)))
    with pytest.raises(ValueError, match="exactly one group"):
        igmp.message(igmp.IgmpMessage(2, "report", SRC))
