"""collectives.programs.pingpong: only its command line; measuring needs mpiexec and several
ranks."""

import pytest

from collectives.programs import pingpong


def test_help_lists_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        pingpong.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: collectives.programs.pingpong")
    for option in ("--out", "--lat-bytes", "--bw-bytes", "--reps", "--bw-reps", "--warmup"):
        assert option in out


@pytest.mark.parametrize("argv", [["--reps", "many"], ["--lat-bytes", "1.5"], ["--bogus"],
                                  ["extra"], ["--out"]])
def test_bad_arguments_exit_2_before_mpi_starts(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        pingpong.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "collectives.programs.pingpong: error:" in err
