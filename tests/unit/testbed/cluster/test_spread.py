"""testbed.cluster.spread: how a run's network lies on servers, without starting one: one
machine is the degenerate case, cut links become tunnels between the servers' addresses, and
the controller listens on the cluster and admits its servers only. A cluster refuses what
only one machine has, and AF_XDP ports go only where they can be opened."""

from __future__ import annotations

import os
import ssl
import subprocess
from pathlib import Path

import pytest

from controller.config import ControllerConfig
from testbed.cluster.nodes import TunnelLink
from testbed.cluster.server import RemoteServer
from testbed.cluster.spread import Spread
from testbed.emulation import run_records
from testbed.emulation.network import Emulation
from testbed.emulation.run_records import sockets_dir
from testbed.emulation.servers import LocalServer, OneMachine
from testbed.errors import UsageError
from testbed.specs.cluster import ClusterSpec, Server
from topologies import parse_spec

TOPO = parse_spec("fattree:k=4,n=2,hosts=16")
SPEC = ClusterSpec((Server("localhost"), Server("b")), tunnel="vxlan")


def _spread() -> Spread:
    s = Spread(TOPO, SPEC)
    s.addresses = {"localhost": "10.9.0.1", "b": "10.9.0.2"}
    return s


@pytest.mark.parametrize("s", [Spread(TOPO), OneMachine()], ids=["spread", "emulation's own"])
def test_one_machine_is_one_local_server_and_no_tunnels(s: OneMachine):
    assert not s.cluster and list(s.runners) == ["localhost"] and s.host_mtu is None
    assert type(s.runner("h3")) is LocalServer and s.local("s1") and s.remotes == []
    assert s.node_params("h3", switch=False) == {} and s.group_slice("h3") is None
    assert s.link_params("s1", "s5", 7) == {}
    cfg = s.controller_config(ControllerConfig(), "r1")
    assert cfg.unix and cfg.listen == str(sockets_dir("r1") / "openflow.sock")
    assert not cfg.allow and not cfg.tls


def test_the_emulation_is_handed_the_spread_and_places_it_after_its_own_refusals():
    """Emulation(cluster=...) takes the cluster's Spread through the interface it calls
    (OneMachine); without one it lays the network on this machine alone."""
    assert type(Emulation(TOPO, caps=object()).spread) is OneMachine
    spread = Spread(TOPO, SPEC)
    assert Emulation(TOPO, caps=object(), cluster=spread).spread is spread
    assert spread.placement is not None and spread.host_mtu == 1450
    assert isinstance(spread, OneMachine)


def test_nodes_go_to_their_servers_and_cut_links_become_tunnels():
    s = _spread()
    assert isinstance(s.runner("h15"), RemoteServer) and s.server_of("h15") == "b"
    assert s.by_server(["h15", "h0", "h8", "h1"], str) == {"localhost": ["h0", "h1"],
                                                            "b": ["h15", "h8"]}
    a, b = s.placement.cut[0]
    params = s.link_params(a, b, 7)
    assert params["cls"] is TunnelLink and params["kind"] == "vxlan"
    # its VNI drawn for the run (not the link's number), the same when asked again, and
    # in the run's record
    assert params["key"] == s.tunnel_ids.of(7) == s.link_params(a, b, 7)["key"]
    assert s.tunnel_record() == {"7": params["key"]}
    assert (params["ip1"], params["ip2"]) == (s.addresses[s.server_of(a)],
                                              s.addresses[s.server_of(b)])
    assert s.node_params("h15", switch=False)["runner"] is s.runners["b"]


def test_the_controller_listens_on_the_cluster_and_admits_its_servers_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The run's sockets folder in a folder of this test's: in Open vSwitch's own, it would be
    # a leftover of an ended run to any `mcastlab cleanup` beside the tests (removed then)
    monkeypatch.setattr(run_records, "OVS_RUNDIR", tmp_path)
    run_id = f"unit-{os.getpid()}"
    cfg = _spread().controller_config(ControllerConfig(), run_id)
    assert cfg.listen == "10.9.0.1" and set(cfg.allow) == {"10.9.0.1", "10.9.0.2"}
    assert cfg.admits(("10.9.0.2", 5000)) and not cfg.admits(("10.9.0.3", 5000))
    assert cfg.max_connections == 1024  # (the default fits these 8 switches)
    many = Spread(parse_spec("fattree:k=8,n=4"), SPEC)  # 2048 switches: the cap fits them
    many.addresses = {"localhost": "10.9.0.1", "b": "10.9.0.2"}
    assert many.controller_config(ControllerConfig(), run_id).max_connections == 2048 + 64
    # over TLS, with certificates of the run's own CA, whose key is gone
    folder = sockets_dir(run_id)
    assert folder.parent == tmp_path
    assert cfg.tls and Path(cfg.tls_ca) == folder / "ca.pem"
    assert (folder.stat().st_mode & 0o777) == 0o700 and not (folder / "ca.key").exists()
    for who in ("controller", "switch"):
        out = subprocess.run(["openssl", "verify", "-CAfile", cfg.tls_ca,
                              str(folder / f"{who}.pem")], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)  # as os-ken loads them
    ctx.load_cert_chain(cfg.tls_cert, cfg.tls_key)
    ctx.load_verify_locations(cfg.tls_ca)
    assert "--tls-ca" in cfg.to_args()


@pytest.mark.parametrize("kw", [{"switch": "linux-bridge"}, {"switch": "hub"}, {"host_cpu": 0.1}])
def test_a_cluster_refuses_what_only_one_machine_has(kw, monkeypatch):
    monkeypatch.setattr("testbed.emulation.network._check_host_cpu", lambda f: f)
    with pytest.raises(UsageError, match="across servers runs on Open vSwitch"):
        tree = parse_spec("tree:leaves=2,hosts_per_leaf=2")
        Emulation(tree, caps=object(), cluster=Spread(tree, SPEC),
                  **kw)


def test_af_xdp_ports_only_on_the_servers_that_can_open_them():
    from testbed.emulation.ports import host_links
    from testbed.errors import CapabilityError

    emu = Emulation(TOPO, caps=object(), cluster=Spread(TOPO, SPEC), ports="auto")

    class Held:  # what server b's agent answered
        server, ready = emu.spread.runners["b"], {"ready": True, "afxdp": False}

    emu.spread.holds = [Held()]
    every = {end for end, _lk in host_links(TOPO).values()}
    kept = emu.port_plan.where_possible(every)
    assert kept and kept == {e for e in every if emu.spread.local(e.split("-")[0])}
    emu.port_plan.asked = "afxdp"  # asked for everywhere: refused, naming the server
    with pytest.raises(CapabilityError, match="AF_XDP switch ports: b cannot open them"):
        emu.port_plan.where_possible(every)
