"""LLDP frames that name a switch port (pure): the controller sends one out of every port
and learns a link when it comes back in at another switch."""

from __future__ import annotations

import struct

ETH_TYPE_LLDP = 0x88CC
LLDP_MAC = "01:80:c2:00:00:0e"
_SRC_MAC = bytes.fromhex("020000000001")
_LOCAL = 7  # chassis / port id subtype "locally assigned"


def _tlv(kind: int, value: bytes) -> bytes:
    return struct.pack("!H", kind << 9 | len(value)) + value


def frame(dpid: int, port: int, ttl: int = 120) -> bytes:
    """An LLDP frame saying "sent by switch `dpid` out of `port`"."""
    body = (_tlv(1, bytes([_LOCAL]) + f"dpid:{dpid:016x}".encode())
            + _tlv(2, bytes([_LOCAL]) + str(port).encode())
            + _tlv(3, struct.pack("!H", ttl)) + _tlv(0, b""))
    return bytes.fromhex(LLDP_MAC.replace(":", "")) + _SRC_MAC + struct.pack("!H", ETH_TYPE_LLDP) \
        + body


def parse(data: bytes) -> tuple[int, int] | None:
    """(dpid, port) named by one of our LLDP frames; None for anything else."""
    if len(data) < 14 or struct.unpack_from("!H", data, 12)[0] != ETH_TYPE_LLDP:
        return None
    off, dpid, port = 14, None, None
    while off + 2 <= len(data):
        head = struct.unpack_from("!H", data, off)[0]
        kind, length = head >> 9, head & 0x1FF
        value = data[off + 2:off + 2 + length]
        if kind == 0 or len(value) < length:
            break
        try:
            if kind == 1 and value[:1] == bytes([_LOCAL]) and value[1:6] == b"dpid:":
                dpid = int(value[6:].decode(), 16)
            elif kind == 2 and value[:1] == bytes([_LOCAL]):
                port = int(value[1:].decode())
        except ValueError:
            return None
        off += 2 + length
    return (dpid, port) if dpid is not None and port is not None else None
