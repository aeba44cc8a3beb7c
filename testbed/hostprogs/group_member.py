"""Be a member of a multicast group until told to stop: join GROUP on the host's address,
append one JSON line per datagram received (time, source, bytes, text) to LOG, and leave the
group (close the socket, so the kernel sends its IGMP leave) on SIGTERM or SIGINT.

    python -m testbed.hostprogs.group_member GROUP PORT MY_IP LOG READY_FILE

READY_FILE is created once the join is made.
"""

from __future__ import annotations

import json
import signal
import socket
import struct
import sys
import time


def main() -> int:
    group, port, my_ip, log, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], \
        sys.argv[5]
    stop = False

    def on_signal(_signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((group, port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(my_ip)))
    open(ready, "w").close()
    s.settimeout(0.1)
    with open(log, "a", buffering=1) as out:
        while not stop:
            try:
                data, (src, _port) = s.recvfrom(65535)
            except TimeoutError:
                continue
            except InterruptedError:
                continue
            out.write(json.dumps({"time": time.time(), "source": src, "bytes": len(data),
                                  "text": data[:80].decode(errors="replace")}) + "\n")
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
