"""Where the controller's Unix sockets live: a directory only their owner reaches.

A socket's own file mode is not enough on its own (a directory another user may write lets
them swap the socket for theirs), so the directory is checked: owned by this user or root,
no link, nobody else may write it (or, made here, 0700)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def default_socket() -> Path:
    """The JSON endpoint of a controller started by hand (`mcastlab controller`): root's in
    /run, another user's in their runtime directory (or a folder of theirs in /tmp)."""
    if os.geteuid() == 0:
        return Path("/run/mcastlab-controller/api.sock")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path(tempfile.gettempdir())
    return base / f"mcastlab-controller-{os.geteuid()}" / "api.sock"


def private_dir(path: str | Path) -> Path:
    """`path` made (0700) if missing; ValueError if it is a link, not a directory, another
    user's, or writable by others."""
    path = Path(path)
    try:
        path.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ValueError(f"cannot make {path}: {exc.strerror}") from None
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{path} is not a directory (a link?); the controller's sockets go "
                         "in a directory of their own")
    if st.st_uid not in (0, os.geteuid()):
        raise ValueError(f"{path} belongs to another user (uid {st.st_uid}); the controller's "
                         "sockets go in a directory of yours")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ValueError(f"{path} may be written by others (mode {stat.S_IMODE(st.st_mode):o});"
                         " the controller's sockets go in a directory only you write")
    return path
