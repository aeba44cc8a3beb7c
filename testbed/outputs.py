"""Where a command writes, checked before it measures anything: a path that cannot be written
is a UsageError naming the option, not a traceback after minutes of work.

Run as root, a command writes only where no other user could have laid a trap: every part
of the path that exists, as given and as its links resolve, belongs to root, to this user
or to the user who ran sudo (SUDO_UID). A folder or link of anybody else's on the way
(a /tmp/r made by another user, a link planted in place of a results folder) could send
root's writes anywhere; it is refused with one message."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UsageError


def trusted_owners() -> set[int]:
    """The users whose folders and links root may write through."""
    owners = {0, os.geteuid()}
    sudo = os.environ.get("SUDO_UID", "")
    if sudo.isdigit():
        owners.add(int(sudo))
    return owners


def _nobody_elses(option: str, path: Path) -> None:
    if os.geteuid() != 0:
        return  # a user's own writes can only hurt that user
    trusted = trusted_owners()
    given = Path(os.path.abspath(path))
    for chain in (given, given.resolve()):
        for part in (*reversed(chain.parents), chain):
            try:
                owner = os.lstat(part).st_uid
            except FileNotFoundError:
                break
            if owner not in trusted:
                raise UsageError(f"{option}: {part} belongs to another user (uid {owner}); "
                                 "root does not write through it: choose another path")


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
    _nobody_elses(option, path)
    return path


def output_dir(option: str, text: str) -> Path:
    """A folder to write into, made with its parents if missing: the nearest part of the path
    that exists must be a folder this user may write in."""
    path = Path(text)
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"{option}: cannot make the folder {path}: {existing} is a file")
    _writable(option, existing)
    _nobody_elses(option, path)
    return path


def output_tree(option: str, folder: Path) -> Path:
    """An existing folder whose files are written again (a results folder re-rendered): the
    folder as output_dir checks it, and, run as root, nothing inside that another user owns
    (a link of theirs in place of summary.txt would take root's write elsewhere)."""
    if not folder.is_dir():
        raise UsageError(f"{option}: {folder} is not a folder")
    output_dir(option, str(folder))
    if os.geteuid() == 0:
        trusted = trusted_owners()
        for part in folder.rglob("*"):
            if os.lstat(part).st_uid not in trusted:
                raise UsageError(f"{option}: {part} belongs to another user "
                                 f"(uid {os.lstat(part).st_uid}); root does not write there")
    return folder
