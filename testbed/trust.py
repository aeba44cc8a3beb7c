"""Whether a folder or file can be changed by a user other than those root trusts, for code
that is about to let it steer root (testbed.results runs git in the checkout, and git runs
what the repository's config names: core.fsmonitor, filters). The wrapper `sudo mcastlab`
starts checks the whole checkout before any of its Python runs (scripts/wrapper.sh); this is
the same rule, in Python, for one path and the folders above it."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def changeable(path: Path, owners: set[int]) -> str | None:
    """How someone outside `owners` (uids) can change `path` or put another in its place: a
    part of it, from / down, that belongs to another user or is writable by its group or
    by others (a folder above with the sticky bit, such as /tmp, passes: nobody can replace
    another's entry in it); None when nobody can. Links are not followed (give a resolved
    path); a part that cannot be read is named."""
    path = Path(os.path.abspath(path))
    for part in (*reversed(path.parents), path):
        try:
            st = os.lstat(part)
        except OSError as exc:
            return f"{part} cannot be read ({exc.strerror})"
        if st.st_uid not in owners:
            return f"{part} belongs to another user (uid {st.st_uid})"
        sticky_above = part != path and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if st.st_mode & 0o022 and not stat.S_ISLNK(st.st_mode) and not sticky_above:
            return f"{part} is writable by its group or by others (mode {st.st_mode & 0o7777:o})"
    return None


def git_folders(root: Path) -> list[Path]:
    """What git reads its config from in checkout `root` (worktrees too): `root`, its git
    folder (`.git`, or the folder a `.git` file names), the common git folder of a worktree,
    and the config files in them; each that is a link, with what it leads to."""
    dot = root / ".git"
    gitdir = dot.resolve()
    if gitdir.is_file():
        line = gitdir.read_text(errors="replace").strip()
        gitdir = (root / line.removeprefix("gitdir:").strip()).resolve() \
            if line.startswith("gitdir:") else gitdir
    common = gitdir
    if (gitdir / "commondir").is_file():
        common = (gitdir / (gitdir / "commondir").read_text(errors="replace").strip()).resolve()
    found = [root, dot, gitdir, common, common / "config", gitdir / "config.worktree"]
    found += [p.resolve() for p in found if p.is_symlink()]
    return list(dict.fromkeys(p for p in found if p.exists() or p.is_symlink()))
