"""`mcastlab run SPEC.toml` end to end on real Mininet, OVS, the controller and MPICH: a
small sweep with background traffic and loss writes its records, CSV, plots and report with
sensible numbers; a fault that never heals is measured as a failure, not a hang; an
interrupted run resumes where it stopped; a bad spec stops before anything starts."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from testbed.report.points import point_of
from testbed.report.repairs import repair_costs

from .conftest import MCASTLAB, assert_clean

# loss 2 % of the multicast datagrams: nack has datagrams to repair (12-21 in a 64 KiB
# point). Loss of every packet also costs the MPI jobs' TCP (connections, control messages)
# seconds of retransmission timeouts (3-4 s a condition here: this spec with both scopes
# swept took 23 s against 11); test_interrupt_and_resume's spec sweeps both scopes,
# tests/integration/test_nack_repair runs nack under loss of every packet.
SMALL = """
name = "small"
repetitions = 3
warmup = 1
timeout = 60
[network]
topology = "star:hosts=4,bw=100"
loss_scope = "multicast"
[sweep]
algorithms = ["binomial", "nack"]
sizes = [1024, 65536]
traffic = ["none", "bg"]
loss = [0.0, 0.02]
[traffic.bg]
pattern = "uniform"
load = 0.2
hosts = "all"
"""

# A point that never completes is given up after `timeout` seconds without progress: the
# mechanism needs no more than a few seconds (the points that run whole take well under one,
# their job's start under a second); each cut point waits it out, in a job of its own
FAULT = """
name = "fault"
repetitions = 3
warmup = 0
timeout = 3
[network]
topology = "star:hosts=4,bw=100"
[sweep]
algorithms = ["nack", "binomial"]
sizes = [1024]
faults = ["cut", "none"]
[faults.cut]
events = [{at = 0.0, down = "h3"}]
"""

# three conditions, so three MPI jobs: the run is stopped after the first one's points;
# what is left to resume is 2 % loss under each scope (sweep.loss_scope): of the multicast
# datagrams only, and of every packet (TCP's retransmissions included), which completes
# within its timeout and is verified
RESUMABLE = """
name = "resumable"
repetitions = 3
warmup = 0
[network]
topology = "star:hosts=3,bw=100"
[sweep]
algorithms = ["binomial", "chain"]
sizes = [1024]
loss = [0.0, 0.02]
loss_scope = ["multicast", "all"]
"""


GROUPS = """
name = "groups"
repetitions = 4
warmup = 1
timeout = 60
[network]
topology = "star:hosts=7,bw=100"
mode = "contiguous"
exclude = [6]
[sweep]
algorithms = ["binomial", "nack"]
sizes = [1024]
hosts = [3]
groups = [1, 2]
interval = [0.0, 0.01]
"""

# node 1 excluded: the group h0, h2, h3 has a gap, which one contiguous multicast cannot
# serve; the range tree (Coll2003) goes around it: range 2-3. nack gives up after half the
# timeout (its channel's set-up waits that long for the group to reach every rank)
GAP = """
name = "gap"
repetitions = 2
warmup = 0
timeout = 4
[network]
topology = "star:hosts=4,bw=100"
mode = "contiguous"
exclude = [1]
[sweep]
algorithms = ["nack", "binomial", "range-tree"]
sizes = [1024]
"""


def _folder(root: Path) -> Path:
    [folder] = [p for p in root.iterdir() if p.is_dir()]
    return folder


def _records(folder: Path) -> list[dict]:
    return [json.loads(ln) for ln in (folder / "records.jsonl").read_text().splitlines()]


# packages a helper started as root would import from the directory root stands in, if it
# ran `python -m ...` or `python -c ...` plainly: each leaves a mark when imported
PLANTED = ("controller", "collectives", "testbed", "topologies", "mpi4py", "mininet",
           "os_ken")


def plant(where: Path, marks: Path) -> None:
    for name in PLANTED:
        (where / name).mkdir(parents=True)
        (where / name / "__init__.py").write_text(
            f"open({str(marks / name)!r}, 'w').close()\n")


def test_small_spec_with_traffic_and_loss(caps, clean_after, tmp_path):
    """Run by the installed command from a directory holding planted packages: the
    controller, the MPI ranks, the traffic generators and the start-up probes (root, every
    one) import none of them (testbed.interpreter)."""
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL)
    (marks := tmp_path / "imported").mkdir()
    plant(cwd := tmp_path / "cwd", marks)
    out = subprocess.run([str(Path(sys.executable).with_name("mcastlab")), "experiment",
                          str(spec), "--out", str(tmp_path / "res")], cwd=cwd,
                         capture_output=True, text=True, timeout=900)
    assert not list(marks.iterdir()), "planted packages imported as root"
    assert out.returncode == 0, out.stderr[-3000:]
    folder = _folder(tmp_path / "res")
    assert f"report: {folder / 'report.html'}" in out.stdout
    names = {p.name for p in folder.iterdir()}
    assert {"spec.toml", "config.json", "records.jsonl", "summary.csv", "summary.txt",
            "report.html", "plots", "raw"} <= names
    config = json.loads((folder / "config.json").read_text())
    assert config["points"] == 16 and config["finished"]
    assert config["versions"]["openvswitch"] != "unknown"
    recs = _records(folder)
    assert sorted(r["index"] for r in recs) == list(range(16))
    assert all(r["status"] == "ok" and r["verified"] for r in recs), \
        [(r["config"], r["error"]) for r in recs if r["status"] != "ok"]
    for r in recs:
        assert r["run"]["versions"]["mpi4py"] == config["versions"]["mpi4py"]
        assert 0 < r["t_mcast_s"]["median"] < 5, r
        assert len(r["samples_s"]) == 3
        assert r["fidelity"]["cpu_busy"] is not None
    by = {(r["config"]["algorithm"], r["config"]["size"], r["config"]["traffic"],
           r["config"]["loss"]): r for r in recs}
    # a bigger message takes longer (quiet network)
    assert by["binomial", 65536, "none", 0.0]["t_mcast_s"]["median"] > \
        by["binomial", 1024, "none", 0.0]["t_mcast_s"]["median"]
    # the traffic was there, measured: offered about 0.2 of each link, some accepted
    t = by["binomial", 1024, "bg", 0.0]["traffic"]
    assert t["generators"] == 4 and 0.1 < t["offered"] < 0.3, t
    assert 0 < t["accepted"] <= t["offered"] * 1.1, t
    assert by["binomial", 1024, "none", 0.0]["traffic"] is None
    # the loaded links are judged against what they should have carried
    links = by["nack", 65536, "bg", 0.0]["fidelity"]["links"]
    assert len(links) == 4 and all(lk["expected_mbit"] > 0 for lk in links), links
    # under loss the multicast broadcast repaired what was lost
    assert by["nack", 65536, "none", 0.02]["datagrams"]["repaired"] > 0
    # ... and said, per broadcast, what the repair cost its root (ipmc.accounting): a
    # repair round wherever a gap report came, none without
    acc = by["nack", 65536, "none", 0.02]["repairs"]
    assert len(acc["rounds"]) == 3, acc
    assert all((r > 0) == (d is not None) for r, d in zip(acc["rounds"], acc["detect_s"],
                                                          strict=True)), acc
    assert by["binomial", 65536, "none", 0.02]["repairs"] is None
    assert by["binomial", 1024, "none", 0.0]["predicted_s"] is None  # no params measured
    rows = list(csv.DictReader((folder / "summary.csv").open()))
    assert len(rows) == 16
    html = (folder / "report.html").read_text()
    assert "data:image/png;base64," in html and "binomial" in html
    assert list((folder / "plots").glob("*.png"))
    assert "binomial" in out.stdout  # the headline table
    # the cost of one loss (or why it cannot be stated), for each point with repair rounds
    costs = repair_costs([point_of(r) for r in recs])
    assert all(line in (folder / "summary.txt").read_text() for line in costs), costs
    assert costs or not any(acc["rounds"]), costs


def test_two_groups_injection_and_an_excluded_node(caps, clean_after, tmp_path,
                                                   no_run_plots):
    """Two communicators broadcast at once with their own groups; a root injects every 10 ms
    without waiting; in contiguous mode with node 6 excluded, the groups are formed from the
    other hosts and their ranges (0-2, 3-5) are served."""
    spec = tmp_path / "groups.toml"
    spec.write_text(GROUPS)
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = {(r["config"]["algorithm"], r["config"]["groups"], r["config"]["interval_s"]): r
            for r in _records(_folder(tmp_path))}
    assert len(recs) == 8
    assert all(r["status"] == "ok" and r["verified"] for r in recs.values()), \
        [(k, r["error"]) for k, r in recs.items() if r["status"] != "ok"]
    for (alg, groups, interval), r in recs.items():
        assert r["config"]["exclude"] == [6] and r["config"]["mode"] == "contiguous"
        assert r["config"]["members"] == [["h0", "h1", "h2"], ["h3", "h4", "h5"]][:groups]
        assert len(r["samples_s"]) == 4 * groups, (alg, groups, interval)  # each group's
        if groups == 2:
            assert [g["group"] for g in r["per_group"]] == [0, 1]
        else:
            assert r["per_group"] is None
        assert 0 < r["t_mcast_s"]["median"] < 2
        assert r["late_injections"] <= 4 * groups
    # multicast really served the ranges: nack's datagrams reached the receivers
    assert recs["nack", 2, 0.0]["datagrams"]["delivered"] > 0


def test_an_excluded_node_inside_a_group_is_measured_not_a_hang(caps, clean_after, tmp_path,
                                                                 no_run_plots):
    """Contiguous hardware cannot serve h0, h2, h3 with node 1 failed: the multicast
    broadcast fails with the reason, quickly; point-to-point binomial runs."""
    spec = tmp_path / "gap.toml"
    spec.write_text(GAP)
    t0 = time.monotonic()
    # a relative --out, as `make testbed` gives: the MPI ranks write there from elsewhere
    out = subprocess.run([*MCASTLAB, "experiment", "gap.toml", "--out", "res"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = {r["config"]["algorithm"]: r for r in _records(_folder(tmp_path / "res"))}
    assert recs["nack"]["config"]["members"] == [["h0", "h2", "h3"]]
    assert recs["nack"]["status"] == "failed"
    assert "does not reach" in recs["nack"]["error"], recs["nack"]["error"]
    assert recs["binomial"]["status"] == "ok" and recs["binomial"]["verified"]
    rt = recs["range-tree"]
    assert rt["status"] == "ok" and rt["verified"], rt["error"]
    assert rt["datagrams"]["delivered"] > 0 and rt["datagrams"]["repaired"] == 0, rt
    assert time.monotonic() - t0 < 240


def test_fault_that_never_heals_is_measured_not_a_hang(caps, clean_after, tmp_path,
                                                        no_run_plots):
    spec = tmp_path / "fault.toml"
    spec.write_text(FAULT)
    t0 = time.monotonic()
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = {(r["config"]["algorithm"], r["config"]["fault"]): r
            for r in _records(_folder(tmp_path))}
    cut = recs["nack", "cut"]
    assert cut["status"] == "failed" and cut["faults"][0]["action"] == "down", cut
    assert "gave up" in cut["error"] or "no progress" in cut["error"], cut["error"]
    assert recs["binomial", "cut"]["status"] == "failed"  # TCP cannot reach h3 either
    # the link came back up for the next points: they ran whole
    assert recs["nack", "none"]["status"] == "ok" and recs["binomial", "none"]["status"] == "ok"
    assert time.monotonic() - t0 < 300


def test_interrupt_and_resume(caps, clean_after, tmp_path, no_run_plots):
    spec = tmp_path / "resumable.toml"
    spec.write_text(RESUMABLE)
    proc = subprocess.Popen([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    records = None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = [p for p in tmp_path.glob("*/records.jsonl") if p.read_text().strip()]
        if found:
            records = found[0]
            break
        time.sleep(0.2)
    assert records is not None, "no point finished"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "--resume" in err
    assert_clean()
    folder = records.parent
    first = _records(folder)
    assert 0 < len(first) < 6
    assert json.loads((folder / "config.json").read_text())["interrupted"]
    out = subprocess.run([*MCASTLAB, "experiment", "--resume", str(folder)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    recs = _records(folder)
    assert sorted(r["index"] for r in recs) == list(range(6))
    assert recs[:len(first)] == first  # what was measured stays as it was
    assert all(r["status"] == "ok" and r["verified"] for r in recs)
    # loss 0 once, no scope; 2 % under each scope, in jobs of its own
    by = {(r["config"]["algorithm"], r["config"]["loss"], r["config"]["loss_scope"]): r["job"]
          for r in recs}
    assert set(by) == {(a, loss, scope) for a in ("binomial", "chain") for loss, scope in (
        (0.0, None), (0.02, "multicast"), (0.02, "all"))}
    jobs = {scope: {job for (_a, _loss, s), job in by.items() if s == scope}
            for scope in ("multicast", "all")}
    assert not jobs["multicast"] & jobs["all"], by
    assert "1 KiB on 3 hosts, loss of every packet" in out.stdout
    assert "1 KiB on 3 hosts, loss of multicast datagrams" in out.stdout


def test_bad_spec_stops_before_anything_starts(caps, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text(SMALL.replace('"nack"]', '"nack", "telepathy"]'))
    # both refused before any network comes up: at once (each is mostly its start)
    with ThreadPoolExecutor(2) as pool:
        out, listed = pool.map(lambda args: subprocess.run(
            [*MCASTLAB, "experiment", *args], capture_output=True, text=True, timeout=60),
            [(str(spec), "--out", str(tmp_path / "r")), (str(tmp_path / "nope.toml"), "--list")])
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "mcastlab: error: sweep.algorithms[2]: unknown broadcast 'telepathy'; choose from "
        + out.stderr.split("; choose from ", 1)[1].strip()]
    assert not (tmp_path / "r").exists()
    assert listed.returncode == 2 and "no spec file" in listed.stderr
