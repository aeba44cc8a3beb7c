"""A network across two servers (the rig: server2 in namespaces of its own, reached by ssh):
a fat tree split by placement, its cut links as VXLAN tunnels over the shaped link, one
controller reached from both servers' switches; hosts on both sides ping each other and
receive a group's datagrams (large ones too: MTU 1450 inside the tunnels); MPI jobs span
both (a tree and the multicast nack broadcast verify; a rank dying on server2 ends its job;
a measured broadcast is timed by flow latency, with every server's fidelity sampled;
only the servers reach the tunnels and the controller, which speaks OpenFlow over TLS, and
on them only root's sockets: a non-root process delivers no frame; 200 idle connections to
the controller keep no switch out, and are dropped at the handshake timeout);
an experiment spec with a [cluster] table runs two groups, one with its rank 0 on server2,
under a fault there; and when it ends nothing of the run is left on either server."""

from __future__ import annotations

import json
import re
import select
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from collectives.call import BcastCall
from testbed.cluster import rig as rigmod
from testbed.cluster.guard import VXLAN_PORT
from testbed.cluster.spread import Spread
from testbed.conditions.traffic import Traffic
from testbed.emulation.cleanup import leftovers
from testbed.emulation.controller_proc import api_get
from testbed.emulation.environment import AFXDP_PORT
from testbed.emulation.linkshape import nft_table
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from testbed.errors import RunFailed
from testbed.fidelity.flags import Monitor
from testbed.measure.bcast import run_bcast
from testbed.measure.options import RunOptions
from testbed.specs.traffic_model import TrafficSpec
from topologies import fattree

from .guard_probe import probe
from .mcast import members as controller_members
from .mcast import until

RECEIVE = """\
import socket, sys
group, port, count, me = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((group, port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             socket.inet_aton(group) + socket.inet_aton(me))
print("joined", flush=True)
s.settimeout(20)  # for the first datagram (the test waits for the controller first)
got = {}
try:
    while len(got) < count:
        data = s.recv(65536)
        got[int(data[:4])] = len(data)
        s.settimeout(3)
except socket.timeout:
    pass
lost = sorted(set(range(count)) - set(got))  # datagram i is large when i is even
print("lost", lost, sum(1 for n in got.values() if n < 1000),
      sum(1 for n in got.values() if n >= 1000), flush=True)
"""

SEND = """\
import socket, sys, time
group, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(count):
    s.sendto(b"%04d" % i + b"x" * (100 if i % 2 else 3000), (group, port))
    time.sleep(0.02)
"""

GROUP, PORT, COUNT = "239.1.2.3", 5000, 20
HOSTNAME = ("from mpi4py import MPI; import socket; from collectives.ipmc import groups\n"
            "print(socket.gethostname(), groups.pool())")
DIE = ("from mpi4py import MPI; import os, time; c = MPI.COMM_WORLD\n"
       "if c.Get_rank() == 1: os._exit(7)\n"
       "time.sleep(60)")


def _records(res) -> list[dict]:
    return [json.loads(ln) for out in res.rank_output.values() for ln in out.splitlines()
            if ln.startswith("{")]


SERVER2_CLEAN = {"processes": [], "bridges": [], "interfaces": [], "records": [],
                 "ovs_bridges": [], "links": []}


def _left_on(rig: rigmod.Rig) -> dict:
    """What any run left on server2 (its agent's own look)."""
    return json.loads(rig.remote.run(
        [sys.executable, "-m", "testbed.cluster.agent", "leftovers"]).stdout)


@pytest.fixture(scope="module")
def shared_rig(caps) -> Iterator[rigmod.Rig]:
    """One rig for the module's tests (bringing one up costs a second or two); each test
    still checks that its own network left nothing on server2."""
    with rigmod.Rig(mbit=200) as rig:
        yield rig


@pytest.fixture
def rig(shared_rig: rigmod.Rig, clean_after) -> Iterator[rigmod.Rig]:
    """The module's rig (new, or proved clean after the test before), proved clean after
    the test (also after one that failed before its own check)."""
    yield shared_rig
    assert _left_on(shared_rig) == SERVER2_CLEAN, "the test left something on server2"


def _ovs_counts(rig: rigmod.Rig) -> dict[str, dict[str, int]]:
    """Open vSwitch's drop and upcall counters on each server (their growth over a round goes
    into a failure's message: where a datagram the hosts missed was lost)."""
    cmd = ["ovs-appctl", "coverage/show"]
    outs = {"localhost": subprocess.run(cmd, capture_output=True, text=True).stdout,
            rigmod.NAME: rig.remote.run(cmd, check=False).stdout}
    return {server: {ln.split()[0]: int(ln.split("total:")[-1]) for ln in out.splitlines()
                     if "total:" in ln and re.search(r"drop|upcall|packet_in|frag", ln)}
            for server, out in outs.items()}


def _grown(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict:
    return {server: {k: v - before[server].get(k, 0) for k, v in counts.items()
                     if v != before[server].get(k, 0)} for server, counts in after.items()}


def _members(emu: Emulation, names: list[str]) -> dict[str, object]:
    procs = {}
    for name in names:
        h = emu.host(name)
        procs[name] = h.popen([sys.executable, "-c", RECEIVE, GROUP, str(PORT), str(COUNT),
                               h.IP()], text=True)
    for name, p in procs.items():
        assert p.stdout.readline().strip() == "joined", f"{name}: {p.stderr.read()}"
    return procs


STRANGER = "198.18.1.1"  # an address of this machine that is not a server of the cluster


def _vxlan_datagram(vni: int) -> bytes:
    """A VXLAN datagram (RFC 7348: flags with the VNI bit, the VNI) carrying a broadcast
    frame of a protocol nobody speaks."""
    frame = b"\xff" * 6 + bytes.fromhex("020000000099") + b"\x88\xb5" + bytes(46)
    return struct.pack("!B3xI", 0x08, vni << 8) + frame


def _rx_packets(rig: rigmod.Rig, dev: str) -> int:
    out = json.loads(rig.remote.run(["ip", "-s", "-j", "link", "show", "dev", dev]).stdout)
    return out[0]["stats64"]["rx"]["packets"]


def _dropped(table: str, port: str, remote: rigmod.Rig | None = None) -> int:
    """Packets the run's guard dropped for `port` ("udp dport 4789", "tcp dport N")."""
    cmd = ["nft", "list", "table", "inet", table]
    text = remote.remote.run(cmd).stdout if remote else subprocess.run(
        cmd, capture_output=True, text=True, check=True).stdout
    hit = re.search(rf"{port} ip saddr != \{{[^}}]*\}} counter packets (\d+)", text)
    assert hit, text
    return int(hit[1])


def _dropped_out(table: str, match: str, remote: rigmod.Rig | None = None) -> int:
    """Packets the run's guard dropped on their way out of a server (`remote`'s, else this
    one) because a non-root socket sent them (`match`: "udp dport 4789", "tcp dport N")."""
    cmd = ["nft", "list", "chain", "inet", table, "guard_out"]
    text = remote.remote.run(cmd).stdout if remote else subprocess.run(
        cmd, capture_output=True, text=True, check=True).stdout
    hit = re.search(rf"{match} meta skuid != 0 counter packets (\d+)", text)
    assert hit, text
    return int(hit[1])


def _nobody_sends(rig: rigmod.Rig | None, kind: str, src: str, dst: str, port: int,
                  vni: int = 0) -> list[str]:
    """What each of 3 sends by user nobody (setpriv) came to, on server2 (`rig`) or here."""
    argv = probe(kind, src, dst, port, vni)
    out = rig.remote.run(argv).stdout if rig else subprocess.run(
        argv, capture_output=True, text=True, check=True).stdout
    return out.split()


def _vxlan_fate(rig: rigmod.Rig, dev: str, table: str, rx: int, dropped: int
                ) -> tuple[int, int]:
    """VXLAN datagrams the tunnel `dev` received and the run's guard dropped on server2
    since the counts were `rx` and `dropped`."""
    return (_rx_packets(rig, dev) - rx, _dropped(table, "udp dport 4789", rig) - dropped)


def _only_the_servers_reach_the_tunnels_and_the_controller(emu: Emulation,
                                                             rig: rigmod.Rig) -> None:
    """Tunnels without learning; VXLAN from an address that is not a server dropped on
    server2 before its tunnel sees it (and the same from a server delivered, which shows the
    test can tell); OpenFlow over TLS, its port closed to a stranger too."""
    info = json.loads(rig.remote.run(["ip", "-d", "-j", "link", "show", "type", "vxlan"])
                      .stdout)
    assert info and all(not i["linkinfo"]["info_data"]["learning"] for i in info), info
    dev, vni = info[0]["ifname"], info[0]["linkinfo"]["info_data"]["id"]
    table = nft_table(emu.record.id)
    subprocess.run(["ip", "addr", "add", f"{STRANGER}/32", "dev", rigmod.LOCAL_DEV], check=True)
    rig.remote.run(["ip", "route", "add", f"{STRANGER}/32", "dev", rigmod.REMOTE_DEV])
    try:
        for source, delivered in ((STRANGER, 0), (rigmod.LOCAL_IP, 3)):
            before, dropped = _rx_packets(rig, dev), _dropped(table, "udp dport 4789", rig)
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.bind((source, 0))
                for _ in range(3):
                    s.sendto(_vxlan_datagram(vni), (rigmod.REMOTE_IP, VXLAN_PORT))
            # each datagram is either dropped by the guard (whose hook comes first) or
            # received by the tunnel: wait until all 3 are counted on one side or the other
            deadline = time.monotonic() + 5
            while sum(got := _vxlan_fate(rig, dev, table, before, dropped)) < 3 \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            assert got == (delivered, 3 - delivered), (source, got)
        # a user other than root, on either server, from a server's address (which the
        # input rules admit): dropped on its way out (EPERM), counted; the tunnel received
        # none of it (root's 3 below arrive, and only they: they were sent after)
        rx = _rx_packets(rig, dev)
        udp = f"udp dport {VXLAN_PORT}"
        out_here, out_there = _dropped_out(table, udp), _dropped_out(table, udp, rig)
        assert _nobody_sends(None, "udp", rigmod.LOCAL_IP, rigmod.REMOTE_IP, VXLAN_PORT,
                             vni) == ["PermissionError"] * 3
        assert _nobody_sends(rig, "udp", rigmod.REMOTE_IP, rigmod.REMOTE_IP, VXLAN_PORT,
                             vni) == ["PermissionError"] * 3
        assert (_dropped_out(table, udp) - out_here,
                _dropped_out(table, udp, rig) - out_there) == (3, 3)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((rigmod.LOCAL_IP, 0))
            for _ in range(3):
                s.sendto(_vxlan_datagram(vni), (rigmod.REMOTE_IP, VXLAN_PORT))
        deadline = time.monotonic() + 5
        while _rx_packets(rig, dev) < rx + 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _rx_packets(rig, dev) == rx + 3
        port = emu.controller.ofp_port
        tcp = f"tcp dport {port}"
        for remote, src in ((None, rigmod.LOCAL_IP), (rig, rigmod.REMOTE_IP)):
            before = _dropped_out(table, tcp, remote)
            got = _nobody_sends(remote, "tcp", src, rigmod.LOCAL_IP, port)
            assert "sent" not in got and _dropped_out(table, tcp, remote) - before >= 3, got
        assert emu.controller.target == f"ssl:{rigmod.LOCAL_IP}:{port}"
        assert emu.record.id in rig.remote.run(["ovs-vsctl", "get-ssl"]).stdout
        with socket.socket() as s, pytest.raises(TimeoutError):
            s.bind((STRANGER, 0))
            s.settimeout(0.5)  # an answer takes well under 1 ms here (see the pings above)
            s.connect((rigmod.LOCAL_IP, port))  # its SYN dropped: never answered
        assert _dropped(table, f"tcp dport {port}") >= 1
    finally:
        rig.remote.run(["ip", "route", "del", f"{STRANGER}/32"], check=False)
        subprocess.run(["ip", "addr", "del", f"{STRANGER}/32", "dev", rigmod.LOCAL_DEV])


IDLE = 200  # connections that never begin a TLS handshake


def _open(socks: list[socket.socket]) -> list[socket.socket]:
    """The connections the controller has not closed (it sends nothing on one that never
    began a handshake: a readable one holds its end)."""
    ended = set(select.select(socks, [], [], 0)[0])
    return [s for s in socks if s not in ended]


def _switch_state(emu: Emulation, name: str) -> tuple[dict, dict]:
    """The controller's view of switch `name`, and its listener's counts (one reading)."""
    state = api_get(emu.controller.api, "/state")
    (sw,) = [v for v in state["switches"].values() if v["name"] == name]
    return sw, state["listener"]


def _idle_connections_keep_no_switch_out(emu: Emulation, rig: rigmod.Rig, name: str) -> None:
    """200 connections to the controller's TLS port (root's, from a server's address: the
    guard admits them) that never begin a handshake. Switch `name` on server2, cut off
    first, connects again while they are held (its handshake makes the oldest idle one give
    way, so fewer than the 64 kept wait out their timeout), and is programmed; every idle
    connection is closed by the controller: all but 64 at once, the rest at the handshake
    timeout, not before."""
    cfg = emu.controller_config
    rig.remote.run(["ovs-vsctl", "del-controller", name])
    until(lambda: not _switch_state(emu, name)[0]["connected"], time.monotonic() + 10)
    sw, before = _switch_state(emu, name)
    assert not sw["connected"], sw
    opened = time.monotonic()
    idle = [socket.create_connection((rigmod.LOCAL_IP, emu.controller.ofp_port))
            for _ in range(IDLE)]
    try:
        evicted = before.get("handshake_evicted", 0) + IDLE - cfg.max_handshakes
        until(lambda: len(_open(idle)) <= cfg.max_handshakes,
              time.monotonic() + 10)  # all taken, the oldest beyond the cap closed
        assert len(_open(idle)) == cfg.max_handshakes
        assert _switch_state(emu, name)[1]["handshake_evicted"] == evicted
        rig.remote.run(["ovs-vsctl", "set-controller", name, emu.controller.target])
        deadline = time.monotonic() + cfg.handshake_timeout + 10
        while not (now := _switch_state(emu, name))[0]["ready"]:
            assert time.monotonic() < deadline, now
            time.sleep(0.05)
        assert now[0]["connects"] > sw["connects"]
        while _open(idle):
            assert time.monotonic() < deadline, len(_open(idle))
            time.sleep(0.05)
        assert time.monotonic() - opened >= cfg.handshake_timeout
        after = _switch_state(emu, name)[1]
        grown = {k: v - before.get(k, 0) for k, v in after.items()}
        # the switch's arrival made an idle one give way: it came while they were held
        assert grown.get("handshake_timeout", 0) < cfg.max_handshakes, grown
        assert grown["handshake_evicted"] + grown.get("handshake_timeout", 0) >= IDLE, grown
        assert grown["connections"] >= 1 and not grown.get("accept_errors"), grown
    finally:
        for s in idle:
            s.close()


def test_a_fat_tree_across_two_servers_delivers_unicast_and_groups(caps, rig):
    topo = fattree(4, 2, bw=20)
    with Emulation(topo, caps=caps, cluster=Spread(topo, rig.spec)) as emu:
        place = emu.spread.placement
        assert place is not None
        assert place.hosts_per_server(topo) == {"localhost": 8, rigmod.NAME: 8}
        theirs = {n for n in place.nodes_on(rigmod.NAME) if n.startswith("s")}
        listed = rig.remote.run(["ovs-vsctl", "list-br"]).stdout.split()
        assert set(listed) == theirs  # server2's switches on server2's Open vSwitch
        types = rig.remote.run(["ovs-vsctl", "--columns=type", "list", "Interface"]).stdout
        assert (AFXDP_PORT in types) == (emu.host_ports == AFXDP_PORT)  # its own ports
        tunnels = rig.remote.run(["ip", "-o", "link", "show", "type", "vxlan"]).stdout
        assert len(tunnels.splitlines()) == len(place.cut) > 0
        far = [h.name for h in topo.hosts if place.server_of[h.name] == rigmod.NAME]
        near = [h.name for h in topo.hosts if place.server_of[h.name] == "localhost"]
        assert emu.host(far[0]).cmd("hostname").strip() == far[0]

        # unicast both ways across the tunnels, full-sized frames included
        for src, dsts in ((near[0], far), (far[-1], near)):
            ips = " ".join(emu.host(d).IP() for d in dsts)
            out = emu.host(src).cmd(f"for ip in {ips}; do ping -c1 -W3 -s 1400 $ip "
                                    ">/dev/null && echo ok; done")
            assert out.split().count("ok") == len(dsts), (src, out)

        _only_the_servers_reach_the_tunnels_and_the_controller(emu, rig)
        _idle_connections_keep_no_switch_out(emu, rig, sorted(theirs)[0])
        assert set(emu.record.tunnels.values()) == {  # the run's own VNIs, one per tunnel
            i["linkinfo"]["info_data"]["id"] for i in json.loads(rig.remote.run(
                ["ip", "-d", "-j", "link", "show", "type", "vxlan"]).stdout)}
        assert len(emu.record.tunnels) == len(place.cut)

        # a group with members on both servers, sent from each side
        for sender, members in ((near[0], [near[3], far[0], far[5]]),
                                (far[2], [near[1], far[4]])):
            procs = _members(emu, members)
            until(lambda want=set(members): want <= controller_members(
                emu.controller.api, GROUP), time.monotonic() + 10)  # it has the reports
            counted = _ovs_counts(rig)
            sent = emu.host(sender).popen([sys.executable, "-c", SEND, GROUP, str(PORT),
                                           str(COUNT)], text=True)
            assert sent.wait(timeout=30) == 0, sent.stderr.read()
            got = {name: p.communicate(timeout=60) for name, p in procs.items()}
            state = api_get(emu.controller.api, "/state")
            assert all(out.split()[-2:] == [str(COUNT // 2)] * 2 for out, _ in got.values()), (
                sender, got, state["groups"].get(GROUP), state["counters"],
                _grown(counted, _ovs_counts(rig)))

        # loss on a host link there, loss on a link between the servers (an nftables
        # table on each end's server), background traffic from hosts on both
        emu.set_loss(1.0, [far[2]])  # (an answer would take ~1 ms: 0.3 s waits it out)
        assert "ok" not in emu.host(near[0]).cmd(
            f"ping -c1 -W0.3 {emu.host(far[2]).IP()} >/dev/null && echo ok")
        emu.set_loss(0, [far[2]])
        a, b = place.cut[0]
        emu.set_link_loss(a, b, "5%")
        table = nft_table(emu.record.id)
        here = subprocess.run(["nft", "list", "tables", "netdev"], capture_output=True,
                              text=True).stdout
        there = rig.remote.run(["nft", "list", "tables", "netdev"]).stdout
        assert table in here.split() and table in there.split(), (here, there)
        emu.set_link_loss(a, b, 0)
        with Traffic(emu, TrafficSpec("uniform", load=0.2, hosts=[near[0], far[0], far[1]]),
                     members=[]) as tr:
            time.sleep(1)  # hundreds of messages a generator at this load
        assert tr.result["generators"] == 3 and tr.result["accepted"] > 0.1, tr.result
        assert all(r["received_bytes"] > 0 for r in tr.result["per_host"].values())

        # MPI across the servers: hydra reaches server2's hosts through ssh
        res = run_mpi(emu, ["-m", "collectives.programs.verify", "--sizes", "1,100000",
                            "--roots", f"0,{len(near)}", "--algorithms", "binomial,nack"],
                      timeout=300)
        (whole,) = _records(res)
        assert whole["size"] == 16 and whole["all_correct"], whole
        # rank 0 on server2 (mpiexec stays here); each server's ranks lease multicast
        # groups from their own half of the pool
        said = sorted(run_mpi(emu, ["-c", HOSTNAME], hosts=[far[1], near[2], far[3]])
                      .rank_output.values())
        assert [ln.split() for ln in said] == sorted(
            [[far[1], "239.194.0.0/15"], [near[2], "239.192.0.0/15"],
             [far[3], "239.194.0.0/15"]])
        with pytest.raises(RunFailed, match=rf"rank 1 \({far[0]}\) exited with code 7"):
            run_mpi(emu, ["-c", DIE], hosts=[near[0], far[0], far[1]], timeout=60)
        proxies = rig.remote.run(["pgrep", "-f", "hydra_pmi_proxy"], check=False)
        assert proxies.returncode == 1, proxies.stdout  # the failed job's, gone there too

        # a measured broadcast: flow latency is the measure, every server sampled (on two
        # hosts of each server: the flow benchmark times each responder in turn, and 16
        # ranks took 14 s of it; the verify above ran on all 16)
        with Monitor(emu.topo, emu.spread) as mon:
            t0 = time.time()
            point = run_bcast(emu, BcastCall("nack", 65536), RunOptions(
                repetitions=3, hosts=[near[0], far[0], near[1], far[1]]))
            fidelity = mon.window(t0, time.time())
        assert point.timing == "flow" and point.servers == ("localhost", rigmod.NAME)
        assert point.median_s > 0 and point.rank_done_s is None
        assert point.direct_across_servers["t_mcast_s"]["median"] > 0
        assert set(fidelity["servers"]) == {"localhost", rigmod.NAME}
        assert all(v["switch_waited"] is not None for v in fidelity["servers"].values())
        assert sum(t["mbit"] for t in fidelity["tunnels"]) > 0  # the broadcast crossed
        with pytest.raises(RunFailed, match="share no clock"):
            run_bcast(emu, BcastCall("binomial", 1000), RunOptions(repetitions=2, flow=False))
        run_id = emu.record.id
    assert leftovers() == {"processes": [], "bridges": [], "interfaces": [],
                           "records": []}
    there = _left_on(rig)
    assert there == SERVER2_CLEAN, (run_id, there)
    gone = rig.remote.run(["test", "-e", f"/run/mcastlab/{run_id}"], check=False)
    assert gone.returncode == 1  # the run's folder there
    for ssl_config in (rig.remote.run(["ovs-vsctl", "get-ssl"]).stdout,
                       subprocess.run(["ovs-vsctl", "get-ssl"], capture_output=True,
                                      text=True).stdout):
        assert run_id not in ssl_config  # the run's certificates gone on both servers


def test_the_interactive_network_across_servers(caps, rig, tmp_path):
    """`mcastlab net --servers`: joins on both servers, a send that reaches members only,
    a capture on a host of server2 written here (tcpdump's stdout comes back through ssh)."""
    from .conftest import MCASTLAB
    from .test_net_cli import send_tables

    group, pcap = "239.1.2.3", tmp_path / "h3.pcap"
    script = tmp_path / "lab.txt"
    script.write_text("\n".join([f"join h1 {group}", f"join h3 {group}",
                                  f"capture h3 {pcap}", f"send h0 {group} 3",
                                  "capture h3 stop", f"leave h3 {group}"]) + "\n")
    out = subprocess.run(
        [*MCASTLAB, "net", "--topo", "tree:leaves=2,hosts_per_leaf=2,bw=10",
         "--servers", rigmod.NAME, "--ssh-config", rig.spec.ssh_config, "--tunnel",
         "vxlan", "--script", str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "2 servers, vxlan tunnels" in out.stderr
    (sent,) = send_tables(out.stderr)
    assert sent["h1"] == ("member", "3", "3") and sent["h3"] == ("member", "3", "3")
    assert sent["h2"] == ("-", "0", "-")  # on server2, kept off its wire
    there = _left_on(rig)
    assert not any(there.values()), there
    from scapy.all import UDP, rdpcap

    got = [p for p in rdpcap(str(pcap)) if UDP in p and p["IP"].dst == group]
    assert len(got) == 3


SPREAD = """
name = "spread"
repetitions = 3
warmup = 1
timeout = 60
[network]
topology = "tree:leaves=2,hosts_per_leaf=2,bw=10"
[sweep]
algorithms = ["binomial", "nack"]
sizes = [4096]
hosts = [%s]
groups = [%s]
faults = [%s]
[faults.lossy]
events = [{at = 0.0, loss = 0.05, on = "h3"}]
[cluster]
servers = ["%s"]
tunnel = "vxlan"
ssh_config = "%s"
"""


def _experiment(rig: rigmod.Rig, folder, hosts: int, groups: int, faults: str) -> list[dict]:
    from .conftest import MCASTLAB

    folder.mkdir()
    spec = folder / "spread.toml"
    spec.write_text(SPREAD % (hosts, groups, faults, rigmod.NAME, rig.spec.ssh_config))
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(folder)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    [run] = [p for p in folder.iterdir() if p.is_dir()]
    config = json.loads((run / "config.json").read_text())
    assert config["cluster"]["servers"] == ["localhost", rigmod.NAME]
    recs = [json.loads(ln) for ln in (run / "records.jsonl").read_text().splitlines()]
    for r in recs:
        assert r["status"] == "ok" and r["verified"], (r["config"], r["error"])
        assert r["servers"] == ["localhost", rigmod.NAME]
        assert set(r["fidelity"]["servers"]) == {"localhost", rigmod.NAME}
    return recs


def test_an_experiment_across_servers(caps, rig, tmp_path):
    """`mcastlab experiment` of a spec with [cluster]. Two groups, h0-h1 here and h2-h3 on
    server2: group 1's rank 0 gets its points, its fault's go-ahead and says its records
    only through hydra's forwarded input and output; each group's ranks share a server's
    clock, so the direct timing stands. One group of all four spans the servers: timed by
    flow latency, and the report says so."""
    split = _experiment(rig, tmp_path / "split", 2, 2, '"lossy"')
    spanning = _experiment(rig, tmp_path / "spanning", 4, 1, '"none"')
    there = _left_on(rig)
    assert not any(there.values()), there
    assert len(split) == 2 and len(spanning) == 2
    for r in split:
        assert r["timing"] == "direct" and len(r["samples_s"]) == 6, r
        assert [g["t_mcast_s"]["median"] > 0 for g in r["per_group"]] == [True, True]
        assert r["config"]["fault"] == "lossy" and r["faults"][0]["target"] == "h3", r
    for r in spanning:
        assert r["timing"] == "flow" and len(r["samples_s"]) == 1 and r["samples_s"][0] > 0
        assert len(r["direct_across_servers"]["samples_s"]) == 3
    [run] = [p for p in (tmp_path / "spanning").iterdir() if p.is_dir()]
    assert "2 of 2 points had a broadcast's ranks on more than one server" in \
        (run / "summary.txt").read_text()


def test_a_killed_run_leaves_nothing_on_server2(caps, rig):
    """SIGKILL of the launching process (no teardown at all) ends its ssh session with
    server2: the agent there tears the run's part down by itself, MPI ranks included;
    `mcastlab cleanup` does this machine's part, as after any crash."""
    from .conftest import MCASTLAB

    sleeper = "import time; from mpi4py import MPI; MPI.COMM_WORLD.Barrier(); time.sleep(120)"
    proc = subprocess.Popen(
        [*MCASTLAB, "mpirun", "--topo", "tree:leaves=2,hosts_per_leaf=2,bw=10",
         "--servers", rigmod.NAME, "--ssh-config", rig.spec.ssh_config, "--timeout", "200",
         "--", "-c", sleeper], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while True:  # both of server2's ranks are running
        ranks = rig.remote.run(["pgrep", "-f", "time.sleep.120"], check=False).stdout
        if len(ranks.split()) >= 2:
            break
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the ranks on server2 did not start"
        time.sleep(0.5)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 60
    while True:
        there = _left_on(rig)
        ranks = rig.remote.run(["pgrep", "-f", "time.sleep.120"], check=False).stdout
        if not any(there.values()) and not ranks.strip():
            break
        assert time.monotonic() < deadline, (there, ranks)
        time.sleep(0.5)
    assert leftovers()["records"]  # this machine's part is still there: not vacuous
    out = subprocess.run([*MCASTLAB, "cleanup"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
