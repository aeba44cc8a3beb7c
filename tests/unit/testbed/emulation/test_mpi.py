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


def test_a_job_whose_ranks_all_exited_is_done_though_mpiexec_waits_on(tmp_path, monkeypatch):
    """Every rank said it exited 0, mpiexec (here a sleep) never ends: the watch ends the job
    as done after the grace, and not while a rank has not said so."""
    import subprocess

    from testbed.emulation import mpi

    monkeypatch.setattr(mpi, "RANKS_DONE_GRACE_S", 0.2)
    for r in range(3):
        (tmp_path / f"rank-{r}.err").write_text(f"some output\n{mpi.EXIT_SAID}0\n")
    with subprocess.Popen(["sleep", "30"]) as proc:
        try:
            assert mpi._watch(proc, tmp_path, 10, np=3) == mpi.RANKS_DONE
            (tmp_path / "rank-3.err").write_text("still running\n")
            assert mpi._watch(proc, tmp_path, 0.6, np=4) is None  # rank 3 never said
        finally:
            proc.kill()


def test_a_job_done_by_its_ranks_is_a_success_and_a_failed_rank_a_failure():
    from testbed.emulation import mpi

    assert mpi.job_returncode(mpi.RANKS_DONE, None) == 0  # mpiexec still waiting
    assert mpi.job_returncode((), 0) == 0 and mpi.job_returncode((), 3) == 3
    assert mpi.job_returncode((2, 7), None) == 1 and mpi.job_returncode((2, 7), 9) == 9


CUT = "@@ verify run 0\nTraceback (most recent call last):\n"
WHOLE = CUT + '  File "x.py", line 1, in <module>\n    f()\nMulticastError: do not arrive\n'


def test_a_traceback_is_whole_once_its_exception_line_came():
    from testbed.emulation import mpi

    assert not mpi._whole_traceback(CUT)
    assert not mpi._whole_traceback(CUT + '  File "x.py", line 1, in <module>\n')
    assert mpi._whole_traceback(WHOLE)
    assert not mpi._whole_traceback(WHOLE + CUT)  # the last traceback counts
    assert not mpi._whole_traceback("no traceback at all\n")


def test_a_failed_job_waits_for_a_traceback_being_printed_but_not_for_ever(tmp_path,
                                                                          monkeypatch):
    """A rank killed by another's abort mid-traceback: the wait ends when it said its exit
    (here at once), or after ABORT_GRACE_S while its traceback is still cut."""
    import subprocess
    import time

    from testbed.emulation import mpi

    monkeypatch.setattr(mpi, "ABORT_GRACE_S", 0.5)
    (tmp_path / "rank-0.err").write_text(CUT)
    (tmp_path / "rank-1.err").write_text(WHOLE + f"{mpi.EXIT_SAID}1\n")
    with subprocess.Popen(["sleep", "30"]) as proc:
        try:
            t0 = time.monotonic()
            mpi._settle(proc, tmp_path, 2)
            assert time.monotonic() - t0 >= 0.5  # rank 0's traceback never came whole
            (tmp_path / "rank-0.err").write_text(CUT + f"{mpi.EXIT_SAID}137\n")
            t0 = time.monotonic()
            mpi._settle(proc, tmp_path, 2)
            assert time.monotonic() - t0 < 0.3  # it exited: nothing more will come
        finally:
            proc.kill()


def test_the_few_ranks_left_long_after_the_others_exited_are_laggards():
    from testbed.emulation import mpi

    codes = {r: 0 for r in range(64)} | {58: None}
    assert mpi.laggards(64, codes) == [58]
    assert mpi.laggards(64, codes | {3: None}) == [3, 58]
    assert mpi.laggards(64, {r: 0 for r in range(55)}) == []  # 9 running: more than 64 / 8
    assert mpi.laggards(64, codes | {7: 1}) == []  # a failure is not lagging
    assert mpi.laggards(64, {r: 0 for r in range(64)}) == []  # all done
    assert mpi.laggards(2, {0: 0}) == [1]
    assert mpi.laggards(2, {}) == []  # none has exited


def test_a_together_job_with_a_hung_rank_ends_before_its_timeout(tmp_path, monkeypatch):
    """Rank 3 of 4 never says it exited while the others did: a job whose ranks work to the
    end (`together`) ends as LAGGING after the grace, another waits for its timeout (the
    pair of collectives.programs.params measures on after the others left)."""
    import subprocess
    import time

    from testbed.emulation import mpi

    monkeypatch.setattr(mpi, "LAGGARD_S", 0.3)
    for r in range(3):
        (tmp_path / f"rank-{r}.err").write_text(f"{mpi.EXIT_SAID}0\n")
    (tmp_path / "rank-3.err").write_text("still running\n")
    with subprocess.Popen(["sleep", "30"]) as proc:
        try:
            t0 = time.monotonic()
            assert mpi._watch(proc, tmp_path, 20, np=4, together=True) == mpi.LAGGING
            assert time.monotonic() - t0 < 5
            assert mpi._watch(proc, tmp_path, 0.8, np=4) is None  # not together: timeout
        finally:
            proc.kill()
