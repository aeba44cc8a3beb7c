"""Group members and counted sends on the emulated hosts: what the interactive network
(`mcastlab net`) and the IGMP lab use to show who receives a group's datagrams. Every probe
talks through its stdin and stdout only, so it works the same on a host of another server
of a cluster (through the ssh session of its Mininet node)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from topologies import HOST_PORT

from ..errors import McastlabError
from ..hostprogs import command
from .ports import intf_name

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


def wait_ready(proc: subprocess.Popen, what: str, timeout: float = 10.0) -> None:
    """Wait for the line "ready" on `proc`'s stdout (read byte by byte: nothing after it is
    taken from the pipe); its error output if it stops first."""
    assert proc.stdout is not None
    fd, line, deadline = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise McastlabError(f"{what} did not start within {timeout:g} s")
        chunk = os.read(fd, 1)
        if not chunk:
            proc.wait()
            err = proc.stderr.read() if proc.stderr else ""
            raise McastlabError(f"{what} stopped: {err or proc.returncode}")
        line += chunk
    if line.strip() != b"ready":
        raise McastlabError(f"{what} said {line.decode(errors='replace').strip()!r}")


def sniffed(sniffers: dict[str, subprocess.Popen],
            timeout: float = 30.0) -> dict[str, dict[str, Any] | None]:
    """Tell mcast_sniff processes started with --until-stop (stdin a pipe) to stop, all at
    once, and read what each counted: {"count", "by"}, or None for one that failed."""
    for p in sniffers.values():
        assert p.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            p.stdin.write("stop\n")
            p.stdin.flush()
    out: dict[str, dict[str, Any] | None] = {}
    for name, p in sniffers.items():
        text, _err = p.communicate(timeout=timeout)
        out[name] = json.loads(text) if p.returncode == 0 else None
    return out


class Member:
    """A process on `host` that holds a membership of `group` (the kernel sends the IGMP
    report on join and the leave when it stops) and counts each datagram it receives."""

    def __init__(self, host: Any, group: str, work_dir: Path | None = None,
                 port: int = PORT) -> None:
        del work_dir  # (members kept a log file there before they spoke on stdout)
        self.host, self.group = host, group
        self.proc = host.popen(command("group_member", group, port, host.IP()), text=True,
                               stdin=subprocess.PIPE)
        wait_ready(self.proc, f"the member process on {host.name}")
        self.datagrams: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self.datagrams.append(json.loads(line))

    def received(self) -> int:
        return len(self.datagrams)

    def stop(self) -> None:
        """Leave: the end of its stdin ends it (also through ssh, where a signal to the local
        ssh client would not reach it)."""
        if self.proc.poll() is None and self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=2)


def send_counted(hosts: list[Any], sender: Any, group: str, count: int,
                 work_dir: Path | None = None, port: int = PORT,
                 gap: float = 0.02) -> dict[str, int | None]:
    """`sender` sends `count` datagrams to `group`; per host, the frames of the group its
    wire delivered (a raw socket sees them joined or not; None if the sniffer failed)."""
    del work_dir
    seconds = 1.0 + count * gap
    sniffers = {h.name: h.popen(command("mcast_sniff", intf_name(h.name, HOST_PORT),
                                        f"{group}/32", seconds, "-", "--until-stop"),
                                stdin=subprocess.PIPE, text=True)
                for h in hosts}
    for name, proc in sniffers.items():
        wait_ready(proc, f"the sniffer on {name}")
    sender_proc = sender.popen(command("group_send", group, port, sender.IP(), count, gap,
                                       f"from {sender.name}"), text=True)
    sender_proc.wait(timeout=30)
    return {name: None if got is None else got["count"]
            for name, got in sniffed(sniffers).items()}
