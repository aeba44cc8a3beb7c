"""testbed.emulation.cleanup: a run's Linux kernel bridges are told apart from other runs' and
other bridges by their alias."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.emulation import cleanup
from testbed.emulation.run_records import RunRecord


def _netdev(root: Path, name: str, alias: str | None = None, bridge: bool = True) -> None:
    (root / name).mkdir()
    if bridge:
        (root / name / "bridge").mkdir()
    if alias is not None:
        (root / name / "ifalias").write_text(alias + "\n")


def test_kernel_bridges_are_told_apart_by_their_alias(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _netdev(tmp_path, "s1", f"{cleanup.BRIDGE_MARK}=run-a")      # run-a's
    _netdev(tmp_path, "s2", "")                                  # unmarked (killed early)
    _netdev(tmp_path, "s3", f"{cleanup.BRIDGE_MARK}=run-b")      # another run's
    _netdev(tmp_path, "docker0")                                 # no alias file: not ours
    _netdev(tmp_path, "br-lab", "someone else's bridge")
    _netdev(tmp_path, "s1-eth1", bridge=False)                   # a port, not a bridge
    _netdev(tmp_path, "s9", bridge=False)                        # an OVS internal port
    monkeypatch.setattr(cleanup, "SYS_NET", tmp_path)
    assert cleanup.kernel_bridges() == {"s1": "run-a", "s2": "", "s3": "run-b",
                                        "docker0": "", "br-lab": ""}
    rec = RunRecord(id="run-a", pid=1, started=0.0, run_dir="", bridges=["s1", "s2", "s3"])
    assert cleanup.run_kernel_bridges(rec) == ["s1", "s2"]
    other = RunRecord(id="run-c", pid=1, started=0.0, run_dir="", bridges=["s1", "s9"])
    assert cleanup.run_kernel_bridges(other) == []
