"""OpenFlow over TLS across servers: a certificate authority made for one run, a certificate
for its controller and one for its switches, both signed by it, and each side made to show
its own and to accept only the other's (mutual TLS: os-ken's --ca-certs asks for the
switch's certificate, Open vSwitch checks the controller's against the CA it was given).

So the run's switches are the only ones its controller talks to, and the flows cross the
servers' network unread and unchanged. The keys exist for the run's life only: made in its
sockets folder (/var/run/openvswitch/mcastlab-<run>/, root's, 0700) on this server, copied
into the same folder on the others, gone with the folder at cleanup. Open vSwitch keeps one
SSL configuration per server (`ovs-vsctl set-ssl`): a run sets it and deletes it at its end;
one it did not set is never replaced (the run is refused instead).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..emulation import run_records
from ..emulation.servers import LocalServer
from ..errors import CapabilityError

DAYS = "7"  # a run's certificates outlive no run by much
CURVE = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
LEAF = "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"


@dataclass(frozen=True)
class RunPki:
    """One run's TLS files (on every server at the same paths)."""

    folder: Path

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    def key(self, who: str) -> Path:
        return self.folder / f"{who}.key"

    def cert(self, who: str) -> Path:
        return self.folder / f"{who}.pem"


def _openssl(args: list[str], folder: Path) -> None:
    try:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True,
                       text=True, timeout=60)
    except FileNotFoundError:
        raise CapabilityError("OpenFlow over TLS needs openssl (sudo make install)") from None
    except subprocess.CalledProcessError as exc:
        why = " ".join(exc.stderr.split())[:300]
        raise CapabilityError(f"openssl could not make the run's certificates: {why}") from None


def make_pki(run_id: str) -> RunPki:
    """A CA, and a controller's and a switches' key and certificate signed by it, in the
    run's sockets folder (made 0700)."""
    pki = RunPki(run_records.sockets_dir(run_id))
    pki.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    pki.folder.chmod(0o700)
    (pki.folder / "leaf.ext").write_text(LEAF)
    _openssl(["req", "-x509", *CURVE, "-keyout", "ca.key", "-out", "ca.pem", "-days", DAYS,
              "-subj", f"/CN=mcastlab run {run_id} CA"], pki.folder)
    for who in ("controller", "switch"):
        _openssl(["req", *CURVE, "-keyout", f"{who}.key", "-out", f"{who}.csr",
                  "-subj", f"/CN=mcastlab run {run_id} {who}"], pki.folder)
        _openssl(["x509", "-req", "-in", f"{who}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                  "-CAcreateserial", "-out", f"{who}.pem", "-days", DAYS,
                  "-extfile", "leaf.ext"], pki.folder)
    (pki.folder / "ca.key").unlink()  # nothing more is signed with it
    return pki


def ssl_config(runner: LocalServer) -> str:
    """The server's Open vSwitch SSL configuration ('' when it has none)."""
    return runner.run(["ovs-vsctl", "get-ssl"], check=False).stdout.strip()


def set_switch_tls(runner: LocalServer, pki: RunPki, remote: bool) -> None:
    """Give the server's Open vSwitch the switches' key and certificate and the run's CA
    (copied there first when `remote`); refused when it has an SSL configuration that is
    not a run's."""
    current = ssl_config(runner)
    if current and f"/{run_records.SOCKETS_PREFIX}" not in current:
        raise CapabilityError(f"Open vSwitch on {runner.name} has an SSL configuration of its "
                              "own; a run across servers sets its own for OpenFlow over TLS "
                              "and will not replace it ('ovs-vsctl get-ssl' shows it)")
    files = [pki.ca, pki.key("switch"), pki.cert("switch")]
    if remote:
        for f in files:
            runner.put(f, f.read_text())
    runner.run(["ovs-vsctl", "set-ssl", *map(str, files[1:]), str(files[0])])
