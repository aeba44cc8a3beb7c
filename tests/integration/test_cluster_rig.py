"""The two-server rig (testbed.cluster.rig) that the cluster tests run on: server2 has its
own name, /run, processes, Open vSwitch and sshd (and no shell start-up file of this
machine's root), is reached by ssh with the rig's key over a shaped link, takes files and
environment marks, names itself in a failed command, refuses a wrong key at once; `mcastlab
doctor` finds it ready; and when the rig ends nothing of it is left. (One rig for all of it:
bringing up a second one for the doctor cost 2 s.)"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from testbed.cluster import doctor
from testbed.cluster import rig as rigmod
from testbed.cluster.server import RemoteServer
from testbed.errors import RunFailed
from testbed.specs.cluster import Server

from .conftest import MCASTLAB


def test_server2_is_a_machine_of_its_own_reached_by_ssh_and_doctor_finds_it_ready(
        caps, clean_after):
    with rigmod.Rig(mbit=100) as rig:
        remote = rig.remote
        assert remote.run(["hostname"]).stdout.strip() == rigmod.NAME
        marker = Path("/run/mcastlab-rig-marker")
        remote.put(marker, "on server2 only\n")
        assert remote.run(["cat", str(marker)]).stdout == "on server2 only\n"
        assert not marker.exists()  # its /run is not this machine's
        # its root's shell starts clean: this machine's root ~/.bashrc (pyenv's set-up here)
        # is not server2's, and cost 0.15-0.2 s of every ssh command while it ran there
        assert remote.run(["sh", "-c", "cat ~/.bashrc 2>/dev/null"]).stdout == ""
        said = remote.run(["sh", "-c", 'echo "$MCASTLAB_RUN"'], env={"MCASTLAB_RUN": "r 1"})
        assert said.stdout.strip() == "r 1"
        mine = subprocess.run(["ovs-vsctl", "get", "Open_vSwitch", ".", "_uuid"],
                              capture_output=True, text=True).stdout
        theirs = remote.run(["ovs-vsctl", "get", "Open_vSwitch", ".", "_uuid"]).stdout
        assert theirs.strip() and theirs != mine  # an Open vSwitch of its own
        pids = remote.run(["sh", "-c", "ls /proc | grep -c '^[0-9]'"]).stdout
        assert int(pids) < 30  # its own PID namespace: a handful of processes
        ping = subprocess.run(["ping", "-c", "2", "-i", "0.05", "-W", "2", rigmod.REMOTE_IP],
                              capture_output=True, text=True)
        assert ping.returncode == 0, ping.stdout
        with pytest.raises(RunFailed, match=f"on {rigmod.NAME}: 'false' failed"):
            remote.run(["false"])
        stranger = rig.dir / "stranger"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)],
                       check=True)
        cfg = rig.dir / "stranger_config"
        cfg.write_text((rig.dir / "ssh_config").read_text()
                       .replace(f"{rig.dir}/client_key", str(stranger)))
        t0 = time.monotonic()
        with pytest.raises(RunFailed, match="Permission denied"):
            RemoteServer(Server(rigmod.NAME), str(cfg), rig.dir / "ctl").run(["true"])
        assert time.monotonic() - t0 < 10  # batch mode: no password prompt to wait on
        reports = doctor.check(rig.spec)
        assert [r.server for r in reports] == ["localhost", rigmod.NAME]
        assert all(not r.problems for r in reports), [r.problems for r in reports]
        two = reports[1]
        assert two.facts["versions"]["machine"] == rigmod.NAME  # it answered from server2
        assert two.facts["gretap"] is False  # this kernel has no GRE (ip_gre)
        assert "gretap: no (VXLAN)" in doctor.text(reports).splitlines()[1]
        # one clock here: the offset is within its uncertainty, a round trip on the link
        assert abs(two.offset_s) <= two.uncertainty_s < 0.005, (two.offset_s, two.uncertainty_s)
        out = subprocess.run([*MCASTLAB, "doctor", "--servers", rigmod.NAME, "--ssh-config",
                              rig.spec.ssh_config, "--json"], capture_output=True, text=True,
                             timeout=180)
        assert out.returncode == 0, out.stderr
        assert [r["server"] for r in json.loads(out.stdout)] == ["localhost", rigmod.NAME]
        folder = rig.dir
    assert not folder.exists()
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert rigmod.LOCAL_DEV not in links
    left = subprocess.run(["pgrep", "-f", f"{folder}/sshd_config"], capture_output=True)
    assert left.returncode == 1  # no sshd of the rig
