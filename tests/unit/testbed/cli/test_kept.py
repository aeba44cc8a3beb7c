"""testbed.cli.kept: --out of a command that prints its result keeps what it printed in a
new folder (output.txt, or result.json with --json), checked before the command starts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from testbed.cli.kept import kept
from testbed.errors import UsageError


def _args(out: Path | None, as_json: bool) -> argparse.Namespace:
    return argparse.Namespace(keeps_output=True, out=None if out is None else str(out),
                              command="bcast", json=as_json)


def test_what_the_command_prints_is_kept_beside_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with kept(_args(tmp_path, True)):
        print(json.dumps({"t": 1}))
    with kept(_args(tmp_path, False)):
        print("t_mcast median 10 us")
    out = capsys.readouterr().out
    assert out == '{"t": 1}\nt_mcast median 10 us\n'
    files = sorted(p.name for p in tmp_path.glob("bcast-*/*"))
    assert files == ["output.txt", "result.json"]
    assert json.loads(next(tmp_path.glob("bcast-*/result.json")).read_text()) == {"t": 1}


def test_without_out_nothing_is_kept(tmp_path: Path) -> None:
    with kept(_args(None, False)):
        print("x")
    assert list(tmp_path.iterdir()) == []


def test_an_out_that_cannot_be_written_is_refused_before_the_command(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    ran = []
    with pytest.raises(UsageError, match="--out"), kept(_args(tmp_path / "file", False)):
        ran.append(1)
    assert ran == []
