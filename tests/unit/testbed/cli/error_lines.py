"""What a refused command prints: one error line."""

from __future__ import annotations


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mcastlab: error: ")
    return lines[0]
