"""IGMP v1/v2/v3 on the wire (pure), the project's one definition of it: `parse` reads a frame
into an `IgmpMessage`, `frame` writes one (as Ryu's lib/packet/igmp.py pairs a parser with
serialize). The controller parses what hosts send and builds its queries; the host programs
and the tests build the reports and leaves they send.

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


# ---- building messages ---------------------------------------------------------------------
QUERIER_MAC = "02:00:00:00:00:fe"
RECORD_TYPES = {name: code for code, name in RECORD_NAMES.items()}
ROUTER_ALERT = b"\x94\x04\x00\x00"  # RFC 2113, which RFC 2236 and 3376 ask of IGMP


def _mac(s: str) -> bytes:
    return bytes.fromhex(s.replace(":", ""))


def _mcast_mac(group: str) -> bytes:
    g = ipaddress.IPv4Address(group).packed
    return bytes([0x01, 0x00, 0x5E, g[1] & 0x7F, g[2], g[3]])


def _packed(addr: str) -> bytes:
    return ipaddress.IPv4Address(addr).packed


def join(group: str, src_ip: str, version: int = 3) -> IgmpMessage:
    """A host's join: a v1 or v2 report, or a v3 report of CHANGE_TO_EXCLUDE {}."""
    record = GroupRecord("to_ex" if version == 3 else "is_ex", group)
    return IgmpMessage(version, "report", src_ip=src_ip, records=(record,))


def leave(group: str, src_ip: str, version: int = 3) -> IgmpMessage:
    """A host's leave: a v2 leave, or a v3 report of CHANGE_TO_INCLUDE {}."""
    if version == 3:
        return IgmpMessage(3, "report", src_ip=src_ip, records=(GroupRecord("to_in", group),))
    return IgmpMessage(2, "leave", src_ip=src_ip, records=(GroupRecord("to_in", group),))


def message(msg: IgmpMessage) -> bytes:
    """The IGMP bytes of `msg`, checksum filled in: `parse` reads them back as `msg`."""
    if msg.kind == "query":
        q = msg.query or QueryFields()
        if msg.version == 3:
            flags = (0x08 if q.suppress else 0) | min(max(q.qrv, 0), 7)
            data = bytearray(struct.pack("!BBH4sBBH", QUERY, encode(q.max_resp_s * 10), 0,
                                         _packed(q.group), flags, encode(q.qqi_s),
                                         len(q.sources)))
            data += b"".join(_packed(a) for a in q.sources)
        else:  # v1 leaves the response time 0; v2 says it in tenths of a second
            code = 0 if msg.version == 1 else min(255, max(1, round(q.max_resp_s * 10)))
            data = bytearray(struct.pack("!BBH4s", QUERY, code, 0, _packed(q.group)))
    elif msg.version == 3:
        if msg.kind != "report":
            raise ValueError("IGMPv3 has no leave message: a report of to_in {} leaves")
        data = bytearray(struct.pack("!BBHHH", V3_REPORT, 0, 0, 0, len(msg.records)))
        for r in msg.records:
            srcs = sorted(r.sources, key=ipaddress.IPv4Address)
            data += struct.pack("!BBH4s", RECORD_TYPES[r.record], 0, len(srcs), _packed(r.group))
            data += b"".join(_packed(a) for a in srcs)
    else:
        if len(msg.records) != 1:
            raise ValueError(f"an IGMPv{msg.version} {msg.kind} names exactly one group")
        kind = {(1, "report"): V1_REPORT, (2, "report"): V2_REPORT,
                (2, "leave"): V2_LEAVE}.get((msg.version, msg.kind))
        if kind is None:
            raise ValueError(f"IGMPv{msg.version} has no {msg.kind} message")
        data = bytearray(struct.pack("!BBH4s", kind, 0, 0, _packed(msg.records[0].group)))
    struct.pack_into("!H", data, 2, checksum(bytes(data)))
    return bytes(data)


def destination(msg: IgmpMessage) -> str:
    """Where `msg` is sent (RFC 2236 section 9, RFC 3376 section 4.2.14): a query to its group
    (a general one to all hosts), a v1/v2 report to its group, a leave to all routers, a v3
    report to 224.0.0.22."""
    if msg.kind == "query":
        group = (msg.query or QueryFields()).group
        return ALL_HOSTS if group == "0.0.0.0" else group
    if msg.kind == "leave":
        return ALL_ROUTERS
    return V3_REPORTS if msg.version == 3 else msg.records[0].group


def ipv4_frame(src_mac: str, src_ip: str, dst_ip: str, payload: bytes,
               proto: int = IPPROTO_IGMP) -> bytes:
    """An Ethernet frame to `dst_ip`'s multicast MAC carrying `payload` in IPv4 as IGMP goes:
    TTL 1, precedence Internetwork Control, the Router Alert option."""
    total = 24 + len(payload)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x46, 0xC0, total, 0, 0, 1, proto, 0,
                               _packed(src_ip), _packed(dst_ip)) + ROUTER_ALERT)
    struct.pack_into("!H", ip, 10, checksum(bytes(ip)))
    return _mcast_mac(dst_ip) + _mac(src_mac) + struct.pack("!H", ETH_P_IP) + bytes(ip) + payload


def frame(msg: IgmpMessage, src_mac: str) -> bytes:
    """`msg` as an Ethernet frame from `src_mac` and msg.src_ip to its destination."""
    return ipv4_frame(src_mac, msg.src_ip, destination(msg), message(msg))


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
    """An IGMPv3 query frame from the querier: general (group None, to 224.0.0.1),
    group-specific or group-and-source-specific (to the group); `suppress` sets the S flag."""
    fields = QueryFields(group or "0.0.0.0", max_resp_s, suppress, robustness, qqi_s, sources)
    return frame(IgmpMessage(3, "query", src_ip=querier_ip, query=fields), QUERIER_MAC)
