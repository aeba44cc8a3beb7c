"""Join-to-first-datagram and leave-to-silence, counted on the wire: for each of N fresh
groups, name the group in CONTROL_FILE (a streaming sender follows it), wait SETTLE s, join
and time the first datagram at the socket; HOLD s later leave (close the socket: the kernel
reports the leave) and time the last datagram of that group seen on the interface after it
(a raw socket sees what the switch still sends, which the kernel's filter would hide), once
QUIET s pass without one (QUIET 0: leaves are not timed). Prints one JSON line: "join_s" and
"leave_s" lists (None: no datagram within 5 s of the join, or not timed).

    python -m testbed.hostprogs.join_leave_probe CONTROL_FILE IFACE MY_IP N SETTLE FIRST
        [HOLD QUIET]
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

PACKET_OUTGOING = 4


def main() -> int:
    control, iface, my_ip = sys.argv[1], sys.argv[2], sys.argv[3]
    n, settle, first = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    hold = float(sys.argv[7]) if len(sys.argv) > 7 else 0.2
    quiet = float(sys.argv[8]) if len(sys.argv) > 8 else 1.0
    wire = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    wire.bind((iface, 0))
    joins: list[float | None] = []
    leaves: list[float | None] = []
    for i in range(first, first + n):
        group = f"239.78.{i // 250}.{i % 250 + 1}"
        packed = socket.inet_aton(group)
        with open(control + ".tmp", "w") as f:
            f.write(group)
        os.replace(control + ".tmp", control)
        time.sleep(settle)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("", 5001))
        s.settimeout(5.0)
        t0 = time.monotonic()
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                     packed + socket.inet_aton(my_ip))
        try:
            s.recvfrom(2048)
            joins.append(time.monotonic() - t0)
        except TimeoutError:
            joins.append(None)
            s.close()
            leaves.append(None)
            continue
        if quiet <= 0:
            s.close()
            leaves.append(None)
            continue
        time.sleep(hold)
        _drain(wire)
        t_leave = time.monotonic()
        s.close()  # the kernel sends the leave
        last = t_leave
        wire.settimeout(quiet)
        while True:
            try:
                data, addr = wire.recvfrom(2048)
            except TimeoutError:
                break
            if addr[2] != PACKET_OUTGOING and data[30:34] == packed:
                last = time.monotonic()
            if time.monotonic() - last > quiet:
                break
        leaves.append(last - t_leave)
    with open(control + ".tmp", "w") as f:
        f.write("")
    os.replace(control + ".tmp", control)
    print(json.dumps({"join_s": joins, "leave_s": leaves}))
    return 0


def _drain(sock: socket.socket) -> None:
    sock.setblocking(False)
    try:
        while True:
            sock.recv(2048)
    except BlockingIOError:
        pass
    sock.setblocking(True)


if __name__ == "__main__":
    sys.exit(main())
