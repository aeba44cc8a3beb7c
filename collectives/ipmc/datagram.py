"""The multicast datagram: header, payload, CRC-32 and an authentication tag.

    [version:1][kind:1][root:2][bid:4][index:4][count:4] payload [crc32:4][tag:8]

bid is the communicator's collective sequence number (the same on every rank), index and
count place the fragment (a parity symbol's index names its block and number instead).
root is the rank that sent the datagram, for data, parity and end markers the rank whose
message it carries: in the concurrent allgather every rank is a root at once, and root
tells the p blocks on the one group apart (ipmc.concurrent). GAPS (kind 7) is that
allgather's aggregated report (ipmc.gapreport), root its reporter, count the ranks; a
decoder before it rejects the kind ("kind"), the other kinds are as they were. ACK (kind 8)
is nack's aggregated "complete" (ipmc.acktree), root its sender, covering its subtree of
the tree of acknowledgements.
The CRC (Siebert2006) covers header and payload; the tag is a keyed
BLAKE2b of everything before it, with a key only the communicator's ranks hold, so a
datagram sent by any other host, or by another communicator that happens to share the group,
is rejected, never delivered (a replay of a genuine one is bounded by the channel's window of
collectives, ipmc.channel). Big-endian throughout."""

from __future__ import annotations

import hashlib
import hmac
import struct
import zlib
from dataclasses import dataclass

VERSION = 1
DATA, PROBE, RELEASE, END, REPORT, PARITY, GAPS, ACK = 1, 2, 3, 4, 5, 6, 7, 8
KINDS = (DATA, PROBE, RELEASE, END, REPORT, PARITY, GAPS, ACK)

HEADER = struct.Struct("!BBHIII")
CRC = struct.Struct("!I")
TAG_SIZE = 8
TRAILER_SIZE = CRC.size + TAG_SIZE
OVERHEAD = HEADER.size + TRAILER_SIZE
IP_UDP_HEADERS = 20 + 8
ETHERNET_FRAMING = 38  # preamble 8, header 14, FCS 4, inter-frame gap 12
KEY_SIZE = 16


MAX_PAYLOAD = 65507 - OVERHEAD  # the largest UDP payload over IPv4, less ours


def check_fragment(fragment: int) -> int:
    """A fragment (payload) size a datagram can carry, or ValueError."""
    if not 1 <= fragment <= MAX_PAYLOAD:
        raise ValueError(f"fragment size must be in 1..{MAX_PAYLOAD}, got {fragment}")
    return fragment


def wire_bits(payload: int) -> int:
    """Bits a datagram with this payload occupies on an Ethernet link, framing included."""
    return (payload + OVERHEAD + IP_UDP_HEADERS + ETHERNET_FRAMING) * 8


def payload_for_mtu(mtu: int) -> int:
    """The largest payload whose datagram fits the link MTU without IP fragmentation."""
    return mtu - IP_UDP_HEADERS - OVERHEAD


@dataclass(frozen=True, slots=True)
class Datagram:
    kind: int
    root: int
    bid: int
    index: int
    count: int
    payload: memoryview
    at: float = 0.0  # when it reached the host (the kernel's receive time, time.time()'s
    # clock; 0: not known)


class Rejected(ValueError):
    """A datagram that must not be delivered; `reason` is the counter it goes to."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Codec:
    """Encodes and checks datagrams for one communicator's key."""

    def __init__(self, key: bytes):
        if len(key) != KEY_SIZE:
            raise ValueError(f"the key must be {KEY_SIZE} bytes, got {len(key)}")
        self._key = key

    def _tag(self, data: bytes | memoryview) -> bytes:
        return hashlib.blake2b(data, key=self._key, digest_size=TAG_SIZE).digest()

    def encode(self, kind: int, root: int, bid: int, index: int, count: int,
               payload: bytes | memoryview = b"") -> bytes:
        body = HEADER.pack(VERSION, kind, root, bid & 0xFFFFFFFF, index, count) + bytes(payload)
        body += CRC.pack(zlib.crc32(body))
        return body + self._tag(body)

    def decode(self, data: bytes | bytearray | memoryview, at: float = 0.0) -> Datagram:
        """The datagram (that reached the host `at`), or Rejected('short' | 'crc' | 'tag' |
        'version' | 'kind' | 'index')."""
        view = memoryview(data)
        n = len(view)
        if n < OVERHEAD:
            raise Rejected("short")
        body_end = n - TRAILER_SIZE
        (crc,) = CRC.unpack_from(view, body_end)
        if zlib.crc32(view[:body_end]) != crc:
            raise Rejected("crc")
        if not hmac.compare_digest(self._tag(view[: n - TAG_SIZE]), view[n - TAG_SIZE:]):
            raise Rejected("tag")  # in constant time: no timing tells a forger how far it got
        version, kind, root, bid, index, count = HEADER.unpack_from(view)
        if version != VERSION:
            raise Rejected("version")
        if kind not in KINDS:
            raise Rejected("kind")
        if index >= max(count, 1) and kind != PARITY:  # a parity symbol's index: ipmc.parity
            raise Rejected("index")
        return Datagram(kind, root, bid, index, count, view[HEADER.size:body_end], at)


def ahead(a: int, b: int) -> int:
    """How many collectives broadcast id b comes after a, in 32-bit serial-number arithmetic
    (RFC 1982); a b before a is nearly 2**32 ahead."""
    return (b - a) & 0xFFFFFFFF
