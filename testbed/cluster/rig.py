"""A two-server cluster on one machine, for the tests and the cluster bench.

"server2" is a set of namespaces of its own (network, mount, PID, UTS) with a private /run
(where the testbed, Open vSwitch and sshd keep their state; /tmp stays shared, since a
checkout may live there and every server runs the same checkout at the same path), its own
Open vSwitch and its own sshd, reached from this machine ("localhost") over a
veth link shaped to a rate (HTB: the tunnels' bytes cost what they would on a wire). So every
remote path runs for real: ssh with a key, files put on a filesystem this machine does not
see, processes in a PID namespace it does not scan. The machine's own ~/.ssh and the system
sshd are never touched: keys, known_hosts and the ssh config live in the rig's folder.

The link uses 198.18.0.0/30 (RFC 2544's benchmarking range), clear of the emulated hosts'
10.0.0.0/8. Killing the rig's unshare process ends server2: its PID 1 goes (--kill-child),
the kernel ends every process in it, and the namespace with the veth goes with them.
"""

from __future__ import annotations

import pwd
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from ..emulation import shell
from ..errors import CapabilityError, RunFailed
from ..specs.cluster import ClusterSpec, Server
from .server import CONTROL_DIR, RemoteServer

LOCAL_IP, REMOTE_IP = "198.18.0.1", "198.18.0.2"
LOCAL_DEV, REMOTE_DEV = "mcl-s1", "mcl-s2"
NAME = "server2"
SSHD = "/usr/sbin/sshd"
UP_TIMEOUT_S = 20.0

_SSHD_CONFIG = """\
ListenAddress {ip}
HostKey {dir}/host_key
AuthorizedKeysFile {dir}/authorized_keys
PidFile {dir}/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
StrictModes no
MaxSessions 1024
MaxStartups 200
"""

_SSH_CONFIG = """\
Host {name}
    HostName {ip}
    User root
    IdentityFile {dir}/client_key
    IdentitiesOnly yes
    UserKnownHostsFile {dir}/known_hosts
    StrictHostKeyChecking yes
    BatchMode yes
"""

# server2's PID 1: its own /run and /sys, its name, not this machine's root ~/.bashrc (sshd
# runs every remote command with root's bash, which reads it: on the VM here pyenv's set-up,
# a session 0.2 s instead of 0.015 s); once the veth has arrived, its address, an Open
# vSwitch on the private /run (ovs-ctl would share /etc's database) and sshd
_INIT = """\
set -e
mount -t tmpfs tmpfs /run
mount -t sysfs sysfs /sys
hostname {name}
[ ! -f {bashrc} ] || mount --bind /dev/null {bashrc}
mkdir -p /run/sshd /run/openvswitch
ip link set lo up
touch {qdir}/ready
while ! ip link show {dev} >/dev/null 2>&1; do sleep 0.05; done
ip addr add {ip}/30 dev {dev}
ip link set {dev} up
ovsdb-tool create /run/openvswitch/conf.db /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server /run/openvswitch/conf.db --remote=punix:/run/openvswitch/db.sock \\
    --pidfile --detach --log-file=/run/openvswitch/ovsdb-server.log
ovs-vsctl --no-wait init
ovs-vswitchd --pidfile --detach --log-file=/run/openvswitch/ovs-vswitchd.log
{sshd} -f {qdir}/sshd_config
touch {qdir}/up
exec sleep infinity
"""


class Rig:
    """`with Rig(mbit) as rig:` a running two-server cluster (`rig.spec`, `rig.remote`)."""

    def __init__(self, mbit: float = 1000.0) -> None:
        self.mbit = mbit
        self.dir: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid: int | None = None  # server2's PID 1, as this machine sees it

    # ---- what the tests and the bench use ------------------------------------------------
    @property
    def spec(self) -> ClusterSpec:
        assert self.dir is not None
        return ClusterSpec((Server("localhost"), Server(NAME)), tunnel="vxlan",
                           listen=LOCAL_IP, ssh_config=str(self.dir / "ssh_config"))

    @property
    def remote(self) -> RemoteServer:
        return RemoteServer(self.spec.servers[1], self.spec.ssh_config)

    def __enter__(self) -> Rig:
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.down()

    # ---- up and down ------------------------------------------------------------------------
    def up(self) -> None:
        if not Path(SSHD).exists():
            raise CapabilityError(f"{SSHD} is missing: the two-server rig needs openssh-server "
                                  "(sudo make install)")
        self.dir = Path(tempfile.mkdtemp(prefix="mcastlab-rig-", dir="/var/tmp"))
        self._keys()
        fill = {"dir": self.dir, "qdir": shlex.quote(str(self.dir)), "ip": REMOTE_IP,
                "name": NAME, "dev": REMOTE_DEV, "sshd": SSHD,
                "bashrc": shlex.quote(str(Path(pwd.getpwuid(0).pw_dir) / ".bashrc"))}
        (self.dir / "sshd_config").write_text(_SSHD_CONFIG.format(**fill))
        (self.dir / "ssh_config").write_text(_SSH_CONFIG.format(**fill))
        (self.dir / "init.sh").write_text(_INIT.format(**fill))
        self.proc = subprocess.Popen(
            ["unshare", "--net", "--mount", "--pid", "--uts", "--kill-child", "--mount-proc",
             "--propagation", "private", "sh", str(self.dir / "init.sh")],
            stdout=subprocess.DEVNULL, stderr=(self.dir / "init.err").open("wb"),
            start_new_session=True)
        self._wait_for("ready")
        self.pid = int(shell.run(["pgrep", "-P", str(self.proc.pid)]).stdout.split()[0])
        shell.run(["ip", "link", "add", LOCAL_DEV, "type", "veth", "peer", "name", REMOTE_DEV])
        shell.run(["ip", "link", "set", REMOTE_DEV, "netns", str(self.pid)])
        shell.run(["ip", "addr", "add", f"{LOCAL_IP}/30", "dev", LOCAL_DEV])
        shell.run(["ip", "link", "set", LOCAL_DEV, "up"])
        self._wait_for("up")
        for inside in ([], ["nsenter", "-t", str(self.pid), "-n"]):
            dev = REMOTE_DEV if inside else LOCAL_DEV
            shell.run([*inside, "tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:",
                       "htb", "default", "1"])
            shell.run([*inside, "tc", "class", "replace", "dev", dev, "parent", "1:",
                       "classid", "1:1", "htb", "rate", f"{self.mbit:g}mbit"])
        self.remote.run(["true"], timeout=10)  # ssh answers with the rig's key

    def down(self) -> None:
        """End server2 and everything in it; remove the link and the rig's folder."""
        if self.dir is not None:
            subprocess.run(["ssh", "-F", str(self.dir / "ssh_config"), "-o",
                            f"ControlPath={CONTROL_DIR}/%C", "-O", "exit", NAME],
                           capture_output=True, timeout=10)
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        shell.run(["ip", "link", "del", LOCAL_DEV], check=False)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def _keys(self) -> None:
        assert self.dir is not None
        for key in ("host_key", "client_key"):
            shell.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                       str(self.dir / key)])
        (self.dir / "authorized_keys").write_text((self.dir / "client_key.pub").read_text())
        host = (self.dir / "host_key.pub").read_text().split()
        (self.dir / "known_hosts").write_text(f"{NAME},{REMOTE_IP} {host[0]} {host[1]}\n")

    def _wait_for(self, mark: str) -> None:
        assert self.dir is not None and self.proc is not None
        deadline = time.monotonic() + UP_TIMEOUT_S
        while not (self.dir / mark).exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                said = (self.dir / "init.err").read_text(errors="replace").strip()
                raise RunFailed(f"the two-server rig did not come up ({mark}): "
                                f"{said.splitlines()[-1] if said else 'no message'}")
            time.sleep(0.05)
