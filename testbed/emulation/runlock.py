"""One emulated network at a time on a machine: switch and interface names (s1, s1-eth2)
live in the root namespace, so a second run would take over the first one's bridges. A run
holds an exclusive flock on STATE_DIR/network.lock while its network exists; another run
waits for it (saying whose it is) instead of breaking it. The kernel drops the lock when
its holder dies, so a killed run never blocks the next one."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable

from . import run_records

LOCK = "network.lock"


class RunLock:
    def __init__(self) -> None:
        self.fd: int | None = None

    def acquire(self, progress: Callable[[str], None], poll_s: float = 0.5) -> None:
        fd = os.open(run_records.state_dir() / LOCK,
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told:
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    progress(f"waiting for another mcastlab run (pid {holder}) to tear its "
                             "network down; Ctrl-C gives up")
                    told = True
                time.sleep(poll_s)
            except BaseException:
                os.close(fd)
                raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None
