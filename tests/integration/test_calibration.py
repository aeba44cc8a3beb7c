"""Link rate `auto` on the real stack: a bare shape is calibrated on this machine (probes on
a real network), the rate is recorded with its dilation, the cache answers the next run.
(That a cache made on another machine is redone is the cache's rule, tested without a
network in tests/unit/testbed/experiments/test_calibration.py; its run here took 10 s of
make test.)"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from testbed.experiments import calibration

from .conftest import MCASTLAB


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("calibration-cache")


def bcast(cache: Path) -> tuple[dict, str, float]:
    """A broadcast on a bare 2-host star (calibrated at its first run: the smallest network,
    well inside this machine's envelope at 100 Mbit/s, so one rung; 3 hosts sat at its edge
    once frames were shaped one by one and took 4 rungs, 39 s, in one run of 3)."""
    t0 = time.monotonic()
    out = subprocess.run([*MCASTLAB, "bcast", "--topo", "star", "--hosts", "2", "--algo",
                          "binomial", "--size", "4096", "--repetitions", "3", "--no-flow",
                          "--frames", "0", "--json"], capture_output=True, text=True,
                         timeout=600, env={**os.environ, calibration.CACHE_ENV: str(cache)})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), out.stderr, time.monotonic() - t0


@pytest.mark.every_figure_format  # the experiment's report: its plots in every format
def test_auto_calibrates_records_and_reuses(cache_dir: Path, tmp_path: Path, caps,
                                           clean_after) -> None:
    """A bare 2-host star's broadcast calibrates it and records the rate with its dilation;
    the next run on that shape, an experiment spec's, takes the rate from the cache and
    records it in its config and in every record. (A second broadcast answered by the cache,
    before the experiment, made the same point for another network's 4 s.) The experiment's
    report is the end-to-end run's whose plots are checked in every format (PNG, SVG, PDF):
    its two plots cost 2 s of it; the small spec's six in test_experiment took 9 s."""
    res, err, _ = bcast(cache_dir)
    assert "calibrating star with 2 hosts" in err
    rate = res["link_rate"]
    assert rate["auto"] and rate["source"] == "calibrated now" and rate["nominal_mbit"] == 100
    assert 0 < rate["mbit"] <= 100 and rate["dilation"] == pytest.approx(100 / rate["mbit"])
    units = res["t_mcast_units"]
    wire = 4096 * 8 / (rate["mbit"] * 1e6)
    assert units["per_wire_time"] == pytest.approx(res["t_mcast_s"]["median"] / wire)
    entry = json.loads((cache_dir / "calibration.json").read_text())
    (key, found), = entry["entries"].items()
    assert key.startswith("star/2h/") and found["mbit"] == rate["mbit"]
    passed = [v for v in found["tried"] if v["ok"]]
    assert passed and max(v["mbit"] for v in passed) == rate["mbit"]
    for v in passed:  # the figures behind a pass are real measurements
        assert v["figures"]["tree"]["ms"] > 0 and v["figures"]["mcast"]["lost"] == 0
        assert v["figures"]["worst_link_ratio"] >= calibration.LINK_MIN

    spec = tmp_path / "auto.toml"
    spec.write_text('name = "auto"\nrepetitions = 2\nwarmup = 1\n[network]\n'
                    'topology = "star:hosts=2"\n[sweep]\nalgorithms = ["binomial"]\n'
                    'sizes = [1024]\n')
    out = subprocess.run([*MCASTLAB, "experiment", str(spec), "--out", str(tmp_path / "res")],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, calibration.CACHE_ENV: str(cache_dir)})
    assert out.returncode == 0, out.stderr
    assert "calibrating" not in out.stderr
    folder, = (tmp_path / "res").iterdir()
    config = json.loads((folder / "config.json").read_text())
    again = config["link_rate"]
    assert again["auto"] and again["source"] == "calibration cache", again
    assert again["mbit"] == rate["mbit"]
    rec = json.loads((folder / "records.jsonl").read_text().splitlines()[0])
    assert rec["link_rate"] == again
    assert rec["config"]["link_mbit"] == again["mbit"]
    assert rec["t_mcast_units"]["per_wire_time"] > 0
    pngs = list((folder / "plots").glob("*.png"))
    assert pngs and all(p.with_suffix(f".{f}").stat().st_size > 0 for p in pngs
                        for f in ("svg", "pdf"))  # every plot as SVG and PDF too


def test_calibrate_refuses_what_it_cannot_do(cache_dir: Path) -> None:
    env = {**os.environ, calibration.CACHE_ENV: str(cache_dir)}
    for args, needle in ((["--host-counts", "4", "--topo", "mesh:rows=2,cols=2"],
                          "--host-counts is a list"),
                         (["--topo", "star:hosts=1"], "at least 2 hosts"),
                         (["--topo", "star:bw=none"], "shaped host links"),
                         (["--max", "0"], "--max must be > 0")):
        out = subprocess.run([*MCASTLAB, "calibrate", *args], capture_output=True, text=True,
                             timeout=120, env=env)
        assert out.returncode != 0 and needle in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr
