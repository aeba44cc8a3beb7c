"""Measure join-to-delivery latency: for each of N fresh groups, name the group in
CONTROL_FILE (a streaming sender follows it), wait SETTLE s, join, and time the first
datagram. Prints one JSON line with the latencies in seconds (None: nothing within 5 s).

    python -m testbed.hostprogs.join_probe CONTROL_FILE MY_IP N SETTLE FIRST_GROUP_INDEX
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time


def main() -> int:
    control, my_ip, n, settle, first = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        float(sys.argv[4]), int(sys.argv[5])
    out = []
    for i in range(first, first + n):
        group = f"239.77.{i // 250}.{i % 250 + 1}"
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
                     struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(my_ip)))
        try:
            s.recvfrom(2048)
            out.append(time.monotonic() - t0)
        except TimeoutError:
            out.append(None)
        s.close()  # the kernel sends the leave
    print(json.dumps({"latencies_s": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
