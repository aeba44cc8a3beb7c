"""testbed.safepath (issue 53, Paths): every output folder and file root writes is made and
checked in one step, on real files (a folder or link of uid 65534's made with os.chown in a
tmp folder, /dev/full, /proc/version); the commands refuse each trap with one message and
exit 2 (through testbed.cli.main)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from testbed import results, safepath
from testbed.cli.main import main
from testbed.errors import UsageError

NOBODY = 65534
SPEC = Path(__file__).resolve().parents[3] / "experiments" / "default.toml"


@pytest.fixture(autouse=True)
def as_root(monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.fail("needs root (make test runs as root): the checks are root's")
    monkeypatch.delenv("SUDO_UID", raising=False)


@pytest.fixture
def nothing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a check here not refuse, the command stops where it would look at the machine
    (or reach the servers) instead of measuring."""
    from testbed.bench import suites
    from testbed.cli import measure, network
    from testbed.emulation import network as emulation
    from testbed.experiments import run_folder

    def past_the_checks(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the command got past its path checks")

    for module, name in ((run_folder, "detected"), (suites, "detected"), (measure, "network"),
                         (network.doctor, "check"), (emulation.Emulation, "__init__")):
        monkeypatch.setattr(module, name, past_the_checks)


def theirs(path: Path, mode: int = 0o755) -> Path:
    """A folder of another user's (uid 65534)."""
    path.mkdir(mode=mode)
    os.chown(path, NOBODY, NOBODY)
    return path


def error_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The command's one error line (exit 2, nothing on stdout, no traceback)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcastlab: error: "), err
    return lines[0]


# ---- folders: --out and the folders made in it -------------------------------------------
def test_missing_levels_are_made_one_by_one_and_each_checked(tmp_path: Path) -> None:
    made = safepath.make_folder("--out", tmp_path / "a" / "b" / "c")
    assert made == tmp_path / "a" / "b" / "c" and made.is_dir()
    for level in (tmp_path / "a", tmp_path / "a" / "b", made):
        st = level.lstat()
        assert st.st_uid == 0 and not st.st_mode & 0o022
    run = results.new_results_dir("x y", tmp_path / "a")
    assert run.parent == tmp_path / "a" and run.name.endswith("-x_y")
    assert results.new_results_dir("x y", tmp_path / "a").name.endswith("-x_y-2")


def test_out_under_a_folder_of_another_user_is_refused_and_nothing_made(
        tmp_path: Path) -> None:
    other = theirs(tmp_path / "theirs")
    with pytest.raises(UsageError, match=f"--out: {other} belongs to another user "
                                         f"\\(uid {NOBODY}\\)"):
        results.new_results_dir("exp", other / "r")
    assert list(other.iterdir()) == []


def test_a_folder_another_user_made_in_its_place_is_refused(tmp_path: Path) -> None:
    """The level exists already (made between a look and the mkdir): opened, then refused
    as opened, before anything is made in it."""
    theirs(tmp_path / "r")
    with pytest.raises(UsageError, match="belongs to another user"):
        safepath.new_folder("--out", tmp_path / "r", "exp")
    assert list((tmp_path / "r").iterdir()) == []


@pytest.mark.parametrize("where", ["out", "parent"])
def test_a_link_of_another_user_as_out_or_its_parent_is_refused(where: str,
                                                                tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    os.lchown(link, NOBODY, NOBODY)
    out = link if where == "out" else link / "r"
    with pytest.raises(UsageError, match=f"the link {link} belongs to another user"):
        safepath.make_folder("--out", out)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_link_of_roots_is_followed_and_checked_where_it_leads(tmp_path: Path) -> None:
    other = theirs(tmp_path / "theirs")
    (tmp_path / "mine").mkdir()
    (tmp_path / "to-mine").symlink_to("mine")  # relative
    assert safepath.make_folder("--out", tmp_path / "to-mine" / "r").is_dir()
    assert (tmp_path / "mine" / "r").is_dir()
    (tmp_path / "to-theirs").symlink_to(other)
    with pytest.raises(UsageError, match=f"{other} belongs to another user"):
        safepath.make_folder("--out", tmp_path / "to-theirs" / "r")


def test_a_folder_others_may_write_is_refused_unless_sticky(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(UsageError, match=r"may be written by others \(mode 777\)"):
        safepath.make_folder("--out", shared / "r")
    shared.chmod(0o1777)  # as /tmp: others add names, they cannot move ours
    assert safepath.make_folder("--out", shared / "r").is_dir()


def test_a_folder_writable_by_the_sudo_users_own_group_is_theirs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A umask of 002 makes every folder of a user group-writable by their private group
    (nogroup: uid 65534's primary group, no other member): as theirs as the folder."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chown(shared, 0, NOBODY)
    shared.chmod(0o775)
    with pytest.raises(UsageError, match=r"may be written by others \(mode 775\)"):
        safepath.make_folder("--out", shared / "r")
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    assert safepath.make_folder("--out", shared / "r").is_dir()


def test_the_user_who_ran_sudo_owns_their_folders(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    other = theirs(tmp_path / "home")
    monkeypatch.setenv("SUDO_UID", str(NOBODY))
    assert safepath.make_folder("--out", other / "r").is_dir()


def test_who_ran_sudo_is_one_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """SUDO_UID names them (not root itself, not a word); the owners root writes for are
    root, this user and them (the live view's server is handed to the same user)."""
    assert safepath.sudo_uid() is None and safepath.trusted_owners() == {0}
    for given, uid in (("1234", 1234), ("0", None), ("", None), ("12a", None), ("-5", None)):
        monkeypatch.setenv("SUDO_UID", given)
        assert safepath.sudo_uid() == uid
        assert safepath.trusted_owners() == {0} | ({uid} if uid is not None else set())


@pytest.mark.parametrize("argv", [["experiment", str(SPEC)], ["pingpong"], ["bench"]])
def test_the_commands_refuse_out_in_another_users_folder(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        nothing_starts: None) -> None:
    other = theirs(tmp_path / "theirs")
    line = error_of([*argv, "--out", str(other / "r")], capsys)
    assert f"--out: {other} belongs to another user (uid {NOBODY})" in line


# ---- --resume ----------------------------------------------------------------------------
def results_folder(path: Path) -> Path:
    path.mkdir()
    (path / "spec.toml").write_text(SPEC.read_text())
    (path / "config.json").write_text("{}")
    (path / "records.jsonl").write_text("")
    return path


@pytest.mark.parametrize("trap", ["folder", "file", "group-writable", "world-writable",
                                  "link"])
def test_resume_refuses_a_folder_another_user_owns_or_wrote_into(
        trap: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        nothing_starts: None) -> None:
    run = results_folder(tmp_path / "run")
    if trap == "folder":
        os.chown(run, NOBODY, NOBODY)
        needle = f"{run} belongs to another user (uid {NOBODY})"
    elif trap == "file":
        os.chown(run / "records.jsonl", NOBODY, NOBODY)
        needle = f"{run / 'records.jsonl'} belongs to another user (uid {NOBODY})"
    elif trap == "group-writable":
        os.chown(run / "config.json", 0, NOBODY)
        (run / "config.json").chmod(0o664)
        needle = f"{run / 'config.json'} may be written by others (mode 664)"
    elif trap == "world-writable":
        (run / "raw").mkdir()
        (run / "raw").chmod(0o777)
        needle = f"{run / 'raw'} may be written by others (mode 777)"
    else:
        (run / "summary.txt").symlink_to("/etc/shadow")
        os.lchown(run / "summary.txt", NOBODY, NOBODY)
        needle = f"{run / 'summary.txt'} belongs to another user (uid {NOBODY})"
    line = error_of(["experiment", "--resume", str(run)], capsys)
    assert line == f"mcastlab: error: --resume: {needle}; root does not " + (
        "read or write it" if "may be written" in needle else
        "write through it: choose another path")


def cluster_table(ssh_config: Path) -> str:
    return f'\n[cluster]\nservers = ["root@10.9.9.9"]\nssh_config = "{ssh_config}"\n'


@pytest.mark.parametrize("trap", ["owner", "mode", "link"])
def test_ssh_config_is_read_only_from_a_file_of_roots(
        trap: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        nothing_starts: None) -> None:
    """A spec's [cluster] ssh_config, a resumed config.json's and --ssh-config: its
    ProxyCommand would run as root."""
    cfg = tmp_path / "ssh_config"
    cfg.write_text("Host *\n  ProxyCommand touch /tmp/owned\n")
    if trap == "owner":
        os.chown(cfg, NOBODY, NOBODY)
        needle = "must belong to root and be writable by its owner alone (it is uid 65534"
    elif trap == "mode":
        cfg.chmod(0o666)
        needle = "must belong to root and be writable by its owner alone (it is uid 0, mode 666)"
    else:
        cfg.rename(tmp_path / "real")
        cfg.symlink_to(tmp_path / "real")
        needle = "is not a regular file (a link?)"
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.read_text().replace('"star:hosts=16"', '"mesh:rows=4,cols=4"')
                    + cluster_table(cfg))  # a switch on each of the two servers
    line = error_of(["experiment", str(spec), "--out", str(tmp_path / "r")], capsys)
    assert line.startswith(f"mcastlab: error: cluster.ssh_config: {cfg} ") and needle in line
    run = results_folder(tmp_path / "run")
    (run / "config.json").write_text(json.dumps(
        {"cluster": {"servers": ["localhost", "root@10.9.9.9"], "ssh_config": str(cfg)}}))
    line = error_of(["experiment", "--resume", str(run)], capsys)
    assert line.startswith(f"mcastlab: error: config.json's cluster.ssh_config: {cfg} ")
    assert needle in line
    line = error_of(["doctor", "--servers", "root@10.9.9.9", "--ssh-config", str(cfg)], capsys)
    assert line.startswith(f"mcastlab: error: --ssh-config: {cfg} ") and needle in line


def test_a_root_owned_ssh_config_is_taken(tmp_path: Path) -> None:
    cfg = tmp_path / "ssh_config"
    cfg.write_text("Host *\n")
    cfg.chmod(0o644)
    assert safepath.trusted_config("--ssh-config", cfg) == cfg


# ---- files: --save, capture, keys --------------------------------------------------------
@pytest.mark.parametrize(("target", "needle"), [
    ("/dev/full", "--save: /dev/full is not a regular file; give a regular file"),
    ("/proc/version", "--save: /proc/version is on a proc file system, not a place for files"),
    ("/proc/new.json", "--save: /proc/new.json is on a proc file system"),
    ("{tmp}/link.json", "--save: {tmp}/link.json is a link; give a regular file"),
    ("{tmp}/fifo", "--save: {tmp}/fifo is not a regular file"),
    ("{tmp}/theirs.json", "--save: {tmp}/theirs.json belongs to another user (uid 65534)"),
])
def test_topo_save_writes_only_a_regular_file(target: str, needle: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "hostname").write_text("kept\n")
    (tmp_path / "link.json").symlink_to(tmp_path / "hostname")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "theirs.json").write_text("{}")
    os.chown(tmp_path / "theirs.json", NOBODY, NOBODY)
    before = os.stat("/dev/full")
    line = error_of(["topo", "star", "--save", target.format(tmp=tmp_path)], capsys)
    assert line.startswith("mcastlab: error: " + needle.format(tmp=tmp_path))
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # as root it once became a JSON file
    assert os.stat("/dev/full").st_rdev == before.st_rdev
    assert (tmp_path / "hostname").read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "hostname", "link.json",
                                                         "theirs.json"]  # no temp left


def test_topo_save_replaces_a_regular_file(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    out.write_text("old")
    assert main(["topo", "star:hosts=3", "--save", str(out)]) == 0
    assert json.loads(out.read_text())["name"] == "star-3"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_capture_opens_only_a_regular_file_of_ours(tmp_path: Path) -> None:
    """`capture HOST FILE` (tcpdump's output): the file the prompt opens for it."""
    (tmp_path / "old.pcap").write_text("old")
    (tmp_path / "link.pcap").symlink_to(tmp_path / "old.pcap")
    os.link(tmp_path / "old.pcap", tmp_path / "hard.pcap")
    (tmp_path / "theirs.pcap").write_text("theirs")
    os.chown(tmp_path / "theirs.pcap", NOBODY, NOBODY)
    for name, needle in (("link.pcap", "is a link"), ("hard.pcap", "has other names"),
                         ("theirs.pcap", "belongs to another user")):
        with pytest.raises(UsageError, match=f"capture: {tmp_path / name} {needle}"):
            safepath.open_output("capture", tmp_path / name)
    with pytest.raises(UsageError, match="capture: /dev/full is not a regular file"):
        safepath.open_output("capture", "/dev/full")
    (tmp_path / "hard.pcap").unlink()
    with safepath.open_output("capture", tmp_path / "old.pcap") as f:
        f.write(b"new")
    assert (tmp_path / "old.pcap").read_text() == "new"
    assert (tmp_path / "theirs.pcap").read_text() == "theirs"
    with safepath.open_output("capture", tmp_path / "new.pcap") as f:
        f.write(b"x")
    assert stat.S_IMODE((tmp_path / "new.pcap").stat().st_mode) == 0o644


def test_write_file_refuses_a_folder_of_another_user(tmp_path: Path) -> None:
    other = theirs(tmp_path / "theirs", mode=0o777)
    with pytest.raises(UsageError, match="belongs to another user"):
        safepath.write_file("--solve", other / "key.toml", "x")
    assert list(other.iterdir()) == []


def test_the_prompts_script_is_a_file_of_roots_or_yours(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], nothing_starts: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcastlab net --script FILE`: its commands (`h1 any command`) run as root."""
    script = tmp_path / "script"
    script.write_text("h1 touch /tmp/owned\n")
    os.chown(script, NOBODY, NOBODY)
    line = error_of(["net", "--script", str(script)], capsys)
    assert line == (f"mcastlab: error: --script: {script} must belong to root or you and be "
                    f"writable by its owner alone (it is uid {NOBODY}, mode 644): its "
                    "commands would run as root")
    monkeypatch.setenv("SUDO_UID", str(NOBODY))  # the user who ran sudo: theirs is taken
    assert safepath.trusted_config("--script", script, root_only=False) == script
