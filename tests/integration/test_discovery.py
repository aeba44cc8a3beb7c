"""The controller on its own, with no topology file, serving a network built by a plain
Mininet script: it discovers switches, links (LLDP) and hosts (ARP, IGMP) itself."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from testbed.emulation.controller_proc import api_get, free_port

from .conftest import MCASTLAB

SCRIPT = Path(__file__).with_name("plain_mininet.py")


def test_discovery_mode_serves_a_plain_mininet_script(caps, clean_after, tmp_path):
    ofp, api = free_port(), tmp_path / "api.sock"
    log = tmp_path / "controller.log"
    ctrl = subprocess.Popen([*MCASTLAB, "controller", "--port", str(ofp), "--api-socket", str(api),
                             "--log-file", str(log)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    out = None
    try:
        out = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(ofp), str(api)],
                             capture_output=True, text=True, timeout=180)
        state = api_get(api, "/state")
    finally:
        ctrl.terminate()
        ctrl.wait(timeout=10)
        if out is None or out.returncode != 0:  # the script died: clean up after it
            subprocess.run(["mn", "-c"], capture_output=True)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["ping_loss"] == 0
    assert res["received"] == {"h2": 5, "h4": 5}
    assert state["discovered"] and len(state["switches"]) == 3
    # hosts numbered by IP: mn's h1..h4 (10.0.0.1..4) are nodes 0..3
    assert [v["ip"] for v in state["hosts"].values()] == [f"10.0.0.{i}" for i in range(1, 5)]
    assert "link s" in log.read_text()
