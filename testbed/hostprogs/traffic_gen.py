"""One background-traffic generator (model: testbed.specs.traffic_model), run inside a host:

    python -m testbed.hostprogs.traffic_gen      (CONFIG as one JSON line on stdin)

Receives on CONFIG["port"] (TCP, any number of connections, and UDP) from the start; says
"ready" on stdout once listening, sends from the line "start" on stdin (so every receiver
listens before anyone sends) until the line "stop", the end of stdin, SIGTERM or SIGINT,
drains what is still arriving, and prints the counts as one JSON line. Each line "count N"
before that is answered with the counts so far (one JSON line with "snapshot": "N"), so
that a point measured under the traffic is recorded with the load it ran under as soon as
it is done. Everything goes
through stdin and stdout, no file: a host on another server of a cluster is reached through
ssh, whose session carries them (testbed.conditions.traffic). TCP messages carry a 4-byte
length prefix so the receiver can count messages; byte counts are payload only. Refused or
reset connections are counted and retried later, never fatal.
"""

from __future__ import annotations

import contextlib
import json
import random
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

from testbed.specs.traffic_model import MessageSource, Pacer

HEADER = struct.Struct("!I")
RETRY_S = 0.2  # a destination whose connection failed is skipped this long
SEND_TIMEOUT_S = 2.0  # a blocked TCP send longer than this counts as a failed connection
DRAIN_S = 1.0  # after the stop signal, keep receiving at most this long
POLL_S = 0.005


class Receiver(threading.Thread):
    """Counts what arrives on the TCP listener's connections and the UDP socket."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("0.0.0.0", port))
        self.listener.listen(256)
        self.listener.setblocking(False)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.udp.bind(("0.0.0.0", port))
        self.udp.setblocking(False)
        self.sel.register(self.listener, selectors.EVENT_READ, "accept")
        self.sel.register(self.udp, selectors.EVENT_READ, "udp")
        self.bytes = self.msgs = 0
        self.conns: dict[socket.socket, list[Any]] = {}  # sock -> [header bytes, remaining]
        self.done = threading.Event()

    def run(self) -> None:
        buf = bytearray(1 << 16)
        while not self.done.is_set():
            for key, _ in self.sel.select(0.05):
                if key.data == "accept":
                    with contextlib.suppress(OSError):
                        conn, _ = self.listener.accept()
                        conn.setblocking(False)
                        self.conns[conn] = [b"", 0]
                        self.sel.register(conn, selectors.EVENT_READ, "tcp")
                elif key.data == "udp":
                    self._udp(buf)
                else:
                    self._tcp(key.fileobj, buf)  # type: ignore[arg-type]
        for s in [*self.conns, self.listener, self.udp]:
            s.close()

    def _count(self, payload: int, msgs: int) -> None:
        self.bytes += payload
        self.msgs += msgs

    def _udp(self, buf: bytearray) -> None:
        while True:
            try:
                n = self.udp.recv_into(buf)
            except OSError:  # nothing more to read (or an ICMP error): wait for the next event
                return
            self._count(n, 1)

    def _tcp(self, conn: socket.socket, buf: bytearray) -> None:
        try:
            n = conn.recv_into(buf)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            n = 0
        if n == 0:  # peer closed (or reset): a partial message is not counted
            self.sel.unregister(conn)
            del self.conns[conn]
            conn.close()
            return
        state = self.conns[conn]
        header, remaining = state
        view = memoryview(buf)[:n]
        payload = msgs = 0
        pos = 0
        while pos < n:
            if remaining == 0:  # inside a length prefix
                take = min(HEADER.size - len(header), n - pos)
                header += bytes(view[pos:pos + take])
                pos += take
                if len(header) == HEADER.size:
                    remaining = HEADER.unpack(header)[0]
                    header = b""
                    if remaining == 0:
                        msgs += 1
            else:
                take = min(remaining, n - pos)
                payload += take
                remaining -= take
                pos += take
                if remaining == 0:
                    msgs += 1
        state[0], state[1] = header, remaining
        self._count(payload, msgs)

    def open_tcp(self) -> int:
        return len(self.conns)


class Sender:
    """Sends per the model; TCP connections are opened lazily and kept."""

    def __init__(self, cfg: dict[str, Any], stop: threading.Event) -> None:
        self.cfg = cfg
        self.source = MessageSource.from_config(cfg)
        self.rng = random.Random(cfg["seed"])
        self.ips: dict[str, str] = cfg["ips"]
        self.port = int(cfg["port"])
        self.tcp = cfg["transport"] == "tcp"
        self.stop = stop
        self.conns: dict[str, socket.socket] = {}
        self.down_until: dict[str, float] = {}
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.payload = bytearray(max(self.source.size * 2, 65536) + HEADER.size)
        self.sent_bytes = self.sent_msgs = self.errors = 0
        self.per_dst: dict[str, int] = {}
        self.pacer: Pacer | None = None

    def run(self) -> None:
        if not self.source.sends:
            while not self.stop.wait(0.1):
                pass
            return
        self.pacer = Pacer(time.monotonic(), self.source.think_mean)
        while not self.stop.is_set():
            think, dst, size = self.source.next(self.rng)
            due = self.pacer.advance(think, time.monotonic())
            while not self.stop.is_set() and (wait := due - time.monotonic()) > 0:
                time.sleep(min(wait, 0.1))
            if self.stop.is_set():
                break
            if self._send(dst, size):
                self.sent_bytes += size
                self.sent_msgs += 1
                self.per_dst[dst] = self.per_dst.get(dst, 0) + 1

    def _send(self, dst: str, size: int) -> bool:
        if not self.tcp:
            try:
                self.udp.sendto(memoryview(self.payload)[:size], (self.ips[dst], self.port))
                return True
            except OSError:  # ENOBUFS, or an ICMP error reported back
                self.errors += 1
                return False
        sock = self._connection(dst)
        if sock is None:
            return False
        data = memoryview(self.payload)[:HEADER.size + size]
        HEADER.pack_into(self.payload, 0, size)
        try:
            sock.sendall(data)
            return True
        except OSError:  # reset, or blocked past SEND_TIMEOUT_S: reconnect later
            self.errors += 1
            self._drop(dst)
            return False

    def _connection(self, dst: str) -> socket.socket | None:
        sock = self.conns.get(dst)
        if sock is not None:
            return sock
        if time.monotonic() < self.down_until.get(dst, 0.0):
            return None
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(SEND_TIMEOUT_S)
        try:
            sock.connect((self.ips[dst], self.port))
        except OSError:
            sock.close()
            self.errors += 1
            self.down_until[dst] = time.monotonic() + RETRY_S
            return None
        self.conns[dst] = sock
        return sock

    def _drop(self, dst: str) -> None:
        sock = self.conns.pop(dst, None)
        if sock is not None:
            sock.close()
        self.down_until[dst] = time.monotonic() + RETRY_S

    def close(self) -> None:
        """Half-close so receivers see every byte and then EOF."""
        for sock in self.conns.values():
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_WR)
            sock.close()
        self.conns.clear()
        self.udp.close()


def counts(cfg: dict[str, Any], sender: Sender, receiver: Receiver,
           start: float | None) -> dict[str, Any]:
    """What was sent and received since "start" (`start`, monotonic; None: not yet)."""
    return {"host": cfg["host"], "sent_bytes": sender.sent_bytes,
            "sent_msgs": sender.sent_msgs, "received_bytes": receiver.bytes,
            "received_msgs": receiver.msgs,
            "elapsed_s": 0.0 if start is None else time.monotonic() - start,
            "t": time.time(), "errors": sender.errors,
            "behind_resets": sender.pacer.resets if sender.pacer else 0}


def main() -> int:
    cfg = json.loads(sys.stdin.readline())
    stop, go = threading.Event(), threading.Event()
    receiver = Receiver(int(cfg["port"]))
    sender = Sender(cfg, stop)
    started: list[float] = []  # the monotonic time sending began, once it has
    said = threading.Lock()  # one JSON line at a time on stdout

    def on_signal(_signum: int, _frame: object) -> None:
        stop.set()

    def control() -> None:  # "start", "count"s, then "stop" or the end of stdin
        for line in sys.stdin:
            words = line.split()
            if words == ["start"]:
                go.set()
            elif words[:1] == ["count"]:  # "count N": the answer carries N
                snap = counts(cfg, sender, receiver, started[0] if started else None)
                with said:
                    print(json.dumps({"snapshot": " ".join(words[1:]), **snap}), flush=True)
            elif words == ["stop"]:
                break
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    receiver.start()
    threading.Thread(target=control, daemon=True).start()
    print("ready", flush=True)
    while not stop.is_set() and not go.wait(POLL_S):
        pass
    start_wall, start = time.time(), time.monotonic()
    started.append(start)
    sender.run()
    sent_end = time.monotonic()
    sender.close()
    # Drain: peers stop at about the same time; what they sent still counts.
    deadline = sent_end + DRAIN_S
    while time.monotonic() < deadline and (receiver.open_tcp() or
                                           time.monotonic() < sent_end + 0.2):
        time.sleep(0.02)
    receiver.done.set()
    receiver.join(timeout=2)
    recv_end = time.monotonic()
    with said:
        print(json.dumps({
            "host": cfg["host"], "sent_bytes": sender.sent_bytes, "sent_msgs": sender.sent_msgs,
            "received_bytes": receiver.bytes, "received_msgs": receiver.msgs,
            "send_window_s": sent_end - start, "recv_window_s": recv_end - start,
            "start": start_wall, "end": time.time(), "per_dst_msgs": sender.per_dst,
            "errors": sender.errors,
            "behind_resets": sender.pacer.resets if sender.pacer else 0,
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
