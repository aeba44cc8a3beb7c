"""A server of a cluster, as the testbed talks to it: run a command in its root namespace, put
a file on it. The local one runs commands here (testbed.emulation.servers.LocalServer); a
remote one through ssh: batch mode (a missing key fails at once instead of asking for a
password), one multiplexed connection per server (ControlMaster: Mininet Cluster Edition
opens one per node otherwise), the cluster's ssh config if it has one, and every argument
quoted for the remote shell.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..emulation import shell
from ..emulation.run_records import STATE_DIR, state_dir
from ..emulation.servers import LocalServer
from ..interpreter import module
from ..specs.cluster import ClusterSpec, Server

CONTROL_DIR = STATE_DIR / "ssh"  # short: a unix socket path holds at most 107 bytes
PERSIST_S = 60  # the master connection outlives its last command this long


def ssh_argv(server: Server, ssh_config: str | None = None,
             control_dir: Path = CONTROL_DIR) -> list[str]:
    """`ssh ... user@host`, to which the remote command is appended."""
    argv = ["ssh", "-o", "BatchMode=yes", "-o", "ControlMaster=auto",
            "-o", f"ControlPath={control_dir}/%C", "-o", f"ControlPersist={PERSIST_S}",
            "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"]
    if ssh_config:
        argv += ["-F", ssh_config]
    return argv + [f"{server.user}@{server.host}"]  # = LocalServer.destination


def remote_command(argv: Sequence[str], env: Mapping[str, str] | None = None) -> str:
    """The command line the remote shell runs: `env K=V ...` first (ssh passes no
    environment), every word quoted so the remote shell splits it back as given."""
    words = [*(["env", *(f"{k}={v}" for k, v in env.items())] if env else []), *argv]
    return shlex.join(words)


class RemoteServer(LocalServer):
    """Another server, reached through ssh."""

    def __init__(self, server: Server, ssh_config: str | None = None,
                 control_dir: Path = CONTROL_DIR) -> None:
        super().__init__(server)
        self.ssh_config, self.control_dir = ssh_config, control_dir

    def ssh(self) -> list[str]:
        """The ssh command to this server (the remote command line goes after it)."""
        if self.control_dir.parent == STATE_DIR:
            state_dir()
        self.control_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # ssh's sockets
        return ssh_argv(self.server, self.ssh_config, self.control_dir)

    def run(self, argv: Sequence[str], *, input: str | None = None, check: bool = True,
            timeout: float = 30.0, env: Mapping[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
        cmd = [*self.ssh(), remote_command(argv, env)]
        return shell.run(cmd, input=input, check=check, timeout=timeout,  # not ssh's line
                         label=f"on {self.server}: '{shlex.join(argv)}'")

    def put(self, path: Path, text: str) -> None:
        self.run(["sh", "-c", 'umask 077 && mkdir -p "$(dirname "$1")" && rm -f "$1" && '
                  'cat > "$1"', "sh", str(path)], input=text)

    def kill_job(self, job: str) -> None:
        self.run(module("testbed.cluster.agent", "kill-job", job), check=False)


def servers(spec: ClusterSpec) -> list[LocalServer]:
    """The runner of every server of `spec`, the first one local."""
    first, *rest = spec.servers
    return [LocalServer(first), *(RemoteServer(s, spec.ssh_config) for s in rest)]
