"""UFTP (Debian's `uftp`, a NACK-based multicast file transfer) run in the emulated hosts as a
reference peer for the multicast broadcasts: one sender, `uftpd` receivers in a closed group.

What is set and why: the rate (`-R`, Kbit/s) is the host link's, as nack paces to it; block
size 1400 B, like nack's fragments on a 1500-byte MTU; GRTT starts at 5 ms (`-r`, kept
within 1 ms..1 s) instead of 0.5 s, since the emulated round trip is sub-millisecond, with
the highest robustness (`-s 50`: at 1 ms and robustness 20, a receiver whose FILEINFO_ACKs
were lost at 5 % loss was dropped); receiver UIDs are their IPv4 addresses (`-H`: phases
end as soon as all have answered). uftp may still drop a receiver under loss (its REG_CONF
lost, the receiver never confirms): `complete` counts the receivers that got the file. The
time is uftp's own "Total elapsed time" of the transfer (announce and registration not
counted, as the broadcasts' channel set-up is not); each receiver's copy is compared with
the file sent. Every uftpd is stopped before `transfer` returns."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from ..errors import RunFailed
from .controller_proc import wait_listed
from .ports import switch_side
from .shell import stop_processes

BLOCK = 1400
ELAPSED = re.compile(r"Total elapsed time: ([0-9.]+) seconds")


def uid(ip: str) -> str:
    """A receiver's UFTP id: its IPv4 address as a 32-bit hex number."""
    return "0x" + "".join(f"{int(x):02X}" for x in ip.split("."))


def switch_frames(emu: Any) -> dict[str, int]:
    """Frames the switches' host ports received (what hosts put on their links) and sent
    (what reached hosts), from the switch-side veth counters in the root namespace."""
    got = {"sent": 0, "delivered": 0}
    for intf, _ in switch_side(emu.topo).values():
        stats = Path(f"/sys/class/net/{intf}/statistics")
        got["sent"] += int((stats / "rx_packets").read_text())
        got["delivered"] += int((stats / "tx_packets").read_text())
    return got


UFTPD_PORT = 1044  # uftpd's default port
BIND_TIMEOUT_S = 10.0


def _wait_bound(receivers: list[Any]) -> None:
    """Until every uftpd listens on its port (a fixed 0.3 s was once too short on a loaded
    machine: a fresh-clone run had 1 of 3 receivers complete on a lossless network)."""
    deadline = time.monotonic() + BIND_TIMEOUT_S
    for h in receivers:
        while f":{UFTPD_PORT} " not in h.cmd(f"ss -Hlun 'sport = :{UFTPD_PORT}'"):
            if time.monotonic() > deadline:
                raise RunFailed(f"uftpd on {h.name} did not bind port {UFTPD_PORT} within "
                                f"{BIND_TIMEOUT_S:g} s")
            time.sleep(0.05)


PUBLIC_GROUP = "230.4.4.1"  # uftpd's default public address, where uftp announces


def _wait_joined(emu: Any, receivers: list[Any]) -> None:
    """Until the controller lists every receiver in uftpd's public group (their IGMP reports
    reached it and its flows follow), at most BIND_TIMEOUT_S: a receiver still unknown there
    when uftp announces misses the session (a fresh-clone run, 2026-12-06, had 1 of 3
    receivers complete on a lossless network with every uftpd bound)."""
    names = [h.name for h in receivers]
    if getattr(emu, "controller", None) is not None and not wait_listed(
            emu.controller.api, PUBLIC_GROUP, names, BIND_TIMEOUT_S):
        raise RunFailed(f"the controller did not list {sorted(names)} in {PUBLIC_GROUP} "
                        f"within {BIND_TIMEOUT_S:g} s")


def transfer(emu: Any, size: int, mbit: float, *, hosts: int | None = None,
             timeout: float = 300.0) -> dict[str, Any]:
    """Send `size` random bytes from the first host to the next hosts-1 with uftp; returns
    {"seconds", "frames", "receivers", "complete" (receivers holding the exact file),
    "all_correct" (no receiver holds a wrong one)}; RunFailed if uftp fails."""
    names = [h.name for h in emu.hosts][: hosts or None]
    sender, receivers = emu.host(names[0]), [emu.host(n) for n in names[1:]]
    work = Path(emu.run_dir) / f"uftp-{time.monotonic_ns()}"
    work.mkdir()
    src = work / "message.bin"
    src.write_bytes(os.urandom(size))
    daemons = []
    try:
        for h in receivers:
            (work / h.name).mkdir()
            daemons.append(h.popen(
                ["uftpd", "-d", "-I", h.defaultIntf().name, "-U", uid(h.IP()),
                 "-D", str(work / h.name), "-B", "4194304", "-L", str(work / f"{h.name}.log")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_bound(receivers)
        _wait_joined(emu, receivers)
        before = switch_frames(emu)
        proc = sender.popen(
            ["uftp", "-I", sender.defaultIntf().name, "-R", str(int(mbit * 1000)),
             "-b", str(BLOCK), "-B", "4194304", "-t", "1", "-s", "50",
             "-r", "0.005:0.001:1.0", "-H", ",".join(uid(h.IP()) for h in receivers),
             "-S", str(work / "status"), str(src)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise RunFailed(f"uftp did not finish {size} B within {timeout:g} s") from None
        after = switch_frames(emu)
    finally:
        stop_processes(daemons)
    m = ELAPSED.search(out)
    if proc.returncode != 0 or m is None:
        raise RunFailed(f"uftp exited with {proc.returncode}: {out.strip()[-300:]}")
    want = src.read_bytes()
    copies = [p.read_bytes() for h in receivers if (p := work / h.name / src.name).exists()]
    # what a receiver without the file logged, for whoever reads the record
    logs = {h.name: (work / f"{h.name}.log").read_text(errors="replace")[-600:]
            for h in receivers if not (work / h.name / src.name).exists()
            and (work / f"{h.name}.log").exists()}
    shutil.rmtree(work, ignore_errors=True)
    return {"missing_logs": logs, "uftp_tail": out.strip()[-600:] if logs else "",
            "seconds": float(m.group(1)), "receivers": len(receivers),
            "complete": sum(c == want for c in copies),
            "all_correct": all(c == want for c in copies),
            "frames": {k: after[k] - before[k] for k in after}}
