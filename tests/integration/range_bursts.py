"""Bursts of range multicasts timed where they arrive (test_contiguous's lane test); the
hosts share the machine's clock.

    recv PORT COUNT READY GROUP...          join every GROUP, create READY, then print
        {GROUP: [datagrams, first, last]} once every group has COUNT datagrams or nothing
        came for IDLE_S; first and last are the kernel's receive stamps (the frame reaching
        the host), so a receiver waiting for a core does not move them.
    send GROUP PORT MY_IP COUNT SIZE        print "ready", read a start time on stdin, wait
        for it, then write COUNT datagrams of SIZE bytes back to back (the host link's
        shaping paces them) and print {"start": the time before the first}.

Senders given one start time start together: each sleeps until just before it and spins
the rest, so a loaded machine's wake-up latency does not set one apart (a sender woken by
its input alone started 60 ms after the other once).
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time
from pathlib import Path

from testbed.hostprogs.mcast_burst import burst, sender

IDLE_S = 1.0
SPIN_S = 0.05  # a sender spins this long before its start
SO_TIMESTAMPNS = 35  # Linux; socket has no name for it
TIMESPEC = struct.Struct("qq")


def receive(port: int, count: int, ready: str, groups: list[str]) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(("", port))
    for g in groups:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     struct.pack("4s4s", socket.inet_aton(g), socket.inet_aton("0.0.0.0")))
    got: dict[str, list[float]] = {g: [0, 0.0, 0.0] for g in groups}
    Path(ready).touch()
    s.settimeout(IDLE_S * 10)  # the bursts start once every receiver is ready
    while any(n < count for n, _f, _l in got.values()):
        try:
            data, anc, _flags, _addr = s.recvmsg(65535, 64)
        except TimeoutError:
            break
        s.settimeout(IDLE_S)
        sec, nsec = TIMESPEC.unpack(anc[0][2][:TIMESPEC.size])
        stamp = sec + nsec / 1e9
        # IP_PKTINFO would name the group; the payload does, cheaper
        group = data[:16].decode().strip()
        entry = got[group]
        entry[0] += 1
        entry[1] = entry[1] or stamp
        entry[2] = stamp
    print(json.dumps(got))


def send(group: str, port: int, my_ip: str, count: int, size: int) -> None:
    s = sender(my_ip)
    payload = group.ljust(16).encode().ljust(size, b".")
    print("ready", flush=True)
    at = float(sys.stdin.readline())
    time.sleep(max(0.0, at - SPIN_S - time.time()))
    while (start := time.time()) < at:
        pass
    burst(s, payload, group, port, count)
    print(json.dumps({"start": start}), flush=True)


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "recv":
        receive(int(a[2]), int(a[3]), a[4], a[5:])
    else:
        send(a[2], int(a[3]), a[4], int(a[5]), int(a[6]))
