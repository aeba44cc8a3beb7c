"""testbed.emulation.mpi without a network: a job's script named relative to the caller."""

from pathlib import Path

import pytest

from testbed.emulation.mpi import script_of_caller


def test_a_relative_script_is_the_callers(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_mpi(emu, ["my_bcast.py"])`, as the README's example: the ranks start in their
    host's working directory, so the caller's relative script is made absolute."""
    (tmp_path / "my_bcast.py").write_text("print(1)\n")
    monkeypatch.chdir(tmp_path)
    assert script_of_caller(["my_bcast.py", "-x"]) == [str(tmp_path / "my_bcast.py"), "-x"]
    for argv in (["-m", "collectives.programs.pingpong"], ["-c", "print(1)"], ["missing.py"],
                 ["/abs/prog.py"], []):
        assert script_of_caller(argv) == argv
