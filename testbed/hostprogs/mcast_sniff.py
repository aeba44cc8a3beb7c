"""Count IPv4/UDP frames to a group prefix arriving on an interface for DURATION seconds,
joined or not (a raw packet socket sees what the wire delivers): {"count": N, "by": {"SRC
GROUP": N}}, the total and per source and group.

    python -m testbed.hostprogs.mcast_sniff IFACE PREFIX DURATION [READY_FILE | -]

READY_FILE is created once the socket listens; with "-" the line "ready" on stdout says so
instead (a host on another server of a cluster: its stdout comes back through ssh).
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import time

PACKET_OUTGOING = 4


def main() -> int:
    iface, prefix, duration = sys.argv[1], ipaddress.IPv4Network(sys.argv[2]), \
        float(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((iface, 0))
    if len(sys.argv) > 4 and sys.argv[4] == "-":
        print("ready", flush=True)
    elif len(sys.argv) > 4:
        open(sys.argv[4], "w").close()
    s.settimeout(0.2)
    n, by, end = 0, {}, time.monotonic() + duration
    while time.monotonic() < end:
        try:
            data, addr = s.recvfrom(65535)
        except TimeoutError:
            continue
        if addr[2] != PACKET_OUTGOING and data[12:14] == b"\x08\x00" and data[23] == 17 \
                and ipaddress.IPv4Address(data[30:34]) in prefix:
            n += 1
            key = f"{socket.inet_ntoa(data[26:30])} {socket.inet_ntoa(data[30:34])}"
            by[key] = by.get(key, 0) + 1
    print(json.dumps({"count": n, "by": by}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
