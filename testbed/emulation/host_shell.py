"""Commands in an emulated host's shell (Mininet's node.cmd), all or nothing."""

from __future__ import annotations

from typing import Any

from ..errors import RunFailed


def run_in_host(node: Any, cmds: list[str], what: str) -> None:
    """Run shell commands in a host's shell, all or nothing, in one round trip."""
    out = node.cmd(" && ".join(cmds) + " && echo MCASTLAB-OK")
    if "MCASTLAB-OK" not in out:
        raise RunFailed(f"{what} failed: {out.strip()}")
