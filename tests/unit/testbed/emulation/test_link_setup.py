"""testbed.emulation.link_setup: the commands it runs in each host's shell (one string, as
Mininet's node.cmd takes it) quote the run's folder (issue 53): a state folder with a space
or a `;` (MCASTLAB_STATE_DIR names any) stays one word, and runs nothing. Checked with the
real sh: `set --` in place of the command puts the words sh split it into in "$@"."""

from __future__ import annotations

import subprocess
from pathlib import Path

from testbed.emulation.link_setup import name_files, tc_batch


def words(command: str, cwd: Path) -> list[str]:
    """The words sh splits `command` into (its first word, the program, left out)."""
    _program, rest = command.split(" ", 1)
    out = subprocess.run(["sh", "-c", f'set -- {rest}; printf "%s\\n" "$@"'], cwd=cwd,
                         capture_output=True, text=True, check=True, timeout=10)
    return out.stdout.splitlines()


def test_a_state_folder_with_a_space_or_a_semicolon_stays_one_word(tmp_path: Path) -> None:
    run_dir = tmp_path / "state dir; touch pwned $(touch pwned2)" / "run-1"
    assert [words(c, tmp_path) for c in name_files(run_dir)] == [
        ["--bind", str(run_dir / "hosts"), "/etc/hosts"],
        ["--bind", str(run_dir / "resolv.conf"), "/etc/resolv.conf"]]
    batch = run_dir / "tc-h1.batch"
    assert words(tc_batch(batch), tmp_path) == ["-batch", str(batch)]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing else ran


def test_a_plain_state_folder_is_written_as_before() -> None:
    assert name_files(Path("/run/mcastlab/r1")) == [
        "mount --bind /run/mcastlab/r1/hosts /etc/hosts",
        "mount --bind /run/mcastlab/r1/resolv.conf /etc/resolv.conf"]
    assert tc_batch(Path("/run/mcastlab/r1/tc-h1.batch")) == \
        "tc -batch /run/mcastlab/r1/tc-h1.batch"
