"""Join many groups at once and hold them: one socket joins every group listed in
GROUPS_FILE (one per line) as fast as the kernel takes them, creates READY, and holds the
memberships until SIGTERM; then it closes the socket (the kernel reports the leaves) and
prints {"joined": N, "join_s": seconds the joins took}.

    python -m testbed.hostprogs.group_joins GROUPS_FILE MY_IP READY

The host's net.ipv4.igmp_max_memberships must allow that many groups on one socket.
"""

from __future__ import annotations

import json
import socket
import sys
import time

from testbed.hostprogs import wait_for_stop


def main() -> int:
    with open(sys.argv[1]) as f:
        groups = f.read().split()
    me, ready = socket.inet_aton(sys.argv[2]), sys.argv[3]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.monotonic()
    for g in groups:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(g) + me)
    took = time.monotonic() - t0
    open(ready, "w").close()
    wait_for_stop()
    s.close()
    print(json.dumps({"joined": len(groups), "join_s": took}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
