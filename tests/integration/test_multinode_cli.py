"""`mcastlab multinode` on the real stack: Tseng2001's multi-node multicast on a small torus
with drawn sets, each scheme's row with its delivery, plan, fidelity flags and the link rate
it ran at; then on a small mesh with sets given by hand (by name and number), where the
direct scheme is U-mesh and every byte still arrives."""

from __future__ import annotations

import json
import subprocess

from .conftest import MCASTLAB


def _multinode(*argv: str) -> dict:
    out = subprocess.run([*MCASTLAB, "multinode", "--bw", "100", "--json", *argv],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_multinode_measures_every_scheme_on_a_torus_and_a_mesh(caps, clean_after):
    res = _multinode("--topo", "torus:rows=2,cols=4", "--sources", "3", "--dests", "4",
                     "--size", "0,4096", "--repetitions", "2")
    assert res["torus"] == [2, 4] and (res["sources"], res["dests"]) == (3, 4)
    assert res["link_rate"]["mbit"] == 100
    assert len(res["sets"]) == 3 and all(len(d) == 4 for _, d in res["sets"])  # drawn
    rows = res["rows"]
    assert {(r["scheme"], r["size"]) for r in rows} == {
        (s, b) for s in ("u-torus", "partitioned-random", "partitioned-balanced")
        for b in (0, 4096)}
    for r in rows:
        assert r["correct"], r
        assert r["reps"] == 2 and 0 < r["t_s"]["min"] <= r["t_s"]["median"] <= r["t_s"]["max"]
        assert isinstance(r["fidelity"]["flags"], list)  # the monitor judged every row
        assert r["steps"] >= 1
    # a mesh, the sets by hand: one size, one run of each scheme
    res = _multinode("--topo", "mesh:rows=2,cols=4", "--sets", "h0:1,2,h5;3:h4,6,7;6:0,1,3",
                     "--size", "4096", "--repetitions", "1")
    assert res["mesh"] == [2, 4] and res["given"] and res["factor"] is None
    assert res["sets"] == [[0, [1, 2, 5]], [3, [4, 6, 7]], [6, [0, 1, 3]]]
    assert [r["scheme"] for r in res["rows"]] == ["u-mesh", "partitioned-random",
                                                  "partitioned-balanced"]
    assert all(r["correct"] and r["size"] == 4096 for r in res["rows"]), res["rows"]
