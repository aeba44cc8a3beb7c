"""Send COUNT datagrams of TEXT to a multicast group from the host's address, GAP s apart.

    python -m testbed.hostprogs.group_send GROUP PORT MY_IP COUNT GAP TEXT
"""

from __future__ import annotations

import socket
import sys
import time


def main() -> int:
    group, port, my_ip, count, gap, text = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 8)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(my_ip))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    for i in range(count):
        s.sendto(f"{text} {i}".encode(), (group, port))
        time.sleep(gap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
