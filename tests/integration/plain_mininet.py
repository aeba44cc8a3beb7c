"""A user's own Mininet script, no mcastlab code in it: a depth-2 binary tree of OVS
switches (userspace datapath, OpenFlow 1.3) under a remote controller on 127.0.0.1:PORT.
Pings all pairs, then h2 and h4 join 239.1.2.3 and h1 sends; prints JSON results.

    python3 plain_mininet.py PORT [API_SOCKET]

With API_SOCKET (the controller's JSON endpoint, a Unix socket) it waits for what the
controller says instead of fixed times: every switch programmed and the links found, then
both joins.
"""

import json
import socket
import sys
import time
from functools import partial

from mininet.log import setLogLevel
from mininet.net import Mininet
from mininet.node import OVSSwitch, RemoteController
from mininet.topolib import TreeTopo

RECV = ("import socket, struct, sys; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('', 5000)); "
        "s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack('4s4s', "
        "socket.inet_aton('239.1.2.3'), socket.inet_aton(sys.argv[1]))); s.settimeout(3); n = 0\n"
        "try:\n    while True:\n        s.recv(100); n += 1\n"
        "        if n == 5: s.settimeout(0.5)  # all sent: a duplicate would follow at once\n"
        "except OSError: print(n)")
SEND = ("import socket, sys, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[1])); "
        "[(s.sendto(b'x', ('239.1.2.3', 5000)), time.sleep(0.05)) for _ in range(5)]")


def state(api: str) -> dict:
    """The controller's /state, asked over its Unix socket as curl --unix-socket would."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(2)
        s.connect(api)
        s.sendall(b"GET /state HTTP/1.0\r\n\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return json.loads(data.partition(b"\r\n\r\n")[2])


def wait_for(api: str | None, ready, seconds: float) -> None:
    """Until ready(the controller's /state) is true, at most 20 s; without an API socket,
    `seconds`."""
    if api is None:
        time.sleep(seconds)
        return
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if ready(state(api)):
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.1)


class Remote(RemoteController):
    """Mininet's own check telnets the port and decodes what comes back as UTF-8: an
    OpenFlow controller that sends its binary hello first makes it raise now and then.
    The controller is known to be up here, so skip the check."""

    def checkListening(self) -> None:
        pass


def main() -> None:
    setLogLevel("error")
    port = int(sys.argv[1])
    api = sys.argv[2] if len(sys.argv) > 2 else None
    net = Mininet(topo=TreeTopo(depth=2, fanout=2),
                  switch=partial(OVSSwitch, datapath="user", protocols="OpenFlow13"),
                  controller=partial(Remote, ip="127.0.0.1", port=port))
    net.start()
    try:
        for h in net.hosts:
            h.cmd("ethtool -K", h.defaultIntf(), "tx off")  # userspace datapath + veth
            h.cmd("ip route add 224.0.0.0/4 dev", h.defaultIntf())
        wait_for(api, lambda st: st["ready"], 4)  # the controller finds the links (LLDP)
        loss = net.pingAll(timeout=2)
        rx = {n: net.get(n).popen([sys.executable, "-c", RECV, net.get(n).IP()], text=True)
              for n in ("h2", "h4")}
        wait_for(api, lambda st: len(st["groups"].get("239.1.2.3", {}).get("members", {}))
                 == 2, 1.0)  # both joins reached the controller
        h1 = net.get("h1")
        h1.popen([sys.executable, "-c", SEND, h1.IP()]).wait()
        got = {n: int(p.communicate(timeout=20)[0].strip() or 0) for n, p in rx.items()}
        print(json.dumps({"ping_loss": loss, "received": got}))
    finally:
        net.stop()


if __name__ == "__main__":
    main()
