"""A UDP train between two emulated hosts, each datagram stamped with its send time (the
hosts share the machine's clock): `recv PORT COUNT OUT` writes [[index, sent, arrived], ...]
to OUT (creating OUT.ready once bound); `send IP PORT TRAINS COUNT SIZE GAP` sends TRAINS
trains of COUNT datagrams back to back, GAP seconds apart."""

from __future__ import annotations

import json
import socket
import struct
import sys
import time
from pathlib import Path

STAMP = struct.Struct("!id")


def receive(port: int, count: int, out: str) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", port))
    s.settimeout(5)
    Path(out + ".ready").touch()
    got = []
    try:
        while len(got) < count:
            data = s.recv(65536)
            got.append([*STAMP.unpack(data[:STAMP.size]), time.time()])
    except TimeoutError:
        pass
    Path(out).write_text(json.dumps(got))


def send(ip: str, port: int, trains: int, count: int, size: int, gap: float) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pad = b"x" * (size - STAMP.size)
    for t in range(trains):
        time.sleep(gap)
        for i in range(count):
            s.sendto(STAMP.pack(t * count + i, time.time()) + pad, (ip, port))


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "recv":
        receive(int(a[2]), int(a[3]), a[4])
    else:
        send(a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]), float(a[7]))
