"""The command line on the real stack: doctor, the default experiment (what `sudo make
testbed` runs) and clear refusals of what the machine cannot emulate."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from testbed.emulation.network import Emulation
from testbed.errors import CapabilityError
from topologies import parse_spec

from .conftest import MCASTLAB
from .netutil import all_pairs_ping


def test_doctor_reports_ready_and_the_datapath(caps):
    out = subprocess.run([*MCASTLAB, "doctor"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Status: ready" in out.stdout
    assert f"OVS datapath                {caps.datapath}" in out.stdout
    as_json = json.loads(subprocess.run([*MCASTLAB, "doctor", "--json"], capture_output=True,
                                        text=True, timeout=60).stdout)
    assert as_json["datapath"] == caps.datapath and as_json["root"] is True


def test_make_install_puts_mcastlab_on_roots_path():
    """`sudo mcastlab doctor`, as the help's examples say: make install (which make test ran
    first) wrote a wrapper in /usr/local/sbin, on sudo's secure_path, that runs this
    checkout's venv; for a checkout another user can change (a clone of one's own) it
    wrote none (scripts/wrapper.sh, tests/unit/test_wrapper.py)."""
    root = Path(__file__).resolve().parents[2]
    wrapper = Path("/usr/local/sbin/mcastlab")
    ours = f"# mcastlab: installed by {root}/scripts/install.sh"
    unsafe = subprocess.run(["sh", str(root / "scripts" / "wrapper.sh"), "check", str(root)],
                            capture_output=True, text=True, timeout=60).stdout
    if unsafe:  # CI's clone is root's: this branch is for `sudo make test` in one's own
        assert not wrapper.exists() or ours not in wrapper.read_text(), unsafe
        return
    assert ours in wrapper.read_text()
    secure_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    out = subprocess.run(["mcastlab", "doctor"], capture_output=True, text=True, timeout=60,
                         env={"PATH": secure_path}, cwd="/")
    assert out.returncode == 0 and "Status: ready" in out.stdout, out.stdout + out.stderr


def test_default_experiment_writes_a_results_folder(caps, clean_after, tmp_path):
    # bandwidth from 64 KiB round trips (1 MiB by default): the folder and its bounds are
    # the same, without the 84 MiB the default sends. The default star runs at the machine's
    # calibrated rate (20 Mbit/s here): a 256 KiB round trip took 0.2 s there, 9 s of the
    # test's 13.5. 64 KiB still takes 5-26 ms on the wire at 100-20 Mbit/s, against the
    # 0.1-0.2 ms a byte's latency adds to it
    out = subprocess.run([*MCASTLAB, "pingpong", "--out", str(tmp_path), "--repetitions", "10",
                          "--bw-bytes", str(64 << 10)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    [folder] = list(tmp_path.iterdir())
    names = {p.name for p in folder.iterdir()}
    assert {"config.json", "records.jsonl", "summary.json", "summary.txt",
            "report.html", "controller.log"} <= names
    config = json.loads((folder / "config.json").read_text())
    assert config["topology"]["shape"] == "star" and len(config["topology"]["hosts"]) == 8
    assert config["versions"]["openvswitch"] != "unknown"
    records = [json.loads(ln) for ln in (folder / "records.jsonl").read_text().splitlines()]
    # rank 0 against every other rank, on its own host
    assert [r["dst"] for r in records] == list(range(1, 8))
    assert [r["dst_host"] for r in records] == [f"h{i}" for i in range(1, 8)]
    for r in records:
        assert 0 < r["latency_us"]["median"] < 50_000
        assert 10 < r["bandwidth_mbit"]["median"] < 105  # links of 100 Mbit/s at most
    text = (folder / "summary.txt").read_text()
    assert "0->7" in text and "h0->h7" in text
    assert "<table>" in (folder / "report.html").read_text()


def test_bad_input_is_one_clear_line(caps):
    cases = [(["pingpong", "--topo", "nosuch"], "unknown topology shape"),
             (["mpirun", "--topo", "mesh:rows=0", "--", "-c", "1"], "rows"),
             (["mpirun", "--topo", "star", "--"], "give the program")]
    # each refused before any network comes up: all at once (each is mostly its start)
    with ThreadPoolExecutor(len(cases)) as pool:
        outs = list(pool.map(lambda c: subprocess.run([*MCASTLAB, *c[0]], capture_output=True,
                                                      text=True, timeout=60), cases))
    for (args, needle), out in zip(cases, outs, strict=True):
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("mcastlab: error:"), out.stderr
        assert needle in lines[0]


def test_mpirun_runs_someone_elses_program_with_our_broadcasts(caps, clean_after):
    """--bcast/--barrier, and --allgather (the program's allgather by ours; --bcast mpich
    plain MPICH beside it)."""
    prog = str(Path(__file__).resolve().parent / "plain_program.py")
    for chosen in (["--bcast", "binary", "--barrier", "tree"],
                   ["--bcast", "mpich", "--allgather", "bruck"]):
        out = subprocess.run([*MCASTLAB, "mpirun", "--topo", "star:hosts=3,bw=1000", *chosen,
                              "--", prog], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, (chosen, out.stderr)
        assert sorted(ln for ln in out.stdout.splitlines() if "rank" in ln) == [
            f"[{r}] rank {r}: sum 499500 from 1, gathered 3 via collectives.intracomm"
            for r in range(3)]


def test_delay_needs_netem(caps, clean_after):
    topo = parse_spec("star:hosts=2,delay_ms=5")
    if caps.sch_netem:
        with Emulation(topo, caps=caps) as emu:
            # three round trips 0.1 s apart (ping's default second apart took 2 s)
            rtt = emu.host(0).cmd(f"ping -c3 -i 0.1 -q {emu.host(1).IP()} | tail -1")
            avg_ms = float(rtt.split("=")[1].split("/")[1])
            assert avg_ms >= 4 * 5 * 0.9  # four delayed link traversals per round trip
    else:
        with pytest.raises(CapabilityError, match="no sch_netem"):
            Emulation(topo, caps=caps).__enter__()
        out = subprocess.run([*MCASTLAB, "mpirun", "--topo", "star:hosts=2,delay_ms=5", "--",
                              "-c", "1"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 3
        assert "5 ms delay" in out.stderr and "no sch_netem" in out.stderr


def _wait_listening(tcpdump: subprocess.Popen, timeout: float = 10.0) -> None:
    """Until tcpdump says it captures ("listening on ..." on its standard error)."""
    said = ""
    deadline = time.monotonic() + timeout
    while "listening on" not in said and time.monotonic() < deadline:
        if select.select([tcpdump.stderr], [], [], 0.1)[0]:  # the pipe itself, unbuffered
            said += os.read(tcpdump.stderr.fileno(), 4096).decode(errors="replace")
        assert tcpdump.poll() is None, said
    assert "listening on" in said, said


def _printed(tcpdump: subprocess.Popen, line: str, timeout: float = 10.0) -> str:
    """What tcpdump printed (-l: a line at a time) up to and including `line`, or within
    `timeout` if it never prints it."""
    said = ""
    deadline = time.monotonic() + timeout
    while line not in said and time.monotonic() < deadline:
        if select.select([tcpdump.stdout], [], [], 0.1)[0]:
            got = os.read(tcpdump.stdout.fileno(), 4096).decode(errors="replace")
            if not got:
                break
            said += got
    return said


def test_arp_reaches_only_its_target(caps, clean_after):
    """ARP is routed to the target by the controller, not flooded: a third host hears none
    of another pair's ARP requests."""
    with Emulation(parse_spec("mesh:rows=2,cols=2"), caps=caps) as emu:
        h3 = emu.host(3)
        cap = h3.popen(["tcpdump", "-l", "-n", "-i", "h3-eth0", "arp"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        own = "who-has 10.0.0.3 tell 10.0.0.4"
        try:
            _wait_listening(cap)
            out = emu.host(0).cmd(f"ping -c2 -i 0.1 -W2 {emu.host(1).IP()}")
            assert " 0% packet loss" in out
            # h3's own ARP exchange shows the capture works; once tcpdump has printed its
            # request, it has printed whatever it heard before it too
            assert " 0% packet loss" in h3.cmd(f"ping -c1 -W2 {emu.host(2).IP()}")
            heard = _printed(cap, own)
        finally:
            cap.terminate()
        heard += cap.communicate(timeout=10)[0]
        assert own in heard, heard
        assert "10.0.0.2" not in heard, heard
        # and everyone still reaches everyone
        assert all(all_pairs_ping(emu).values())


def test_up_gives_a_mininet_prompt_on_the_network(caps, clean_after):
    out = subprocess.run([*MCASTLAB, "up", "--topo", "torus:rows=3,cols=3,bw=100"],
                         input="h4 hostname\npingall\nexit\n", capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    # Mininet's prompt writes through its logger, to standard error.
    assert "h4\n" in out.stderr  # the host's own hostname
    assert "Results: 0% dropped (72/72 received)" in out.stderr


def test_hosts_and_controller_are_set_up_as_documented(caps, clean_after):
    """Own hostname, multicast route, no offload trouble; the controller listens on
    127.0.0.1 only and reports every switch programmed."""
    from testbed.emulation.controller_proc import api_get

    with Emulation(parse_spec("tree:leaves=2,hosts_per_leaf=2"), caps=caps) as emu:
        for h in emu.hosts:
            assert h.cmd("hostname").strip() == h.name
            assert f"dev {h.name}-eth0" in h.cmd("ip route show 224.0.0.0/4")
            assert h.cmd("getent hosts h3").split() == ["10.0.0.4", "h3"]
        # OpenFlow and the API on Unix sockets in folders only root enters; no TCP socket
        # of the controller's at all
        unix = subprocess.run(["ss", "-Hlxp"], capture_output=True, text=True).stdout
        ofp, api = emu.controller.config.listen, str(emu.controller.api)
        assert f" {ofp} " in unix and f" {api} " in unix, unix
        for folder in (Path(ofp).parent, Path(api).parent):
            assert folder.stat().st_uid == 0 and (folder.stat().st_mode & 0o077) == 0
        tcp = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True).stdout
        assert f"pid={emu.controller.pid}," not in tcp, tcp
        state = api_get(emu.controller.api, "/state")
        assert state["ready"] and state["framework"].startswith(("os-ken", "ryu"))
        assert sorted(s["name"] for s in state["switches"].values()) == ["s1", "s2", "s3"]
        assert all(s["connected"] and s["ready"] for s in state["switches"].values())
