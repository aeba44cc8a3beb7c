"""Bursts of multicast datagrams, and their receivers: how long the last datagram of each
burst takes to reach a member, with no protocol on top (calibration's reference multicast).

    python -m testbed.hostprogs.mcast_burst recv GROUP PORT MY_IP BURSTS COUNT READY OUT
    python -m testbed.hostprogs.mcast_burst send GROUP PORT MY_IP BURSTS COUNT SIZE GAP OUT

The sender writes each burst's COUNT datagrams of SIZE bytes back to back (its link's
shaping paces them) and waits GAP seconds between bursts; it writes {burst: start time} to
OUT. A receiver joins, creates READY, and writes {burst: [datagrams, last arrival]} to OUT
(under "bursts") once it has every burst or heard nothing for a second, with how long it
waited for a core meanwhile ("sched": ns on a core, ns waiting, turns). Times are
time.time(): the hosts share one clock.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time

from collectives.timing import sched_self, sched_since

IDLE_S = 1.0


def receive(group: str, port: int, my_ip: str, bursts: int, count: int, ready: str,
            out: str) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((group, port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(my_ip)))
    open(ready, "w").close()
    sched0 = sched_self()
    got: dict[int, list[float]] = {}
    s.settimeout(IDLE_S * 10)  # the first burst comes once every receiver is ready
    while sum(1 for n, _t in got.values() if n >= count) < bursts:
        try:
            data = s.recv(65535)
        except TimeoutError:
            break
        now = time.time()
        s.settimeout(IDLE_S)
        burst = int(data[:8])
        entry = got.setdefault(burst, [0, now])
        entry[0] += 1
        entry[1] = now
    with open(out, "w") as f:
        json.dump({"bursts": got, "sched": list(sched_since(sched0))}, f)


def sender(my_ip: str) -> socket.socket:
    """A socket sending multicast from `my_ip` (no loopback), with room for a burst."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(my_ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    return s


def burst(s: socket.socket, payload: bytes, group: str, port: int, count: int) -> None:
    """`count` datagrams back to back (the link's shaping paces them)."""
    for _ in range(count):
        while True:
            try:
                s.sendto(payload, (group, port))
                break
            except OSError:  # ENOBUFS: the qdisc is full for a moment
                time.sleep(0.0002)


def send(group: str, port: int, my_ip: str, bursts: int, count: int, size: int, gap: float,
         out: str) -> None:
    s = sender(my_ip)
    starts = {}
    for b in range(bursts):
        starts[b] = time.time()
        burst(s, f"{b:08d}".encode().ljust(size, b"."), group, port, count)
        time.sleep(gap)
    with open(out, "w") as f:
        json.dump(starts, f)


def main() -> int:
    role, group, port, my_ip, bursts, count = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                               sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
    if role == "recv":
        receive(group, port, my_ip, bursts, count, sys.argv[7], sys.argv[8])
    else:
        send(group, port, my_ip, bursts, count, int(sys.argv[7]), float(sys.argv[8]),
             sys.argv[9])
    return 0


if __name__ == "__main__":
    sys.exit(main())
