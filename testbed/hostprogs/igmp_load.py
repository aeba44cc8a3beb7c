"""Offer IGMP load: RATE messages per second (alternating IGMPv2 report and leave of
ever-new groups) from this host's interface, for DURATION seconds. Prints how many it sent.

    python -m testbed.hostprogs.igmp_load IFACE SRC_IP SRC_MAC RATE DURATION SEED
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time


def _csum(b: bytes) -> int:
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(kind: int, group: str, src_ip: str, src_mac: str) -> bytes:
    g = socket.inet_aton(group)
    dst = socket.inet_aton("224.0.0.2") if kind == 0x17 else g
    igmp = bytearray(struct.pack("!BBH4s", kind, 0, 0, g))
    struct.pack_into("!H", igmp, 2, _csum(bytes(igmp)))
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0xC0, 28, 0, 0, 1, 2, 0,
                               socket.inet_aton(src_ip), dst))
    struct.pack_into("!H", ip, 10, _csum(bytes(ip)))
    mac = bytes([1, 0, 0x5E, dst[1] & 0x7F, dst[2], dst[3]])
    return mac + bytes.fromhex(src_mac.replace(":", "")) + b"\x08\x00" + ip + igmp


def main() -> int:
    iface, src_ip, src_mac = sys.argv[1], sys.argv[2], sys.argv[3]
    rate, duration, seed = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    frames = []
    for i in range(2000):
        group = f"239.{100 + seed % 50}.{i // 250}.{i % 250 + 1}"
        frames += [frame(0x16, group, src_ip, src_mac), frame(0x17, group, src_ip, src_mac)]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    start, sent = time.monotonic(), 0
    while (now := time.monotonic()) < start + duration:
        due = int((now - start) * rate)
        while sent < due:
            s.send(frames[sent % len(frames)])
            sent += 1
        time.sleep(0.001)
    print(json.dumps({"sent": sent, "seconds": time.monotonic() - start}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
