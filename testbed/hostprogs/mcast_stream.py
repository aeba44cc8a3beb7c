"""Send a datagram every GAP seconds to the group named in CONTROL_FILE (re-read on change),
until DURATION seconds have passed.

    python -m testbed.hostprogs.mcast_stream CONTROL_FILE SRC_IP GAP DURATION
"""

from __future__ import annotations

import os
import socket
import sys
import time


def main() -> int:
    control, src_ip, gap, duration = sys.argv[1], sys.argv[2], float(sys.argv[3]), \
        float(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src_ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    group, mtime, end, seq = None, 0.0, time.monotonic() + duration, 0
    while time.monotonic() < end:
        try:
            m = os.stat(control).st_mtime
            if m != mtime:
                mtime = m
                with open(control) as f:
                    group = f.read().strip() or None
        except OSError:
            group = None
        if group:
            s.sendto(f"{seq} {time.monotonic():.6f}".encode(), (group, 5001))
            seq += 1
        time.sleep(gap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
