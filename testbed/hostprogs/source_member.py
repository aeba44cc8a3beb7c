"""Hold a membership with a source filter until SIGTERM: MODE "include" asks for GROUP from
the SOURCES only (IP_ADD_SOURCE_MEMBERSHIP, as SSM receivers do), "exclude" for GROUP from
all but the SOURCES (IP_ADD_MEMBERSHIP, then IP_BLOCK_SOURCE each); the kernel's IGMPv3
reports say so. READY is created once the filter is set; closing the socket on SIGTERM
leaves.

    python -m testbed.hostprogs.source_member GROUP MY_IP MODE READY [SOURCE ...]
"""

from __future__ import annotations

import socket
import sys

from testbed.hostprogs import wait_for_stop

IP_BLOCK_SOURCE, IP_ADD_SOURCE_MEMBERSHIP = 38, 39  # linux/in.h; Python has no names


def main() -> int:
    group, my_ip, mode, ready = sys.argv[1:5]
    sources = sys.argv[5:]
    if mode not in ("include", "exclude"):
        print(f"mode must be include or exclude, not {mode!r}", file=sys.stderr)
        return 2
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    g, me = socket.inet_aton(group), socket.inet_aton(my_ip)
    if mode == "include":  # struct ip_mreq_source: multiaddr, interface, sourceaddr
        for src in sources:
            s.setsockopt(socket.IPPROTO_IP, IP_ADD_SOURCE_MEMBERSHIP,
                         g + me + socket.inet_aton(src))
    else:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, g + me)
        for src in sources:
            s.setsockopt(socket.IPPROTO_IP, IP_BLOCK_SOURCE, g + me + socket.inet_aton(src))
    open(ready, "w").close()
    wait_for_stop()
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
