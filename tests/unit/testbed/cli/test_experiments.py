"""testbed.cli.experiments without a network: where bench and reproduce write. By default a
new dated folder under the results root (--out), so no run overwrites another's; the
curated folder only with --publish, and never both; `experiment --web` refuses a port
taken, --list and --web-port alone in one line before anything starts."""

import argparse
import json
import os
import pty
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from testbed.cli import experiments
from testbed.cli.experiments import CURATED_BENCH, run_folder
from testbed.cli.main import main
from testbed.errors import UsageError

from .error_lines import _one_error_line


def args(out: str | None = None, publish: bool = False) -> argparse.Namespace:
    return argparse.Namespace(out=out, publish=publish)


def test_a_dated_folder_under_the_root_each_time(tmp_path: Path) -> None:
    curated = tmp_path / "bench"
    first = run_folder(args(str(tmp_path / "results")), "bench-nack", curated)
    second = run_folder(args(str(tmp_path / "results")), "bench-nack", curated)
    assert first.parent == second.parent == tmp_path / "results"
    assert first != second and first.name.endswith("-bench-nack") and first.is_dir()
    assert not curated.exists()


def test_publish_writes_the_curated_folder_and_only_that(tmp_path: Path) -> None:
    curated = tmp_path / "bench" / "reproduce"
    (tmp_path / "bench").mkdir()
    assert run_folder(args(publish=True), "reproduce", curated) == curated
    with pytest.raises(UsageError, match="--publish writes the curated folder; --out"):
        run_folder(args(str(tmp_path / "r"), publish=True), "reproduce", curated)
    with pytest.raises(UsageError, match="of a checkout"):
        run_folder(args(publish=True), "bench", tmp_path / "nowhere" / "bench")
    assert CURATED_BENCH.name == "bench" and (CURATED_BENCH.parent / "Makefile").is_file()


# ---- mcastlab report FOLDER: a results folder rendered again, nothing measured ---------------
ROOT = Path(__file__).resolve().parents[4]


def report(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from testbed.cli.main import main

    code = main(["report", str(folder)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_report_renders_a_bench_folder_and_keeps_what_it_cannot_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    for name in ("uftp.json", "uftp.md", "ipmc.json", "ipmc.md"):  # the curated results
        shutil.copy(ROOT / "bench" / name, tmp_path / name)
    (tmp_path / "ipmc.json").write_text('{"topology": "star"}')  # a shape of long ago
    before = (tmp_path / "uftp.md").read_text().splitlines()[:2]
    code, out, _ = report(tmp_path, capsys)
    assert code == 0
    assert "rendered uftp" in out and "ipmc.json kept as it was" in out
    page = (tmp_path / "uftp.md").read_text()
    assert page.splitlines()[:2] == before  # its date and machine, as its run wrote them
    assert (tmp_path / "uftp.csv").read_text().count("\n") > 2
    assert "Every row: [uftp.csv](uftp.csv)." in page
    assert (tmp_path / "ipmc.md").read_text() == (ROOT / "bench" / "ipmc.md").read_text()
    assert "# mcastlab nack against UFTP bench" in (tmp_path / "index.md").read_text()


def test_report_renders_a_reproduce_folder(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import json

    doc = json.loads((ROOT / "bench" / "reproduce" / "reproduce.json").read_text())
    doc["claims"] = [c for c in doc["claims"] if c["key"] == "tseng.hot-spot"]
    (tmp_path / "reproduce.json").write_text(json.dumps(doc))
    code, out, _ = report(tmp_path, capsys)
    assert code == 0 and "report.html" in out
    assert (tmp_path / "plots" / "tseng.hot-spot.png").is_file()  # PNG alone in tests
    assert "tseng.hot-spot" in (tmp_path / "reproduce.md").read_text()
    assert (tmp_path / "reproduce.csv").read_text().startswith("claim,")
    from testbed.cli.main import main

    assert main(["report", str(tmp_path), "--json"]) == 0  # the same, said as JSON
    said = json.loads(capsys.readouterr().out)
    assert said["kind"] == "reproduce" and said["folder"] == str(tmp_path)
    assert said["summary"] == out.strip() and "reproduce.md" in said["files"]


@pytest.mark.parametrize("make, needle", [
    (lambda p: p / "missing", "is not a folder"),
    (lambda p: p, "holds no results"),
    (lambda p: (p / "reproduce.json").write_text("{cut") and p, "cannot be read back"),
])
def test_report_refuses_what_it_cannot_render(tmp_path: Path, capsys, make, needle) -> None:
    code, _, err = report(make(tmp_path), capsys)
    assert code == 2 and needle in err and "Traceback" not in err


def test_report_as_root_writes_over_nothing_another_user_owns(tmp_path: Path, capsys) -> None:
    import os

    if os.geteuid() != 0:
        pytest.fail("needs root (make test runs as root)")
    link = tmp_path / "summary.txt"
    link.symlink_to("/etc/hostname")
    os.lchown(link, 12345, 12345)
    (tmp_path / "reproduce.json").write_text("{}")
    code, _, err = report(tmp_path, capsys)
    assert code == 2 and "belongs to another user (uid 12345)" in err


# ---- a long command end to end: its progress on a terminal and on a pipe, its --json ------
# reproduce of one claim that is computed, not measured: no network, no root, about 2 s
CLAIM = "nupairoj.table-4.1"


def _mcastlab(args: list[str], stderr: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    return subprocess.Popen([sys.executable, "-m", "testbed.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=stderr)


def _drained(fd: int) -> str:
    """Everything written to a pty's master until its last writer closed the slave."""
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: no writer is left
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode(errors="replace")


def test_a_long_command_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    proc = _mcastlab(["reproduce", "--only", CLAIM, "--out", str(tmp_path)], slave)
    os.close(slave)  # the command holds the only writer: the master reads EIO when it ends
    err = _drained(master)
    os.close(master)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "\x1b[" in err and "1/1" in err  # a bar drawn with escape sequences
    assert "mcastlab: [0/1] done" not in err  # not the lines of a pipe
    assert f"reproduced      {CLAIM}: " in out.decode()


def test_a_long_command_writes_a_line_per_step_to_a_pipe(tmp_path: Path) -> None:
    proc = _mcastlab(["reproduce", "--only", CLAIM, "--out", str(tmp_path), "--json"],
                     subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    steps = [ln for ln in err.decode().splitlines() if re.match(r"mcastlab: \[\d/1\]", ln)]
    assert proc.returncode == 0, err
    assert "\x1b[" not in err.decode()
    assert re.fullmatch(rf"mcastlab: \[0/1\] done; now: {CLAIM} \(0 s elapsed\)", steps[0])
    assert re.fullmatch(r"mcastlab: \[1/1\] done \(\d+ s elapsed\)", steps[1])
    assert len(steps) == 2
    said = json.loads(out)  # --json: the folder as report --json says it
    folder = Path(said["folder"])
    assert folder.parent == tmp_path and said["kind"] == "reproduce"
    assert said["claims"] == {CLAIM: "reproduced"}
    assert said["summary"].startswith(f"reproduced      {CLAIM}: ")
    assert {"reproduce.json", "report.html"} <= set(said["files"])


# ---- experiment --web on bad input: one line, exit 2, before anything starts -------------
@pytest.mark.parametrize("argv", [["experiment", "experiments/default.toml"], ["testbed"]])
def test_web_on_a_port_taken_is_refused(argv: list[str], capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(experiments, "prepare", _nothing_starts)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main([*argv, "--web", "--web-port", str(port)]) == 2
        assert _one_error_line(capsys.readouterr().err) == (
            f"mcastlab: error: --web-port {port}: cannot listen on 127.0.0.1:{port}: "
            "Address already in use")


@pytest.mark.parametrize(("argv", "said"), [
    (["--web", "--list"], "--web shows a run as it measures: --list runs nothing"),
    (["--web-port", "8080"], "--web-port is the live view's: give --web too")])
def test_web_with_list_or_a_port_alone_is_refused(argv: list[str], said: str,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(experiments, "prepare", _nothing_starts)
    assert main(["experiment", "experiments/default.toml", *argv]) == 2
    assert _one_error_line(capsys.readouterr().err) == f"mcastlab: error: {said}"


def _nothing_starts(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a bad-input test got as far as preparing the run")
