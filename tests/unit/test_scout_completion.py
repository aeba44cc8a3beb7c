"""The scout broadcasts' completion (collectives.algorithms.COMPLETIONS): "report" by
default, "none" as Chen2000 ran it; checked everywhere it can be given, recorded with every
point. And the frames that carry data apart from TCP's pure ACKs (frame_count)."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from collectives.algorithms import (
    BCASTS,
    COMPLETIONS,
    DEFAULT_COMPLETION,
    check_completion,
    names,
)
from collectives.executor import check
from collectives.ipmc.gaps import provable_gaps
from testbed.cli.main import main
from testbed.emulation.frame_count import FrameCounter, pure_acks
from testbed.experiments.spec import SpecError, from_dict

SPEC = {"name": "t", "network": {"topology": "star:hosts=4,bw=100"},
        "sweep": {"algorithms": ["scout-linear", "nack", "binomial"], "sizes": [1024]}}


def test_completions_report_by_default_and_only_the_scouts_take_one() -> None:
    assert DEFAULT_COMPLETION == "report" and set(COMPLETIONS) == {"report", "none"}
    assert check_completion("none") == "none"
    with pytest.raises(ValueError, match="completion must be one of report, none, got 'x'"):
        check_completion("x")
    assert [a for a in names() if BCASTS[a].completion] == ["scout-linear", "scout-binary"]


@pytest.mark.parametrize(("algorithm", "options", "needle"), [
    ("scout-linear", {"completion": "silent"}, "completion must be one of report, none"),
    ("scout-binary", {"completion": 0}, "completion must be one of"),
    ("nack", {"completion": "none"}, "nack: completion is an option of the scout"),
    ("two-stage", {"completion": "report"}, "two-stage: completion is an option"),
])
def test_the_executor_refuses_bad_completions_before_any_message(
        algorithm: str, options: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        check(algorithm, "mpich", 4, options)


def test_the_executor_takes_both_completions_with_the_multicast_options() -> None:
    for c in COMPLETIONS:
        check("scout-binary", "mpich", 4, {"completion": c, "timeout": 5.0})


def test_a_gap_is_proved_only_before_the_last_fragment_held() -> None:
    assert provable_gaps(bytearray([1, 0, 1, 0, 0])) == bytearray([1, 0, 1, 1, 1])
    assert provable_gaps(bytearray([0, 0, 0])) == bytearray([1, 1, 1])  # nothing held
    assert provable_gaps(bytearray([1, 1])) == bytearray([1, 1])
    assert provable_gaps(bytearray([0, 1])) == bytearray([0, 1])


def test_a_spec_checks_the_completion_and_every_point_records_it() -> None:
    from testbed.experiments.run import point_config

    bad = copy.deepcopy(SPEC) | {"completion": "silent"}
    with pytest.raises(SpecError, match="completion: unknown 'silent' .one of report, none."):
        from_dict(bad)
    for raw, want in ((copy.deepcopy(SPEC), "report"), (SPEC | {"completion": "none"}, "none")):
        spec = from_dict(copy.deepcopy(raw))
        by_alg = {p.algorithm: point_config(spec, p) for p in spec.points()}
        assert by_alg["scout-linear"]["completion"] == want
        assert by_alg["nack"]["completion"] is None and by_alg["binomial"]["completion"] is None


def _one_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcastlab: error: "), err
    return lines[0]


def test_the_command_line_refuses_bad_completions(capsys: pytest.CaptureFixture[str]) -> None:
    assert "nack has no completion (a scout broadcast's)" in _one_error(
        ["bcast", "--algo", "nack", "--size", "1", "--completion", "none"], capsys)
    with pytest.raises(SystemExit) as exc:  # argparse's choices: usage, then the error
        main(["bcast", "--algo", "scout-linear", "--size", "1", "--completion", "silent"])
    assert exc.value.code == 2 and "invalid choice: 'silent'" in capsys.readouterr().err
    assert "completion must be one of report, none, got 'silent'" in _one_error(
        ["mpirun", "--bcast", "scout-linear", "-o", "completion=silent", "--", "-m", "x"],
        capsys)


class _Emu:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir


def test_data_frames_are_frames_sent_less_pure_acks(tmp_path: Path) -> None:
    """Per broadcast, less the empty bracket's: (sent, delivered, pure ACKs, medium) at
    each mark (no hub here: no medium)."""
    counter = FrameCounter(_Emu(tmp_path), pids=[1])
    counter.counts = {"bcast-start": (100, 200, 10, 0), "bcast-end": (190, 400, 40, 0),
                      "empty-start": (300, 500, 50, 0), "empty-end": (310, 520, 60, 0)}
    got = counter.per_iteration(10)
    assert got == {"sent": 8.0, "delivered": 18.0, "acks": 2.0, "data": 6.0}
    counter.pids = ()  # no hosts to read: no split
    assert counter.per_iteration(10) == {"sent": 8.0, "delivered": 18.0, "acks": None,
                                         "data": None}
    counter.counts.pop("empty-end")
    assert counter.per_iteration(10) is None


def test_pure_acks_are_read_from_a_processs_namespace() -> None:
    assert pure_acks([os.getpid()]) >= 0
    assert pure_acks([2 ** 22 + 7]) == 0  # no such process: nothing counted
