"""Multicast group leases: one (group, port) per communicator, unique among all communicators
and jobs running on this machine at once; and the birthday bound of a random choice.

Siebert2006 drew a random (address, port) and relied on the birthday bound; here every emulated
host shares one file system, so a lease is a file created with O_EXCL in a shared folder
(MCASTLAB_GROUP_DIR, default /run/mcastlab/groups) and removed when the communicator is
freed. A lease whose owner process is gone (a killed job) is taken over. A network spread
over n servers (testbed.cluster) has a folder per server: its MPI launcher tells the ranks
on the i-th server MCASTLAB_GROUP_SLICE=i/n, and they lease from the i-th of n equal parts
of the pool only."""

from __future__ import annotations

import contextlib
import ipaddress
import itertools
import os
import random
import socket
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

# Organisation-local scope (RFC 2365), away from the controller's 239.255.lo.hi range groups;
# none of these share an Ethernet MAC with 224.0.0.x (the 23-bit mapping).
POOL = ipaddress.IPv4Network("239.192.0.0/14")
PORTS = (5000, 32767)  # Siebert2006's port range
DEFAULT_DIR = "/run/mcastlab/groups"


class GroupError(RuntimeError):
    pass


@dataclass(frozen=True)
class Lease:
    group: str
    port: int
    path: Path

    def release(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def group_dir() -> Path:
    return Path(os.environ.get("MCASTLAB_GROUP_DIR", DEFAULT_DIR))


def pool() -> ipaddress.IPv4Network:
    """The groups this process leases from: POOL, or its part MCASTLAB_GROUP_SLICE names."""
    text = os.environ.get("MCASTLAB_GROUP_SLICE")
    if not text:
        return POOL
    try:
        i, n = (int(x) for x in text.split("/"))
        if not 0 <= i < n <= 1024:
            raise ValueError
    except ValueError:
        raise GroupError(f"MCASTLAB_GROUP_SLICE is i/n with 0 <= i < n <= 1024, got {text!r}")\
            from None
    return next(itertools.islice(POOL.subnets(prefixlen_diff=(n - 1).bit_length()), i, None))


def _owner_alive(path: Path) -> bool:
    try:
        pid = int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return True  # being written right now, or unreadable: leave it alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lease(folder: Path | None = None, rng: random.Random | None = None,
          attempts: int = 64) -> Lease:
    """A free (group, port), held until Lease.release()."""
    folder = folder or group_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GroupError(f"cannot create the multicast lease folder {folder}: {e}") from e
    rng = rng or random.SystemRandom()
    part = pool()
    for _ in range(attempts):
        group = str(part[rng.randrange(1, part.num_addresses - 1)])
        path = folder / group
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if not _owner_alive(path):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            continue
        except OSError as e:
            raise GroupError(f"cannot write a multicast lease in {folder}: {e}") from e
        port = rng.randint(*PORTS)
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()} {socket.gethostname()} {port}\n")
        return Lease(group, port, path)
    raise GroupError(f"no free multicast group after {attempts} tries in {folder}")


def leases(folder: Path | None = None) -> list[str]:
    """Groups currently leased (for cleanup and tests)."""
    folder = folder or group_dir()
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


# ---- Siebert2006, section 1.7.2: choosing the (address, port) pair at random ---------------
SIEBERT_ADDRESSES = 200_540_160  # 225.0.1.0-231.255.255.255 and 234.0.1.0-238.255.255.255
SIEBERT_PORTS = 27_769  # ports 5000 to 32768
SIEBERT_PAIRS = SIEBERT_ADDRESSES * SIEBERT_PORTS  # "about 5.5 * 10^12"


def collision_probability(n: int, m: int = SIEBERT_PAIRS) -> Fraction:
    """The probability that n communicators drawing one of m (address, port) pairs each,
    uniformly and independently, draw some pair twice: 1 - p(n, m) with the birthday
    formula p(n, m) = m! / (m^n (m - n)!) of Siebert2006 (section 1.7.2), exactly."""
    if n < 0 or m < 1:
        raise ValueError(f"need n >= 0 communicators and m >= 1 pairs, got n={n}, m={m}")
    if n > m:
        return Fraction(1)
    all_distinct = Fraction(1)
    for i in range(n):
        all_distinct *= Fraction(m - i, m)
    return 1 - all_distinct
