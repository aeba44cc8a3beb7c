"""testbed.emulation.servers.LocalServer: it runs commands and writes files here, and a failing
command raises RunFailed."""

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
