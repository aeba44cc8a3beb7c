"""scripts/wrapper.sh, the `sudo mcastlab` wrapper that install.sh puts in /usr/local/sbin,
installed here to a test-only target and run for real: it runs a checkout only root can
change, and refuses with one line and exit code 2 one that another user can (a file, a
package folder, the checkout, a folder above it, the venv's site-packages, its interpreter
link or the interpreter writable by or belonging to someone else, or the checkout now
reached through a link); install then installs no wrapper for such a checkout and removes
one that ran it. A sticky folder above (/tmp) and results/ or .git of another user's pass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "wrapper.sh"
PYTHON = os.path.realpath(sys.executable)  # Debian's, which the venv links to
NOBODY = 65534


def install(checkout: Path, target: Path) -> str:
    done = subprocess.run(["sh", str(SCRIPT), "install", str(checkout), str(target)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def run(wrapper: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(wrapper), "doctor", "--json"], capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout's layout at tmp_path/above/co, every part root's and 0755 or 0644; its
    `mcastlab` says what it was asked to run."""
    co = tmp_path / "above" / "co"
    for folder in ("testbed", ".venv/bin", ".venv/lib/python3/site-packages", "results",
                   ".git"):
        (co / folder).mkdir(parents=True)
    (co / "testbed" / "__init__.py").write_text("")
    (co / ".venv" / "bin" / "python3").symlink_to(PYTHON)
    (co / ".venv" / "bin" / "mcastlab").write_text('#!/bin/sh\necho "ran $*"\n')
    for path in [tmp_path / "above", *(tmp_path / "above").rglob("*")]:
        if not path.is_symlink():
            os.chmod(path, 0o755 if path.is_dir() or path.name == "mcastlab" else 0o644)
    return co


def test_the_wrapper_runs_a_checkout_only_root_can_change(checkout: Path,
                                                          tmp_path: Path) -> None:
    target = tmp_path / "sbin" / "mcastlab"
    assert install(checkout, target) == \
        f"install: {target} (sudo mcastlab ...) runs this checkout ({checkout})\n"
    assert f"# mcastlab: installed by {checkout}/scripts/install.sh" in target.read_text()
    done = run(target)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ran doctor --json\n", "")
    assert install(checkout, target) == ""  # the same wrapper: left as it is


def test_another_checkouts_wrapper_is_replaced_and_another_program_left(
        checkout: Path, tmp_path: Path) -> None:
    target = tmp_path / "mcastlab"
    target.write_text("#!/bin/sh\n# mcastlab: installed by /opt/old/scripts/install.sh "
                      "(make install)\nexec /opt/old/.venv/bin/mcastlab \"$@\"\n")
    assert install(checkout, target) == \
        f"install: {target} now runs this checkout ({checkout}), not /opt/old\n"
    assert run(target).stdout == "ran doctor --json\n"
    target.write_text("#!/bin/sh\necho another program\n")
    assert "is not mcastlab's wrapper: left alone" in install(checkout, target)
    assert target.read_text() == "#!/bin/sh\necho another program\n"


def moved_behind_a_link(co: Path) -> None:
    co.rename(co.with_name("elsewhere"))
    co.symlink_to(co.with_name("elsewhere"))


def writable_interpreter(co: Path) -> None:
    copy = co.parent / "python3"
    shutil.copy(PYTHON, copy)
    os.chmod(copy, 0o777)
    (co / ".venv" / "bin" / "python3").unlink()
    (co / ".venv" / "bin" / "python3").symlink_to(copy)


UNSAFE: list[tuple[str, Callable[[Path], None], str]] = [
    ("a file writable by others", lambda co: os.chmod(co / "testbed" / "__init__.py", 0o666),
     "{co}/testbed/__init__.py is writable by its group or by others (mode 666)"),
    ("a package folder of nobody's", lambda co: os.chown(co / "testbed", NOBODY, NOBODY),
     "{co}/testbed belongs to"),
    ("the checkout writable by its group", lambda co: os.chmod(co, 0o775),
     "{co} is writable by its group or by others (mode 775)"),
    ("a folder above it of nobody's", lambda co: os.chown(co.parent, NOBODY, NOBODY),
     "{co.parent} belongs to"),
    ("the venv's site-packages writable by all",
     lambda co: os.chmod(co / ".venv" / "lib" / "python3" / "site-packages", 0o777),
     "{co}/.venv/lib/python3/site-packages is writable by its group or by others (mode 777)"),
    ("a link of nobody's in the venv",
     lambda co: os.lchown(co / ".venv" / "bin" / "python3", NOBODY, NOBODY),
     "{co}/.venv/bin/python3 belongs to"),
    ("an interpreter writable by all", writable_interpreter,
     "{co.parent}/python3 is writable by its group or by others (mode 777)"),
    ("the checkout moved behind a link", moved_behind_a_link,
     "{co} is gone or is reached through a symbolic link now"),
]


@pytest.mark.parametrize(("door", "make_unsafe", "why"), UNSAFE, ids=[u[0] for u in UNSAFE])
def test_a_checkout_another_user_can_change_is_refused(
        checkout: Path, tmp_path: Path, door: str, make_unsafe: Callable[[Path], None],
        why: str) -> None:
    target = tmp_path / "sbin" / "mcastlab"
    install(checkout, target)
    make_unsafe(checkout)
    done = run(target)
    assert done.returncode == 2 and done.stdout == "", door  # nothing of the checkout ran
    [line] = done.stderr.splitlines()
    assert line.startswith(f"mcastlab: refusing to run {checkout}: {why.format(co=checkout)}")
    assert "clone as root into a root-owned folder" in line
    # install neither installs a wrapper for it nor keeps the one that ran it
    said = install(checkout, target)
    assert not target.exists() and f"{target} (sudo mcastlab) not installed" in said
    assert f"removed {target}, which ran this checkout" in said
    other = tmp_path / "other" / "mcastlab"
    assert "not installed" in install(checkout, other) and not other.exists()


def test_a_sticky_folder_above_and_other_users_results_and_git_pass(
        checkout: Path, tmp_path: Path) -> None:
    os.chmod(checkout.parent, 0o1777)  # as /tmp: nobody can replace root's co in it
    for folder in ("results", ".git"):
        os.chown(checkout / folder, NOBODY, NOBODY)
        os.chmod(checkout / folder, 0o777)
    target = tmp_path / "mcastlab"
    install(checkout, target)
    assert run(target).stdout == "ran doctor --json\n"
    os.chmod(checkout.parent, 0o777)  # no sticky bit: refused
    assert "mode 777" in run(target).stderr


def test_a_checkout_path_the_wrapper_cannot_quote_is_not_installed(tmp_path: Path) -> None:
    odd = tmp_path / 'co "$(reboot)"'
    odd.mkdir()
    target = tmp_path / "mcastlab"
    assert "has characters other than letters, digits and /._+-" in install(odd, target)
    assert not target.exists()
