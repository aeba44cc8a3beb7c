"""Join many groups at once and hold them: one socket joins every group listed in
GROUPS_FILE (one per line) as fast as the kernel takes them, creates READY, and holds the
memberships until SIGTERM; then it closes the socket (the kernel reports the leaves) and
prints {"joined": N, "join_s": seconds the joins took}.

    python -m testbed.hostprogs.group_joins GROUPS_FILE MY_IP READY

The host's net.ipv4.igmp_max_memberships must allow that many groups on one socket.
"""

from __future__ import annotations

import json
import signal
import socket
import sys
import time


def main() -> int:
    with open(sys.argv[1]) as f:
        groups = f.read().split()
    me, ready = socket.inet_aton(sys.argv[2]), sys.argv[3]
    stop = False

    def on_signal(_signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.monotonic()
    for g in groups:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(g) + me)
    took = time.monotonic() - t0
    open(ready, "w").close()
    while not stop:
        time.sleep(0.05)
    s.close()
    print(json.dumps({"joined": len(groups), "join_s": took}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
