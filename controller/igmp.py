"""IGMP v1/v2/v3 on the wire (pure): parse what hosts send, build what the querier sends.

Parsing is strict because the input may be hostile: every malformed frame raises
`IgmpError` with a short reason the controller counts. A report or leave becomes group
records with their sources, v1/v2 messages as RFC 3376 section 7.3.2 maps them (a report is
IS_EX {}, a leave TO_IN {}), for the per-port source-filter state (controller.source_filter).
A query keeps its fields, for querier election. Query format (RFC 3376 4.1):

     0                   1                   2                   3
     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    |  Type = 0x11  | Max Resp Code |           Checksum            |
    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    |                         Group Address                         |
    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    | Resv  |S| QRV |     QQIC      |     Number of Sources (N)     |
    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    |                       Source Address [1..N]                   |
    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

ETH_P_IP = 0x0800
ETH_P_8021Q = 0x8100
IPPROTO_IGMP = 2

QUERY = 0x11
V1_REPORT = 0x12
V2_REPORT = 0x16
V2_LEAVE = 0x17
V3_REPORT = 0x22

# IGMPv3 group record types (RFC 3376 section 4.2.12)
MODE_IS_INCLUDE, MODE_IS_EXCLUDE, CHANGE_TO_INCLUDE, CHANGE_TO_EXCLUDE = 1, 2, 3, 4
ALLOW_NEW_SOURCES, BLOCK_OLD_SOURCES = 5, 6

ALL_HOSTS = "224.0.0.1"
ALL_ROUTERS = "224.0.0.2"
V3_REPORTS = "224.0.0.22"


# their names in controller.source_filter.RECORDS
RECORD_NAMES = {MODE_IS_INCLUDE: "is_in", MODE_IS_EXCLUDE: "is_ex", CHANGE_TO_INCLUDE: "to_in",
                CHANGE_TO_EXCLUDE: "to_ex", ALLOW_NEW_SOURCES: "allow",
                BLOCK_OLD_SOURCES: "block"}


class IgmpError(ValueError):
    """A frame that is not valid IGMP; the message is the counter's name."""


UNKNOWN_TYPE = "unknown_type"  # a well-formed IGMP message of a type this module does not know


@dataclass(frozen=True)
class GroupRecord:
    """One IGMPv3 group record (RFC 3376 4.2.4): its type by name (RECORD_NAMES), the group
    and the source addresses."""

    record: str
    group: str
    sources: frozenset[str] = frozenset()


@dataclass(frozen=True)
class QueryFields:
    """A query's fields (v1/v2 queries have only the group and the response time)."""

    group: str = "0.0.0.0"  # 0.0.0.0: a general query
    max_resp_s: float = 10.0
    suppress: bool = False
    qrv: int = 0
    qqi_s: float = 0.0
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class IgmpMessage:
    """What a host said: a report's or leave's group records, or a query's fields."""

    version: int
    kind: str  # "report" | "leave" | "query"
    src_ip: str = ""
    records: tuple[GroupRecord, ...] = ()
    query: QueryFields | None = None


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _is_multicast(addr: str) -> bool:
    return ipaddress.IPv4Address(addr).is_multicast


def ipv4_payload(frame: bytes) -> tuple[str, str, int, bytes]:
    """(src ip, dst ip, protocol, payload) of an Ethernet/IPv4 frame; IgmpError otherwise."""
    if len(frame) < 14:
        raise IgmpError("truncated")
    eth_type = struct.unpack_from("!H", frame, 12)[0]
    off = 14
    if eth_type == ETH_P_8021Q:
        if len(frame) < 18:
            raise IgmpError("truncated")
        eth_type, off = struct.unpack_from("!H", frame, 16)[0], 18
    if eth_type != ETH_P_IP:
        raise IgmpError("not_ipv4")
    if len(frame) < off + 20:
        raise IgmpError("truncated")
    vihl, total_len = frame[off], struct.unpack_from("!H", frame, off + 2)[0]
    ihl = (vihl & 0x0F) * 4
    if vihl >> 4 != 4 or ihl < 20 or total_len < ihl or len(frame) < off + total_len:
        raise IgmpError("bad_ip_header")
    if checksum(frame[off:off + ihl]) != 0:
        raise IgmpError("bad_ip_checksum")
    src = str(ipaddress.IPv4Address(frame[off + 12:off + 16]))
    dst = str(ipaddress.IPv4Address(frame[off + 16:off + 20]))
    return src, dst, frame[off + 9], frame[off + ihl:off + total_len]


def parse(frame: bytes) -> IgmpMessage:
    """Parse an Ethernet frame carrying IGMP."""
    src, dst, proto, igmp = ipv4_payload(frame)
    if proto != IPPROTO_IGMP:
        raise IgmpError("not_igmp")
    if len(igmp) < 8:
        raise IgmpError("truncated")
    if checksum(igmp) != 0:
        raise IgmpError("bad_checksum")
    kind = igmp[0]
    group = str(ipaddress.IPv4Address(igmp[4:8]))
    if kind in (V1_REPORT, V2_REPORT):
        if not _is_multicast(group) or group == ALL_HOSTS:
            raise IgmpError("bad_group")
        return IgmpMessage(1 if kind == V1_REPORT else 2, "report", src_ip=src,
                           records=(GroupRecord("is_ex", group),))
    if kind == V2_LEAVE:
        if not _is_multicast(group):
            raise IgmpError("bad_group")
        return IgmpMessage(2, "leave", src_ip=src, records=(GroupRecord("to_in", group),))
    if kind == QUERY:
        return _parse_query(igmp, src, group)
    if kind == V3_REPORT:
        return _parse_v3(igmp, src)
    raise IgmpError(UNKNOWN_TYPE)


def _parse_query(igmp: bytes, src: str, group: str) -> IgmpMessage:
    if group != "0.0.0.0" and not _is_multicast(group):
        raise IgmpError("bad_group")
    if len(igmp) < 12:  # v1 (no response time) or v2
        version = 2 if igmp[1] else 1
        fields = QueryFields(group, igmp[1] / 10 if igmp[1] else 10.0)
        return IgmpMessage(version, "query", src_ip=src, query=fields)
    flags, qqic, nsrc = igmp[8], igmp[9], struct.unpack_from("!H", igmp, 10)[0]
    if len(igmp) < 12 + 4 * nsrc:
        raise IgmpError("truncated")
    sources = tuple(str(ipaddress.IPv4Address(igmp[12 + 4 * i:16 + 4 * i]))
                    for i in range(nsrc))
    fields = QueryFields(group, decode(igmp[1]) / 10, bool(flags & 0x08), flags & 0x07,
                         float(decode(qqic)), sources)
    return IgmpMessage(3, "query", src_ip=src, query=fields)


def _parse_v3(igmp: bytes, src: str) -> IgmpMessage:
    nrec = struct.unpack_from("!H", igmp, 6)[0]
    off, records = 8, []
    for _ in range(nrec):
        if len(igmp) < off + 8:
            raise IgmpError("truncated")
        rtype, aux, nsrc = igmp[off], igmp[off + 1], struct.unpack_from("!H", igmp, off + 2)[0]
        group = str(ipaddress.IPv4Address(igmp[off + 4:off + 8]))
        first = off + 8
        off += 8 + 4 * nsrc + 4 * aux
        if len(igmp) < off:
            raise IgmpError("truncated")
        if not _is_multicast(group):
            raise IgmpError("bad_group")
        if rtype not in RECORD_NAMES:
            continue  # RFC 3376 4.2.12: unrecognized record types are silently ignored
        sources = frozenset(str(ipaddress.IPv4Address(igmp[first + 4 * i:first + 4 * i + 4]))
                            for i in range(nsrc))
        records.append(GroupRecord(RECORD_NAMES[rtype], group, sources))
    return IgmpMessage(3, "report", src_ip=src, records=tuple(records))


# ---- what the querier sends ---------------------------------------------------------------
QUERIER_MAC = "02:00:00:00:00:fe"


def _mac(s: str) -> bytes:
    return bytes.fromhex(s.replace(":", ""))


def _mcast_mac(group: str) -> bytes:
    g = ipaddress.IPv4Address(group).packed
    return bytes([0x01, 0x00, 0x5E, g[1] & 0x7F, g[2], g[3]])


def decode(code: int) -> int:
    """The value of an IGMPv3 Max Resp Code or QQIC (RFC 3376 4.1.1, 4.1.7)."""
    if code < 128:
        return code
    return ((code & 0x0F) | 0x10) << (((code >> 4) & 0x07) + 3)


def encode(seconds: float) -> int:
    """IGMPv3 max-response / QQIC code for a value in tenths of seconds / seconds."""
    v = max(1, int(round(seconds)))
    if v < 128:
        return v
    for exp in range(8):
        mant = (v >> (exp + 3)) - 16
        if 0 <= mant < 16:
            return 0x80 | (exp << 4) | mant
    return 0xFF


# sources one query carries: its frame within a 1500-byte IP packet (24 bytes of IPv4 with
# Router Alert, 12 of query, 4 a source): a group-and-source query naming more would be
# fragmented or lost, and past 65535 its count field overflows (RFC 3376 4.1.8)
MAX_QUERY_SOURCES = (1500 - 24 - 12) // 4


def queries(querier_ip: str, group: str | None, max_resp_s: float, qqi_s: float,
            robustness: int = 2, sources: tuple[str, ...] = (),
            suppress: bool = False) -> list[bytes]:
    """`query`, split into frames of at most MAX_QUERY_SOURCES sources each (one frame
    without sources)."""
    chunks = [sources[i:i + MAX_QUERY_SOURCES]
              for i in range(0, len(sources), MAX_QUERY_SOURCES)] or [()]
    return [query(querier_ip, group, max_resp_s, qqi_s, robustness, c, suppress)
            for c in chunks]


def query(querier_ip: str, group: str | None, max_resp_s: float, qqi_s: float,
          robustness: int = 2, sources: tuple[str, ...] = (), suppress: bool = False) -> bytes:
    """An IGMPv3 query frame: general (group None, to 224.0.0.1), group-specific or
    group-and-source-specific (to the group); `suppress` sets the S flag. IPv4 carries the
    Router Alert option, as RFC 3376 requires."""
    dst = group or ALL_HOSTS
    flags = (0x08 if suppress else 0) | min(robustness, 7)
    igmp = bytearray(struct.pack("!BBH4sBBH", QUERY, encode(max_resp_s * 10), 0,
                                 ipaddress.IPv4Address(group or "0.0.0.0").packed,
                                 flags, encode(qqi_s), len(sources)))
    for s in sources:
        igmp += ipaddress.IPv4Address(s).packed
    struct.pack_into("!H", igmp, 2, checksum(bytes(igmp)))
    ra = b"\x94\x04\x00\x00"
    total = 24 + len(igmp)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x46, 0xC0, total, 0, 0, 1, IPPROTO_IGMP, 0,
                               ipaddress.IPv4Address(querier_ip).packed,
                               ipaddress.IPv4Address(dst).packed) + ra)
    struct.pack_into("!H", ip, 10, checksum(bytes(ip)))
    eth = _mcast_mac(dst) + _mac(QUERIER_MAC) + struct.pack("!H", ETH_P_IP)
    return eth + bytes(ip) + bytes(igmp)
