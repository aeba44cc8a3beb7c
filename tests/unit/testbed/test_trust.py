"""testbed.trust: a path another user owns, or one writable by group or others, is named (a
sticky folder above it passes); a worktree's git folders are its own and the common one; and
results.checkout (and the servers' facts) run no git in a checkout another user can change,
nor a core.fsmonitor hook its config names."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from testbed import results, trust
from testbed.cluster import facts

NOBODY = 65534
ROOT_ONLY = {0}


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True)


def repository(path: Path) -> Path:
    path.mkdir(mode=0o755)
    git(path, "init", "-q")
    (path / "a.py").write_text("x = 1\n")
    git(path, "add", "a.py")
    git(path, "commit", "-q", "-m", "one")
    return path


def fsmonitor_hook(repo: Path) -> Path:
    """A core.fsmonitor hook in `repo`'s config; the file it makes when run."""
    mark, hook = repo.parent / "ran", repo.parent / "hook"
    hook.write_text(f"#!/bin/sh\ntouch {mark}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    return mark


def test_the_first_part_another_user_can_change_is_named(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True, mode=0o755)
    os.chmod(tmp_path / "a", 0o755)
    assert trust.changeable(deep, ROOT_ONLY) is None
    os.chmod(tmp_path / "a", 0o1777)  # sticky, as /tmp: passes above, not as the path
    assert trust.changeable(deep, ROOT_ONLY) is None
    assert trust.changeable(tmp_path / "a", ROOT_ONLY) == \
        f"{tmp_path}/a is writable by its group or by others (mode 1777)"
    os.chmod(tmp_path / "a", 0o775)
    assert "a is writable by its group or by others (mode 775)" in \
        str(trust.changeable(deep, ROOT_ONLY))
    os.chmod(tmp_path / "a", 0o755)
    os.chown(deep, NOBODY, NOBODY)
    assert trust.changeable(deep, ROOT_ONLY) == \
        f"{deep} belongs to another user (uid {NOBODY})"
    assert trust.changeable(deep, {0, NOBODY}) is None
    assert "cannot be read" in str(trust.changeable(tmp_path / "gone", ROOT_ONLY))


def test_a_worktrees_git_folders_are_its_own_and_the_common_one(tmp_path: Path) -> None:
    main = repository(tmp_path / "main")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    got = trust.git_folders(tmp_path / "wt")
    assert got[:2] == [tmp_path / "wt", tmp_path / "wt" / ".git"]
    assert main / ".git" / "worktrees" / "wt" in got
    assert main / ".git" in got and main / ".git" / "config" in got
    assert trust.git_folders(main) == [main, main / ".git", main / ".git" / "config"]


def test_no_git_runs_in_a_checkout_another_user_can_change(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    assert results.checkout(repo)["commit"] is not None
    for part, change in ((repo, lambda p: os.chown(p, NOBODY, NOBODY)),
                         (repo / ".git" / "config", lambda p: os.chmod(p, 0o666))):
        change(part)
        got = results.checkout(repo)
        assert got["commit"] is None and got["dirty"] is None
        assert got["checkout"].startswith(f"{repo}: git not run there ({part} ")
        os.chown(part, 0, 0)
        os.chmod(part, 0o755 if part.is_dir() else 0o644)
    assert results.checkout(repo)["commit"] is not None


def test_a_core_fsmonitor_hook_is_not_run(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    mark = fsmonitor_hook(repo)
    git(repo, "status", "--porcelain")
    assert mark.exists()  # git itself runs it: the test can tell
    mark.unlink()
    got = results.checkout(repo)
    assert got["commit"] is not None and got["dirty"] is False
    assert not mark.exists()


def test_the_servers_facts_run_no_git_there_either(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcastlab doctor --servers` runs testbed.cluster.facts as root on every server."""
    repo = repository(tmp_path / "repo")
    mark = fsmonitor_hook(repo)
    monkeypatch.setattr(facts, "ROOT", repo)
    assert len(facts.checkout()) == 40 and not mark.exists()
    os.chown(repo, NOBODY, NOBODY)
    assert facts.checkout() == \
        f"unknown: git not run ({repo} belongs to another user (uid {NOBODY}))"


def test_a_git_folder_behind_a_link_is_checked_where_it_leads(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    elsewhere = tmp_path / "theirs"
    elsewhere.mkdir(mode=0o755)
    (repo / ".git").rename(elsewhere / "git")
    (repo / ".git").symlink_to(elsewhere / "git")
    assert results.checkout(repo)["commit"] is not None
    os.chown(elsewhere, NOBODY, NOBODY)
    assert results.checkout(repo)["checkout"] == \
        f"{repo}: git not run there ({elsewhere} belongs to another user (uid {NOBODY})): " \
        "the commit is unknown"
