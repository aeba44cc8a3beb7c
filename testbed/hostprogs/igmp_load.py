"""Offer IGMP load: RATE messages per second (alternating IGMPv2 report and leave of
ever-new groups) from this host's interface, for DURATION seconds. Prints how many it sent.

    python -m testbed.hostprogs.igmp_load IFACE SRC_IP SRC_MAC RATE DURATION SEED
"""

from __future__ import annotations

import json
import socket
import sys
import time

from controller import igmp


def main() -> int:
    iface, src_ip, src_mac = sys.argv[1], sys.argv[2], sys.argv[3]
    rate, duration, seed = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    frames = []
    for i in range(2000):
        group = f"239.{100 + seed % 50}.{i // 250}.{i % 250 + 1}"
        frames += [igmp.frame(igmp.join(group, src_ip, 2), src_mac),
                   igmp.frame(igmp.leave(group, src_ip, 2), src_mac)]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    start, sent = time.monotonic(), 0
    while (now := time.monotonic()) < start + duration:
        due = int((now - start) * rate)
        while sent < due:
            s.send(frames[sent % len(frames)])
            sent += 1
        time.sleep(0.001)
    print(json.dumps({"sent": sent, "seconds": time.monotonic() - start}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
