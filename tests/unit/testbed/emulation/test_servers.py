"""How the testbed reaches a cluster's servers: the ssh command (batch mode, one multiplexed
connection per server, the cluster's ssh config), the remote command line quoted so the
remote shell splits it back as given, and the local server running commands here."""

from __future__ import annotations

import pytest

from testbed.emulation.servers import LocalServer
from testbed.errors import RunFailed
from testbed.specs.cluster import Server


def test_the_local_server_runs_here(tmp_path):
    local = LocalServer(Server("localhost"))
    assert local.run(["sh", "-c", "cat; echo -n .", "sh"], input="in").stdout == "in."
    local.put(tmp_path / "a" / "b.txt", "text")
    assert (tmp_path / "a" / "b.txt").read_text() == "text"
    with pytest.raises(RunFailed, match="false"):
        local.run(["false"])
