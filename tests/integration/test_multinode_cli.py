"""`mcastlab multinode` on the real stack: Tseng2001's multi-node multicast on a small torus,
each scheme's row with its delivery, plan, fidelity flags and the link rate it ran at."""

from __future__ import annotations

import json
import subprocess

from .conftest import MCASTLAB


def test_multinode_measures_every_scheme_with_its_flags_and_rate(caps, clean_after):
    out = subprocess.run([*MCASTLAB, "multinode", "--topo", "torus:rows=2,cols=4", "--bw", "100",
                          "--sources", "3", "--dests", "4", "--size", "0,4096",
                          "--repetitions", "2", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["torus"] == [2, 4] and (res["sources"], res["dests"]) == (3, 4)
    assert res["link_rate"]["mbit"] == 100
    rows = res["rows"]
    assert {(r["scheme"], r["size"]) for r in rows} == {
        (s, b) for s in ("u-torus", "partitioned-random", "partitioned-balanced")
        for b in (0, 4096)}
    for r in rows:
        assert r["correct"], r
        assert r["reps"] == 2 and 0 < r["t_s"]["min"] <= r["t_s"]["median"] <= r["t_s"]["max"]
        assert isinstance(r["fidelity"]["flags"], list)  # the monitor judged every row
        assert r["steps"] >= 1
