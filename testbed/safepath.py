"""Paths root writes through, made and checked in the same step: the one place that opens an
output folder or file for every command (--out, --resume, --publish, reports, `capture`,
`topo --save`, lab keys and gradebooks), and the files whose commands root runs (the
ssh_config a run hands to ssh, the prompt's --script).

A folder is reached one level at a time from `/`, each level opened relative to the one
before with O_NOFOLLOW (a missing level made there, mkdir relative to its parent) and then
checked as opened (fstat), so nothing can be swapped in between a check and the use. Run as
root, every level must belong to root, to this user or to the user who ran sudo (SUDO_UID),
and nobody else may write it (group write only by a group private to such a user) unless it
is sticky (like /tmp: others may add names there but not move ours); a link is followed only
where such a user made it. A file is written beside its name and renamed over it, only where
what is there is a regular file of such a user, never in a pseudo file system (/proc, /sys,
/dev). Anything else is one UsageError naming the option. Run as another user, the same
steps run without the ownership checks: that user's writes can only hurt that user."""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import pwd
import stat
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import DiskFull, UsageError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_LINKS = 40  # as the kernel's path walk
PSEUDO_FS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
    "securityfs", "configfs", "bpf", "efivarfs", "pstore", "fusectl", "mqueue", "hugetlbfs",
    "binfmt_misc", "autofs", "rpc_pipefs", "nsfs", "selinuxfs"})
FULL = (errno.ENOSPC, errno.EDQUOT)


def sudo_uid() -> int | None:
    """The user who ran sudo (SUDO_UID), None where no one did or it was root itself: the
    one rule of who that is, for the owners root writes for (trusted_owners) and the user
    root hands a process to (testbed.live.view.server_user)."""
    sudo = os.environ.get("SUDO_UID", "")
    return int(sudo) if sudo.isdigit() and int(sudo) != 0 else None


def trusted_owners() -> set[int]:
    """The users whose folders, files and links root may write through: root, this user
    and the user who ran sudo (sudo_uid). Code root runs (git in the checkout, the
    wrapper's check) trusts root and this user only: testbed.results.git_refused."""
    owners = {0, os.geteuid()}
    if (sudo := sudo_uid()) is not None:
        owners.add(sudo)
    return owners


def _as_root() -> bool:
    return os.geteuid() == 0


def _private_group(gid: int) -> bool:
    """Nobody but trusted users is in group `gid`: root's, or the own group of a trusted
    user (their primary group, with no other member listed: a user private group, which a
    umask of 002 makes writable on every folder of theirs)."""
    if gid == 0:
        return True
    try:
        if grp.getgrgid(gid).gr_mem:
            return False
    except KeyError:
        return False
    for uid in trusted_owners():
        with contextlib.suppress(KeyError):
            if pwd.getpwuid(uid).pw_gid == gid:
                return True
    return False


def _others_write(st: os.stat_result, *, sticky_ok: bool = True) -> bool:
    """Someone beside the owner may write it: world write, or group write of a group not
    private to trusted users; in a folder, not where the sticky bit keeps others from moving
    names that are not theirs (`sticky_ok`)."""
    if sticky_ok and st.st_mode & stat.S_ISVTX and stat.S_ISDIR(st.st_mode):
        return False
    return bool(st.st_mode & stat.S_IWOTH or
                (st.st_mode & stat.S_IWGRP and not _private_group(st.st_gid)))


def _check_owner(option: str, where: str, st: os.stat_result, *, mode: bool = True) -> None:
    if not _as_root():
        return
    if st.st_uid not in trusted_owners():
        raise UsageError(f"{option}: {where} belongs to another user (uid {st.st_uid}); "
                         "root does not write through it: choose another path")
    if mode and _others_write(st):
        raise UsageError(f"{option}: {where} may be written by others "
                         f"(mode {stat.S_IMODE(st.st_mode):o}); root does not write through "
                         "it: choose another path")


def _join(where: str, name: str) -> str:
    return os.path.join(where, name)


def _open_folder(option: str, path: str | os.PathLike[str], make: bool, mode: int,
                 partial: bool = False) -> int:
    """A descriptor of the folder `path`, walked as the module says; the caller closes it.
    `partial`: the deepest level that exists, where a level is missing (nothing made)."""
    parts = deque(p for p in os.path.abspath(path).split("/") if p)
    fd = os.open("/", DIR_FLAGS)
    where, links = "/", 0
    try:
        _check_owner(option, where, os.fstat(fd))
        while parts:
            name = parts.popleft()
            if name == ".":
                continue
            if name == "..":  # from a link's target: the parent of the folder reached
                up = os.open("..", DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd, where = up, os.path.dirname(where)
                continue
            try:
                st: os.stat_result | None = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                if partial:
                    return fd
                if not make:
                    raise UsageError(f"{option}: {_join(where, name)} does not exist") from None
                with contextlib.suppress(FileExistsError):  # made meanwhile: checked below
                    os.mkdir(name, mode, dir_fd=fd)
                st = None
            if st is not None and stat.S_ISLNK(st.st_mode):
                _check_owner(option, f"the link {_join(where, name)}", st, mode=False)
                links += 1
                if links > MAX_LINKS:
                    raise UsageError(f"{option}: {path}: too many links on the way")
                target = os.readlink(name, dir_fd=fd)
                if target.startswith("/"):
                    os.close(fd)
                    fd, where = os.open("/", DIR_FLAGS), "/"
                parts.extendleft(reversed([p for p in target.split("/") if p]))
                continue
            try:
                sub = os.open(name, DIR_FLAGS, dir_fd=fd)
            except NotADirectoryError:
                if make or partial:
                    raise UsageError(f"{option}: cannot make the folder {path}: "
                                     f"{_join(where, name)} is a file") from None
                raise UsageError(f"{option}: {_join(where, name)} is not a folder") from None
            except OSError as exc:  # ELOOP: a link put there after the look above
                raise UsageError(f"{option}: cannot open the folder {_join(where, name)}: "
                                 f"{exc.strerror}") from None
            os.close(fd)
            fd, where = sub, _join(where, name)
            _check_owner(option, where, os.fstat(fd))
        return fd
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def opened_folder(option: str, path: str | os.PathLike[str], *, make: bool = False,
                  mode: int = 0o755, partial: bool = False) -> Iterator[int]:
    """The folder `path` open (a descriptor), made level by level where `make` (its deepest
    existing level where `partial`)."""
    try:
        fd = _open_folder(option, path, make, mode, partial)
    except PermissionError as exc:
        raise UsageError(f"{option}: cannot make or open {path}: {exc.strerror}") from None
    except OSError as exc:
        if exc.errno in FULL:
            raise DiskFull(f"{option}: no space left to make {path}") from None
        raise UsageError(f"{option}: cannot make or open {path}: {exc.strerror}") from None
    try:
        yield fd
    finally:
        os.close(fd)


def make_folder(option: str, path: str | os.PathLike[str], mode: int = 0o755) -> Path:
    """The folder `path` (absolute), made with any missing parents, every level checked."""
    with opened_folder(option, path, make=True, mode=mode):
        return Path(os.path.abspath(path))


def planned_folder(option: str, path: str | os.PathLike[str]) -> Path:
    """A folder to make later (new_folder makes it, checking again), checked now as far as
    it exists: every level of that part, and that this user may write in the deepest."""
    with opened_folder(option, path, partial=True) as fd:
        if not os.access(".", os.W_OK | os.X_OK, dir_fd=fd):
            raise UsageError(f"{option}: cannot write in {path} or the folder it would be "
                             "made in (permission denied)")
    return Path(os.path.abspath(path))


def folder(option: str, path: str | os.PathLike[str]) -> Path:
    """The existing folder `path` (absolute), every level checked; nothing is made."""
    with opened_folder(option, path):
        return Path(os.path.abspath(path))


def new_folder(option: str, root: str | os.PathLike[str], name: str,
               mode: int = 0o755) -> Path:
    """A folder `name` (or name-2, name-3, ...) that did not exist, made in `root` (made as
    make_folder makes it); its absolute path, as the links on the way resolve."""
    with opened_folder(option, root, make=True) as fd:
        given, n = name, 1
        while True:
            try:
                os.mkdir(name, mode, dir_fd=fd)
                break
            except FileExistsError:
                n += 1
                name = f"{given}-{n}"
            except OSError as exc:
                raise UsageError(f"{option}: cannot make {name} in {root}: "
                                 f"{exc.strerror}") from None
        sub = os.open(name, DIR_FLAGS, dir_fd=fd)
        try:
            _check_owner(option, _join(str(root), name), os.fstat(sub))
        finally:
            os.close(sub)
    return Path(root).resolve() / name


def _pseudo_fs(dev: int) -> str | None:
    """The type of the file system on device `dev` where it is a kernel's view (proc, sysfs,
    devtmpfs, ...), not a place for files; None otherwise."""
    want = f"{os.major(dev)}:{os.minor(dev)}"
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[2] == want and " - " in line:
                fstype = line.split(" - ", 1)[1].split()[0]
                return fstype if fstype in PSEUDO_FS else None
    return None


def _check_target(option: str, path: Path, fd: int) -> os.stat_result | None:
    """What `path`'s name holds in its folder `fd`, if anything: refused unless a regular
    file of a trusted user; the folder itself refused on a pseudo file system."""
    try:
        st: os.stat_result | None = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    kind = _pseudo_fs(os.fstat(fd).st_dev)
    if kind and (st is None or stat.S_ISREG(st.st_mode)):
        raise UsageError(f"{option}: {path} is on a {kind} file system, not a place for "
                         "files: give a regular file")
    if st is None:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{option}: {path} is a folder; give a file name")
    if not stat.S_ISREG(st.st_mode):
        what = "a link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise UsageError(f"{option}: {path} is {what}; give a regular file (it is never "
                         "written through or replaced)")
    _check_owner(option, str(path), st, mode=False)
    return st


def output_file(option: str, text: str | os.PathLike[str]) -> Path:
    """A file to (over)write later, checked now: its folder exists (a missing one is refused,
    not made: like a shell redirection, and a typo should not scatter folders) and is
    checked; what the name holds is a regular file or nothing."""
    path = Path(text)
    if not path.name or path.name in (".", ".."):
        raise UsageError(f"{option}: {path} is a folder; give a file name")
    with opened_folder(option, path.parent) as fd:
        _check_target(option, path, fd)
        if not os.access(".", os.W_OK | os.X_OK, dir_fd=fd):
            raise UsageError(f"{option}: cannot write in {path.parent} (permission denied)")
    return path


def write_file(option: str, path: str | os.PathLike[str], data: str | bytes,
               mode: int = 0o644) -> Path:
    """`data` in `path`, atomically, with `mode` (0600 for a key): a temporary file made
    beside it (O_EXCL, O_NOFOLLOW), written, fsynced, renamed over the name relative to the
    opened folder, the folder fsynced. Only a regular file is ever replaced."""
    path = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    with opened_folder(option, path.parent) as fd:
        _check_target(option, path, fd)
        tmp = f".{path.name}.{os.getpid()}.tmp"
        try:
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                          os.O_CLOEXEC, mode, dir_fd=fd)
            try:
                os.fchmod(out, mode)  # the umask may have taken bits off (never added)
                done = 0
                while done < len(raw):
                    done += os.write(out, raw[done:])
                os.fsync(out)
            finally:
                os.close(out)
            os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            if exc.errno in FULL:
                raise DiskFull(f"no space left on the device of {path} "
                               f"({os.strerror(exc.errno)})") from None
            raise UsageError(f"{option}: cannot write {path}: {exc.strerror}") from None
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            raise
    return path


def open_output(option: str, path: str | os.PathLike[str]) -> BinaryIO:
    """`path` open for writing from its start (a stream another process writes into, as
    tcpdump's capture): made 0644 if missing, else truncated only once it is seen to be a
    regular file of a trusted user with no other name (a hard link)."""
    path = Path(path)
    with opened_folder(option, path.parent) as fd:
        before = _check_target(option, path, fd)
        if before is not None and before.st_nlink > 1:
            raise UsageError(f"{option}: {path} has other names (hard links); give a new file")
        try:
            out = os.open(path.name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK |
                          os.O_CLOEXEC, 0o644, dir_fd=fd)
        except OSError as exc:
            raise UsageError(f"{option}: cannot write {path}: {exc.strerror}") from None
    st = os.fstat(out)
    if not stat.S_ISREG(st.st_mode) or (before is not None and
                                         (st.st_ino, st.st_dev) != (before.st_ino,
                                                                    before.st_dev)):
        os.close(out)
        raise UsageError(f"{option}: {path} changed while it was opened; give a regular file")
    if _as_root() and st.st_uid not in trusted_owners():  # made meanwhile by another user
        os.close(out)
        raise UsageError(f"{option}: {path} belongs to another user (uid {st.st_uid})")
    os.set_blocking(out, True)
    os.ftruncate(out, 0)
    return os.fdopen(out, "wb")


def tree_of_ours(option: str, path: str | os.PathLike[str]) -> Path:
    """An existing folder whose files are read and written again (--resume, a report
    rendered again): as root, the folder and everything in it belong to a trusted user and
    nothing in it may be written by others (a file another user wrote, or a link of theirs
    in place of summary.txt, would take root's reads or writes where they chose)."""
    if not os.path.isdir(path):  # the message; the walk below is what holds
        raise UsageError(f"{option}: {path} is not a folder")
    with opened_folder(option, path) as fd:
        if _as_root():
            for top, dirs, files, dfd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
                for name in dirs + files:
                    st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                    where = os.path.normpath(os.path.join(str(path), top, name))
                    _check_owner(option, where, st, mode=False)
                    if not stat.S_ISLNK(st.st_mode) and _others_write(st, sticky_ok=False):
                        raise UsageError(f"{option}: {where} may be written by others "
                                         f"(mode {stat.S_IMODE(st.st_mode):o}); root does "
                                         "not read or write it")
    return Path(os.path.abspath(path))


def trusted_config(option: str, path: str | os.PathLike[str], *,
                   root_only: bool = True) -> Path:
    """A file whose contents root acts on (an ssh_config: its ProxyCommand and LocalCommand
    run as root; the prompt's --script: its commands run in the hosts as root): run as
    root, a regular file root owns (`root_only`; else root, this user or SUDO_UID) that
    nobody else may write, in folders checked as for a write. Its absolute path, resolved."""
    path = Path(path)
    with opened_folder(option, path.parent) as fd:
        try:
            st = os.stat(path.name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            raise UsageError(f"{option}: no such file {path}") from None
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{option}: {path} is not a regular file (a link?); give the "
                             "file itself")
        owners = {0} if root_only else trusted_owners()
        if _as_root() and (st.st_uid not in owners or _others_write(st)):
            who = "root" if root_only else "root or you"
            raise UsageError(f"{option}: {path} must belong to {who} and be writable by its "
                             f"owner alone (it is uid {st.st_uid}, mode "
                             f"{stat.S_IMODE(st.st_mode):o}): its commands would run as root")
    return path.resolve()
