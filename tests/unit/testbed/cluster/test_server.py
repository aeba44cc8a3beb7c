"""testbed.cluster.server: the ssh command (batch mode, one multiplexed connection per server,
the cluster's ssh config), the remote command line quoted so the remote shell splits it back
as given, and a cluster as one local server, then remote ones."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from testbed.cluster.server import RemoteServer, remote_command, servers, ssh_argv
from testbed.emulation.servers import LocalServer
from testbed.specs.cluster import Server, from_dict


def test_ssh_never_asks_and_shares_one_connection_per_server():
    argv = ssh_argv(Server("10.1.0.2", "alice"), "rig_ssh_config", Path("/run/x/ssh"))
    assert argv[0] == "ssh" and argv[-1] == "alice@10.1.0.2"
    opts = " ".join(argv)
    assert "BatchMode=yes" in opts and "ControlMaster=auto" in opts
    assert "ControlPath=/run/x/ssh/%C" in opts and "-F rig_ssh_config" in opts
    assert "-F" not in ssh_argv(Server("b"))


@pytest.mark.parametrize("argv", [
    ["ip", "link", "add", "t1", "type", "vxlan", "id", "7"],
    ["sh", "-c", 'echo "$1" > /tmp/x', "sh", "it's a 'quoted' $HOME; rm -rf /"],
    ["printf", "%s\\n", "a b", "", "*"],
])
def test_the_remote_shell_splits_the_command_back_as_given(argv):
    assert shlex.split(remote_command(argv)) == argv
    env = {"MCASTLAB_RUN": "20261125-1", "X": "a b"}
    assert shlex.split(remote_command(argv, env)) == ["env", "MCASTLAB_RUN=20261125-1",
                                                      "X=a b", *argv]


def test_a_cluster_is_one_local_server_then_remote_ones():
    spec = from_dict({"servers": ["localhost", "root@server2", "bob@server3"],
                      "ssh_config": "cfg"})
    got = servers(spec)
    assert [type(s) for s in got] == [LocalServer, RemoteServer, RemoteServer]
    assert [s.name for s in got] == ["localhost", "server2", "server3"]
    assert got[2].ssh_config == "cfg" and got[2].server.user == "bob"
