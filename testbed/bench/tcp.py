"""One TCP stream between two emulated hosts, measured by iperf3 (its JSON report)."""

from __future__ import annotations

import json
import time
from typing import Any


def iperf(client: Any, server: Any, seconds: float) -> dict[str, Any]:
    """iperf3 from Mininet host `client` to `server` for `seconds`: the rate the receiver
    got (Mbit/s) and the sender's retransmissions."""
    listener = server.popen(["iperf3", "-s", "-1", "-B", server.IP()])
    time.sleep(1.0)  # listening
    text = client.cmd(f"iperf3 -c {server.IP()} -t {seconds:g} -J")
    listener.wait(timeout=20)
    data = json.loads(text)
    return {"mbit": data["end"]["sum_received"]["bits_per_second"] / 1e6,
            "retransmits": data["end"]["sum_sent"].get("retransmits")}
