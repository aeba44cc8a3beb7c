"""A fully capable machine, as the emulation's tests (and experiments/test_run.py) hand it to
Emulation and the link checks; a runner and a host's shell that record the commands they
are given instead of running them (LinkSetup's and LossControl's tests)."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Sequence

from testbed.emulation.environment import Capabilities
from testbed.emulation.servers import LocalServer
from testbed.specs.cluster import LOCAL, Server

ALL_TOOLS = {t: True for t in ("ethtool", "tc", "iptables", "nsenter", "unshare", "mnexec")}


def caps(**overrides: object) -> Capabilities:
    """A fully capable machine, with the given fields changed."""
    base = Capabilities(
        root=True, ovs_installed=True, ovs_running=True, ovs_datapaths=["netdev", "system"],
        kernel_ovs_module=True, sch_htb=True, sch_netem=True, netfilter_statistic=True,
        mininet=True, mpi=True, controller_importable=True, tools=dict(ALL_TOOLS))
    return dataclasses.replace(base, **overrides)


class Recorder(LocalServer):
    """This machine's runner, recording the commands instead of running them (the files it
    puts are written, into a test's folder)."""

    def __init__(self) -> None:
        super().__init__(Server(LOCAL))
        self.ran: list[tuple[list[str], str | None]] = []

    def run(self, argv: Sequence[str], *, input: str | None = None, check: bool = True,
            timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        self.ran.append((list(argv), input))
        return subprocess.CompletedProcess(list(argv), 0, "", "")


class Shell:
    """A host's shell as run_in_host uses it: the command line it was given."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def cmd(self, line: str) -> str:
        self.lines.append(line)
        return "MCASTLAB-OK"
