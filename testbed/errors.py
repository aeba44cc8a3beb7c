"""Errors a user can cause: each carries one clear message and an exit code, never a traceback."""

from __future__ import annotations

import signal
import warnings
from typing import Any


class McastlabError(Exception):
    """A failure the user can act on; the CLI prints the message and exits with `exit_code`."""

    exit_code = 1


class UsageError(McastlabError):
    """Bad input: a wrong spec, an unknown algorithm, an impossible setting."""

    exit_code = 2


class CapabilityError(McastlabError):
    """The machine lacks something the request needs (root, OVS, a kernel feature)."""

    exit_code = 3


class RunFailed(McastlabError):
    """An experiment, MPI job or network start-up failed or timed out. `output`: what rank 0
    of a failed MPI job had printed (a job that reports as it goes keeps what it reported)."""

    exit_code = 4
    output = ""


class ComponentDied(McastlabError):
    """A process the whole run depends on (its controller) died during the run: the job
    that was running is ended, every point written before stays, the network is torn down
    and the run stops there (`mcastlab experiment --resume` finishes it). Not a RunFailed:
    a failed point is recorded and the run goes on, a dead component ends it."""

    exit_code = 4


class NotKeptUp(McastlabError):
    """The emulator did not keep up with a measurement that must be a result (a lab's)."""

    exit_code = 6


class DiskFull(McastlabError):
    """The device (or quota) of a results folder is full: every line written before stays
    whole, and the run stops there (`mcastlab experiment --resume` finishes it)."""

    exit_code = 7


def renamed_keyword(old_value: Any, old: str, value: Any, new: str) -> Any:
    """A Python API keyword's old spelling: its value if given (with a DeprecationWarning
    naming the new one), else the new keyword's. Every command, spec and API says
    `repetitions` for how many times a measurement repeats (docs/cli.md)."""
    if old_value is None:
        return value
    warnings.warn(f"{old}= is now {new}=", DeprecationWarning, stacklevel=3)
    return old_value


def ended_text(returncode: int) -> str:
    """How a process ended, from its return code as Popen gives it (a signal negative):
    "killed by signal 9 (SIGKILL)", "exit code 3"."""
    return signal_text(-returncode) if returncode < 0 else f"exit code {returncode}"


def signal_text(signum: int) -> str:
    """"killed by signal 9 (SIGKILL)" (the number alone for one Python does not name)."""
    try:
        name = f" ({signal.Signals(signum).name})"
    except ValueError:
        name = ""
    return f"killed by signal {signum}{name}"
