"""An intruder for tests: send datagrams shaped like mcastlab's to GROUP:PORT for SECONDS
(or until SIGTERM or SIGINT), with a CRC that checks but a key that is not the
communicator's, plausible broadcast ids and fragment numbers, plus plain garbage; then say
how many.

    python -m testbed.hostprogs.mcast_forge GROUP PORT SECONDS
"""

from __future__ import annotations

import random
import signal
import socket
import sys
import time

from collectives.ipmc import DATA, KEY_SIZE, Codec


def main() -> int:
    group, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    rng = random.Random(1)
    forger = Codec(rng.randbytes(KEY_SIZE))
    end, sent = time.monotonic() + seconds, 0
    stop: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda n, _frame: stop.append(n))
    while time.monotonic() < end and not stop:
        count = rng.randint(1, 80)
        if rng.random() < 0.8:
            data = forger.encode(DATA, rng.randint(0, 3), rng.randint(1, 64),
                                 rng.randrange(count), count, rng.randbytes(rng.randint(0, 1400)))
        else:
            data = rng.randbytes(rng.randint(1, 1400))
        try:
            s.sendto(data, (group, port))
            sent += 1
        except PermissionError:  # dropped by the emulated loss on this host's link
            pass
        time.sleep(0.0005)
    print(f"forged {sent} datagrams", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
