"""Be a member of a multicast group until told to stop: join GROUP on the host's address, say
"ready" on stdout once joined, then print one JSON line per datagram received (time,
source, bytes, text), and leave the group (close the socket, so the kernel sends its IGMP
leave) on SIGTERM, SIGINT or the end of stdin.

    python -m testbed.hostprogs.group_member GROUP PORT MY_IP

Everything goes through stdin and stdout, no file: a host on another server of a cluster is
reached through ssh, whose session carries them (and whose end is the end of stdin).
"""

from __future__ import annotations

import json
import signal
import socket
import struct
import sys
import threading
import time


def main() -> int:
    group, port, my_ip = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    stop = threading.Event()

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    def until_eof() -> None:
        sys.stdin.read()
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threading.Thread(target=until_eof, daemon=True).start()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((group, port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(my_ip)))
    print("ready", flush=True)
    s.settimeout(0.1)
    while not stop.is_set():
        try:
            data, (src, _port) = s.recvfrom(65535)
        except (TimeoutError, InterruptedError):
            continue
        try:
            print(json.dumps({"time": time.time(), "source": src, "bytes": len(data),
                              "text": data[:80].decode(errors="replace")}), flush=True)
        except BrokenPipeError:
            break
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
