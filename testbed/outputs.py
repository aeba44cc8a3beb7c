"""Where a command writes, checked before it measures anything: a path that cannot be written
is a UsageError naming the option, not a traceback after minutes of work."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError


def _writable(option: str, folder: Path) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: cannot write in {folder} (permission denied)")


def output_file(option: str, text: str) -> Path:
    """A file to (over)write: its folder must already exist. A missing folder is refused, not
    made: like a shell redirection, and a typo in the path should not scatter folders."""
    path = Path(text)
    if path.is_dir():
        raise UsageError(f"{option}: {path} is a folder; give a file name")
    folder = path.parent
    if not folder.is_dir():
        why = "is not a folder" if folder.exists() else "does not exist"
        raise UsageError(f"{option}: cannot write {path}: the folder {folder} {why}")
    _writable(option, folder)
    return path


def output_dir(option: str, text: str) -> Path:
    """A folder to write into, made with its parents if missing: the nearest part of the path
    that exists must be a folder this user may write in."""
    path = Path(text)
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"{option}: cannot make the folder {path}: {existing} is a file")
    _writable(option, existing)
    return path
