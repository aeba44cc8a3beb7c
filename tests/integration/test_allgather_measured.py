"""Allgathers measured on the real stack: `mcastlab allgather` side by side on one network
(every block verified on every rank, the floor, the model, frames on the switch ports
against the schedule's count, fidelity, the rate), and an Allgather spec through `mcastlab
experiment` (records per point, lossless and under loss, and its report)."""

from __future__ import annotations

import json
import subprocess

from .conftest import MCASTLAB


def test_allgather_side_by_side_with_frames_and_model(caps, clean_after):
    out = subprocess.run([*MCASTLAB, "allgather", "--topo", "star:hosts=5", "--bw", "100",
                          "--algo", "ring,recursive-doubling,bruck", "--size", "0,65536",
                          "--repetitions", "2", "--frames", "2", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["ranks"] == 5 and res["link_rate"]["mbit"] == 100
    rows = {(r["algorithm"], r["block"]): r for r in res["rows"]}
    assert set(rows) == {(a, b) for a in ("ring", "recursive-doubling", "bruck")
                         for b in (0, 65536)}
    for (algo, block), r in rows.items():
        assert r["verified"] and r["ranks"] == 5 and r["t_s"]["n"] == 2, r
        assert isinstance(r["fidelity"]["flags"], list)
        if block:
            assert r["floor_s"] == 4 * 65536 * 8 / 100e6
            assert r["per_floor"] > 0.9  # nobody beats the floor (the links' own shaping)
            assert r["predicted_s"] > r["floor_s"] * 0.9
            data, want = r["frames"]["data"], r["frames_expected"]
            assert abs(data - want) <= 0.02 * want, (algo, data, want)
        else:
            assert r["floor_s"] is None and r["per_floor"] is None


SPEC = """
name = "ag"
collective = "allgather"
repetitions = 2
timeout = 60  # a job takes seconds: one that hangs fails its point, with its ranks' state
[network]
topology = "star:hosts=4,bw=100"
[sweep]
algorithms = ["ring"]
sizes = [1000]
loss = [0.0, 0.05]
"""


def test_an_allgather_spec_measures_and_reports(caps, clean_after, tmp_path):
    spec = tmp_path / "ag.toml"
    spec.write_text(SPEC)
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    (folder,) = (tmp_path / "r").iterdir()
    recs = [json.loads(ln) for ln in (folder / "records.jsonl").read_text().splitlines()]
    assert sorted((r["config"]["algorithm"], r["config"]["loss"]) for r in recs) == [
        ("ring", 0.0), ("ring", 0.05)]
    for r in recs:
        assert r["status"] == "ok" and r["verified"] and len(r["samples_s"]) == 2, r
        assert r["config"]["collective"] == "allgather" and r["config"]["hosts"] == 4
        assert r["per_floor"] > 0.9 and isinstance(r["fidelity"]["flags"], list)
        # every run went at the start gun's instant (a socket every emulated host reaches),
        # the last rank's call after it
        assert r["start"] == "start gun" and len(r["entry_spread_s"]) == 2
        assert all(0 <= c <= s for c, s in zip(r["entry_spread_s"], r["samples_s"],
                                               strict=True))
    assert all(r["predicted_s"] is not None for r in recs)  # t_end measured for the model
    assert "params" in json.loads((folder / "config.json").read_text())
    assert "1000 B blocks, 4 ranks, loss 5%" in out.stdout
    assert (folder / "plots" / "allgather.png").is_file()
