"""testbed.cli.steps: a long command's progress, a rich bar on a terminal (a pty here) and
one line per step where the output is a pipe: points done of planned, the current point,
elapsed and estimated time."""

from __future__ import annotations

import os
import pty
import re

import pytest

from testbed.cli.steps import Steps


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # a pty's master reads EIO once the slave is closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode(errors="replace")


def test_a_pipe_gets_one_line_per_step() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream, Steps(3, stream=stream) as step:
        for label in ("nack 64 KiB on 8 hosts", "binomial 64 KiB on 8 hosts",
                      "binomial 1 MiB on 8 hosts"):
            step(label)
    lines = _read_all(read).splitlines()
    os.close(read)
    assert len(lines) == 4
    assert re.fullmatch(r"mcastlab: \[0/3\] done; now: nack 64 KiB on 8 hosts \(0 s elapsed\)",
                        lines[0])
    assert re.fullmatch(r"mcastlab: \[1/3\] done; now: binomial 64 KiB on 8 hosts "
                        r"\(0 s elapsed, about 0 s left\)", lines[1])
    assert lines[2].startswith("mcastlab: [2/3] done; now: binomial 1 MiB on 8 hosts (")
    assert re.fullmatch(r"mcastlab: \[3/3\] done \(0 s elapsed\)", lines[3])


def test_a_terminal_gets_the_bar() -> None:
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as stream:
        assert stream.isatty()
        with Steps(2, stream=stream) as step:
            step("ring 1 KiB")
            step("bruck 1 KiB")
    out = _read_all(master)
    os.close(master)
    assert "\x1b[" in out  # drawn with escape sequences, not lines
    assert "bruck 1 KiB" in out and "2/2" in out
    assert "mcastlab: [" not in out


def test_a_failed_command_leaves_no_last_line() -> None:
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream, pytest.raises(RuntimeError), \
            Steps(2, stream=stream) as step:
        step("first")
        raise RuntimeError("the network did not come up")
    lines = _read_all(read).splitlines()
    os.close(read)
    assert lines == ["mcastlab: [0/2] done; now: first (0 s elapsed)"]
