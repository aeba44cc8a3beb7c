"""Results folders: every result carries its full configuration and the versions it ran with."""

from __future__ import annotations

import contextlib
import html
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from . import trust
from .errors import DiskFull
from .safepath import FULL, new_folder, write_file

DEFAULT_ROOT = Path("results")
PROJECT_ROOT = Path(__file__).resolve().parents[1]  # the checkout this code runs from


def new_results_dir(name: str, root: Path | None = None) -> Path:
    """A new folder <root>/<date>-<time>-<name>, absolute: MPI ranks and host programs that
    write into it run in other working directories. It and any missing level of `root` are
    made and checked as they are opened (safepath.new_folder)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    return new_folder("--out", root or DEFAULT_ROOT, f"{stamp}-{safe}")


def _cmd_version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lines = out.strip().splitlines()
    # mpiexec (hydra) prints a heading first and its version on a "Version:" line
    named = [ln.split(":", 1)[1].strip() for ln in lines
             if ln.strip().lower().startswith("version:")]
    return (f"hydra {named[0]}" if named and "hydra" in lines[0].lower() else
            named[0] if named else lines[0] if lines else "unknown")


def _pkg(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def git_refused(root: Path) -> str | None:
    """Why git must not run in checkout `root`: a user other than root and this one can
    change its folder, its git folders or config, or a folder above them (git runs what a
    repository's config names); None when it may. Not the user who ran sudo, whom root
    writes for (safepath.trusted_owners): this is code root would run, as the wrapper's
    check (scripts/wrapper.sh) trusts root alone."""
    owners = {0, os.geteuid()}
    return next(filter(None, (trust.changeable(p, owners) for p in trust.git_folders(root))),
                None)


def git_output(root: Path, *args: str) -> str | None:
    """`git args` in `root`, its output; None where git is missing or refuses. Call it only
    where git_refused(root) is None. The testbed runs as root, and git as root in a folder
    root does not own refuses ("dubious ownership"): safe.directory is lifted for this one
    call; core.fsmonitor (a command git would run) is off all the same, and status takes no
    optional lock (root writes no index there)."""
    try:
        out = subprocess.run(["git", "-c", f"safe.directory={root}",
                              "-c", "core.fsmonitor=false", "--no-optional-locks",
                              "-C", str(root), *args],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def checkout(root: Path | None = None) -> dict[str, Any]:
    """The git commit the code runs from (full hash) and `dirty` (git status --porcelain
    shows changes, untracked files too); both None, and `checkout` says why, where `root`
    (the project's root by default) is not a git checkout, or is one that a user other
    than this one and root can change (its folder, its git folders or config, or a folder
    above them): git runs what a repository's config names, so it is not run there."""
    root = (root or PROJECT_ROOT).resolve()
    why = git_refused(root)
    if why:
        return {"commit": None, "dirty": None,
                "checkout": f"{root}: git not run there ({why}): the commit is unknown"}
    head = git_output(root, "rev-parse", "--verify", "HEAD")
    status = git_output(root, "status", "--porcelain") if head else None
    if not head or status is None:
        return {"commit": None, "dirty": None,
                "checkout": f"{root}: not a git checkout (or git could not read it)"}
    return {"commit": head.strip(), "dirty": bool(status.strip()), "checkout": str(root)}


def versions() -> dict[str, Any]:
    """Versions of everything a measurement depends on, the machine it ran on, and the
    commit of the code (`commit`, `dirty`, `checkout`: see checkout())."""
    mpiexec = Path(sys.executable).parent / "mpiexec"
    return {
        "mcastlab": _pkg("mcastlab"),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "machine": platform.node(),
        "cpus": str(os.cpu_count()),
        "cpu_model": next((ln.split(":", 1)[1].strip() for ln in
                           Path("/proc/cpuinfo").read_text().splitlines()
                           if ln.startswith("model name")), "unknown"),
        "mininet": _pkg("mininet"),
        "openvswitch": _cmd_version(["ovs-vswitchd", "--version"]),
        "os-ken": _pkg("os-ken"),
        "mpi4py": _pkg("mpi4py"),
        "mpich": _cmd_version([str(mpiexec), "--version"]) if mpiexec.exists() else "missing",
        "mpich_wheel": _pkg("mpich"),
        **checkout(),
    }


def write_json(path: Path, obj: Any, option: str = "--out") -> None:
    """`obj` as JSON in `path`, by the one atomic writer (safepath.write_file: a kill or a
    full disk at any moment leaves the old file or the new one, never a torn one; never
    through or over a link; as root, only in folders and over files of trusted users).
    `option` names what chose the path in an error (a full disk is DiskFull)."""
    write_file(option, path, json.dumps(obj, indent=1, sort_keys=True, default=str) + "\n")


@contextlib.contextmanager
def room(path: Path) -> Iterator[None]:
    """Writes to `path`: a full device or quota ends the run with DiskFull (one message,
    no traceback); any other OSError stays what it is."""
    try:
        yield
    except OSError as exc:
        if exc.errno in FULL:
            raise DiskFull(f"no space left on the device of {path} "
                           f"({os.strerror(exc.errno)})") from None
        raise


def append_line(path: Path, line: str) -> None:
    """One line appended to `path` and fsynced before this returns (never through a link).
    A write that fails part-way (a full disk) is cut off again, so the file holds whole
    lines only and a line appended after room is made does not land on a torn one."""
    data = (line + "\n").encode()
    with room(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o644)
        try:
            size = os.fstat(fd).st_size
            done = 0
            try:
                while done < len(data):
                    done += os.write(fd, data[done:])
                os.fsync(fd)
            except BaseException as exc:
                if done == len(data) and not isinstance(exc, OSError):
                    # the whole line is in and Ctrl-C (or SIGTERM) came before its fsync
                    # returned: it is a measured point, kept and made durable, never taken
                    # back (a run interrupted there lost a point a reader had seen)
                    with contextlib.suppress(OSError):
                        os.fsync(fd)
                    raise
                with contextlib.suppress(OSError):  # a torn line, or one the disk refused
                    os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def duration_text(seconds: float) -> str:
    """A duration as a progress line shows it: 42 s, 3 min 05 s, 1 h 02 min."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def step_line(done: int, total: int, label: str, elapsed_s: float) -> str:
    """One line of progress where no bar can be drawn (a pipe, a log): points done of
    planned, the current point, the time so far and the time left at the pace so far."""
    left = ("" if not 0 < done < total else
            f", about {duration_text(elapsed_s / done * (total - done))} left")
    now = f"; now: {label}" if label and done < total else ""
    return f"[{done}/{total}] done{now} ({duration_text(elapsed_s)} elapsed{left})"


def size_text(n: int) -> str:
    """Bytes as people say them: 1 MiB, 64 KiB, 100 B."""
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def text_table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    return "\n".join(lines + [fmt.format(*r) for r in cells[1:]])


def html_page(title: str, sections: list[tuple[str, list[str], list[list[Any]]]],
              config: dict[str, Any]) -> str:
    """A self-contained HTML report: tables, then the configuration and versions."""
    def table(header: list[str], rows: list[list[Any]]) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                       for r in rows)
        return f"<table><tr>{head}</tr>{body}</table>"

    parts = [f"<h2>{html.escape(t)}</h2>{table(h, r)}" for t, h, r in sections]
    cfg = html.escape(json.dumps(config, indent=1, sort_keys=True, default=str))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
            "collapse}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
            "pre{background:#f4f4f4;padding:1em}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>{''.join(parts)}"
            f"<h2>Configuration and versions</h2><pre>{cfg}</pre></body></html>\n")
