"""Count IPv4/UDP frames to a group prefix arriving on an interface for DURATION seconds,
joined or not (a raw packet socket sees what the wire delivers): {"count": N, "by": {"SRC
GROUP": N}}, the total and per source and group.

    python -m testbed.hostprogs.mcast_sniff IFACE PREFIX DURATION [READY_FILE | -] [--until-stop]
        [--at-least=N]

READY_FILE is created once the socket listens; with "-" the line "ready" on stdout says so
instead (a host on another server of a cluster: its stdout comes back through ssh).
With --until-stop the count also ends once a line arrives on standard input or the input
ends (the caller's senders are done; through ssh too) and then QUIET_S pass without a
frame of the prefix: what was still queued on the way is counted, and a caller need not
sit out a DURATION chosen for the slowest case. DURATION stays the limit. With --at-least=N
the quiet time starts only once N frames have come: a caller that knows N are on their way
waits for them (the first frames of a new flow go through the controller, which a busy
machine may keep for longer than QUIET_S), not for a time.
"""

from __future__ import annotations

import ipaddress
import json
import os
import select
import socket
import sys
import time

PACKET_OUTGOING = 4
# After the input ends: this long without a frame of the prefix ends the count. A frame a
# switch forwards at all reaches the wire within milliseconds of its sender (one that goes
# to the controller first, within tens); frames that queue behind a shaped link keep
# arriving one after the other, so the silence only starts once the queue is empty.
QUIET_S = 0.5


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    until_stop = "--until-stop" in sys.argv[1:]
    at_least = max([int(a.split("=", 1)[1]) for a in sys.argv[1:]
                    if a.startswith("--at-least=")] or [0])
    iface, prefix, duration = args[0], ipaddress.IPv4Network(args[1]), float(args[2])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((iface, 0))
    if len(args) > 3 and args[3] == "-":
        print("ready", flush=True)
    elif len(args) > 3:
        open(args[3], "w").close()
    watched: list = [s, sys.stdin] if until_stop else [s]
    n, by = 0, dict[str, int]()  # datagrams, and per "source group"
    limit, quiet_from = time.monotonic() + duration, None  # quiet_from: told to stop
    while True:
        now = time.monotonic()
        end = limit if quiet_from is None or n < at_least else min(limit, quiet_from + QUIET_S)
        if now >= end:
            break
        readable, _, _ = select.select(watched, [], [], min(0.2, end - now))
        if sys.stdin in readable:
            os.read(sys.stdin.fileno(), 4096)  # a line or the end: either says stop
            watched.remove(sys.stdin)
            quiet_from = time.monotonic()
        if s not in readable:
            continue
        data, addr = s.recvfrom(65535)
        if addr[2] != PACKET_OUTGOING and data[12:14] == b"\x08\x00" and data[23] == 17 \
                and ipaddress.IPv4Address(data[30:34]) in prefix:
            n += 1
            key = f"{socket.inet_ntoa(data[26:30])} {socket.inet_ntoa(data[30:34])}"
            by[key] = by.get(key, 0) + 1
            if quiet_from is not None:
                quiet_from = time.monotonic()
    print(json.dumps({"count": n, "by": by}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
