"""Group members and counted sends on the emulated hosts: what the interactive network
(`mcastlab net`) and the IGMP lab use to show who receives a group's datagrams."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from ..errors import McastlabError
from ..hostprogs import command
from .network import HOST_PORT, intf_name

PORT = 5000  # the UDP port members listen on and sends go to


def wait_file(path: Path, proc: subprocess.Popen, what: str, timeout: float = 10.0) -> None:
    """Wait until `proc` creates `path`; its error output if it stops first."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise McastlabError(f"{what} stopped: {proc.communicate()[1] or proc.returncode}")
        if time.monotonic() > deadline:
            raise McastlabError(f"{what} did not start within {timeout:g} s")
        time.sleep(0.05)


class Member:
    """A process on `host` that holds a membership of `group` (the kernel sends the IGMP
    report on join and the leave when it stops) and logs each datagram it receives."""

    def __init__(self, host: Any, group: str, work_dir: Path, port: int = PORT) -> None:
        self.host, self.group = host, group
        self.log = work_dir / f"{host.name}-{group}.jsonl"
        ready = work_dir / f"{host.name}-{group}.ready"
        ready.unlink(missing_ok=True)
        self.proc = host.popen(command("group_member", group, port, host.IP(), self.log, ready),
                               text=True)
        wait_file(ready, self.proc, f"the member process on {host.name}")

    def received(self) -> int:
        try:
            return sum(1 for _ in self.log.open())
        except OSError:
            return 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def send_counted(hosts: list[Any], sender: Any, group: str, count: int, work_dir: Path,
                 port: int = PORT, gap: float = 0.02) -> dict[str, int | None]:
    """`sender` sends `count` datagrams to `group`; per host, the frames of the group its
    wire delivered (a raw socket sees them joined or not; None if the sniffer failed)."""
    seconds = 1.0 + count * gap
    sniffers = {}
    for h in hosts:
        ready = work_dir / f"sniff-{h.name}"
        ready.unlink(missing_ok=True)
        sniffers[h.name] = (h.popen(command("mcast_sniff", intf_name(h.name, HOST_PORT),
                                            f"{group}/32", seconds, ready), text=True), ready)
    for name, (proc, ready) in sniffers.items():
        wait_file(ready, proc, f"the sniffer on {name}")
    sender_proc = sender.popen(command("group_send", group, port, sender.IP(), count, gap,
                                       f"from {sender.name}"), text=True)
    sender_proc.wait(timeout=30)
    out: dict[str, int | None] = {}
    for name, (proc, _) in sniffers.items():
        text, _err = proc.communicate(timeout=30)
        out[name] = json.loads(text)["count"] if proc.returncode == 0 else None
    return out
