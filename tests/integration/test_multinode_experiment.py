"""A [multinode] experiment spec on the real stack: `mcastlab experiment` measures
Tseng2001's multi-node multicast on a small torus as a sweep, writes a record per point with
its configuration, delivery and fidelity, and the report; `--resume` measures only the
points records.jsonl lacks."""

from __future__ import annotations

import json
import subprocess

from .conftest import MCASTLAB

SPEC = """
name = "mn"
repetitions = 2
seed = 0
[network]
topology = "torus:rows=2,cols=4,bw=100"
[multinode]
schemes = ["u-torus", "partitioned-balanced"]
sources = [3]
dests = 4
factors = [0.25]
sizes = [4096]
"""


def _records(folder):
    return [json.loads(ln) for ln in (folder / "records.jsonl").read_text().splitlines()]


def test_a_multinode_spec_measures_reports_and_resumes(caps, clean_after, tmp_path):
    spec = tmp_path / "mn.toml"
    spec.write_text(SPEC)
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (folder,) = (tmp_path / "r").iterdir()
    recs = _records(folder)
    assert [r["config"]["algorithm"] for r in recs] == ["u-torus", "partitioned-balanced"]
    for r in recs:
        assert r["status"] == "ok" and r["correct"], r
        c = r["config"]
        assert (c["kind"], c["sources"], c["dests"], c["factor"], c["hosts"]) == \
            ("multinode", 3, 4, 0.25, 8)
        assert r["t_s"]["n"] == 2 and len(r["samples_s"]) == 2
        assert 0 < r["t_s"]["min"] <= r["t_s"]["median"] <= r["t_s"]["max"]
        assert isinstance(r["fidelity"]["flags"], list)  # the monitor judged every point
        assert r["link_rate"]["mbit"] == 100 and r["run"]["versions"]
    assert "3 sources, hot-spot factor p 0.25" in out.stdout
    assert "U-torus / partitioned-balanced" in out.stdout or recs[1]["fidelity"]["flags"] \
        or recs[0]["fidelity"]["flags"]  # a gain is only said from unflagged points
    for name in ("summary.csv", "report.html", "plots/multinode.png"):
        assert (folder / name).is_file(), name
    # the last point lost (as a run killed before writing it): resume measures it alone
    kept = (folder / "records.jsonl").read_text().splitlines(keepends=True)[0]
    (folder / "records.jsonl").write_text(kept)
    again = subprocess.run([*MCASTLAB, "experiment", "--resume", str(folder)],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "2 points (1 already done)" in again.stderr
    assert "1 point(s): 3 sources x 4 destinations" in again.stderr
    recs2 = _records(folder)
    assert recs2[0] == recs[0]
    assert [r["config"]["algorithm"] for r in recs2] == ["u-torus", "partitioned-balanced"]
    assert recs2[1]["status"] == "ok" and recs2[1]["samples_s"] != recs[1]["samples_s"]
