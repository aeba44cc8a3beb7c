"""What a user tries against a run's tunnel guard (testbed.cluster.guard), for the cluster
tests: 3 VXLAN datagrams (a broadcast frame of a protocol nobody speaks, under a VNI) to a
UDP port, or 3 TCP connections, each from a given address, by root or by user nobody
(setpriv); the program prints each one's fate: "sent", or the error's name (PermissionError:
dropped on its way out, as EPERM; TimeoutError: a SYN never answered; ...)."""

from __future__ import annotations

NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
PYTHON = "/usr/bin/python3"  # a Python nobody may run (the venv's may sit under /root)

SENDS = """\
import socket, struct, sys
kind, src, dst = sys.argv[1:4]
port, vni = int(sys.argv[4]), int(sys.argv[5])
frame = b"\\xff" * 6 + bytes.fromhex("020000000099") + b"\\x88\\xb5" + bytes(46)
out = []
for _ in range(3):
    try:
        if kind == "udp":
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.bind((src, 0))
                s.sendto(struct.pack("!B3xI", 0x08, vni << 8) + frame, (dst, port))
        else:
            with socket.socket() as s:
                s.bind((src, 0))
                s.settimeout(0.5)  # (a SYN dropped is never answered)
                s.connect((dst, port))
        out.append("sent")
    except OSError as exc:
        out.append(type(exc).__name__)
print(" ".join(out))
"""


def probe(kind: str, src: str, dst: str, port: int, vni: int = 0,
          nobody: bool = True) -> list[str]:
    """The command that makes 3 tries (`kind` "udp" or "tcp") from `src` to dst:port."""
    return [*(NOBODY if nobody else []), PYTHON, "-c", SENDS, kind, src, dst, str(port),
            str(vni)]
