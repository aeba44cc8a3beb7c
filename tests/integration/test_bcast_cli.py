"""`mcastlab params` and `mcastlab bcast` on the real stack: the fields the issue names."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from testbed.fidelity.flags import SWITCH_WORK_LIMIT

from .conftest import MCASTLAB


def run_json(*args: str) -> dict:
    out = subprocess.run([*MCASTLAB, *args, "--json"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_params_measures_hold_and_end_times_as_a_broadcast_uses_them(caps, clean_after):
    # 512 KiB per timed run (8 round trips of 64 KiB, not the default 8 MiB's 128): the same
    # fields and bounds (t_hold comes from its own rounds of sends, which the budget does not
    # set; t_end is the median of 3 runs either way). Most of the test's time is 64 KiB's
    # dummy loop, 27 runs of 3 round trips at least (k / 4, 4 at 1 MiB, which took 3 s more)
    # 30 Mbit/s: a frame (0.41 ms) outlasts the sender's gap between two messages, so the
    # link's bucket never refills in it; at 100 Mbit/s (0.12 ms a frame) it did, each message
    # let its first frames out free, and 3 sends came to 0.95 x their wire time (1 run in 6)
    res = run_json("params", "--topo", "star", "--hosts", "4", "--bw", "30",
                   "--sizes", "1,65536", "--repetitions", "3", "--budget-bytes", str(1 << 19))
    assert res["sizes"] == [1, 65536] and res["hosts"][:2] == ["h0", "h1"]
    # every host present; t_hold over one send to each of the 3 others, in fifo order
    assert (res["ranks"], res["hold_sends"], res["send_order"]) == (4, 3, "fifo")
    assert sorted(res["hosts"]) == ["h0", "h1", "h2", "h3"]
    hold, end = res["t_hold_s"], res["t_end_s"]
    assert all(x > 0 for x in hold + end)
    # 64 KiB is 45 full frames, 18.5 ms on the wire at 30 Mbit/s (1538 bytes each with
    # preamble, gap and FCS): t_end knows it, and a node's next send starts once the message
    # has left the host, no sooner (segmentation offload let a send count as done while
    # frames of it still waited in the link's queue: 0.67 of the wire time) and not much later
    wire = 45 * 1538 * 8 / 30e6
    assert end[1] > 0.95 * wire
    assert 0.95 * wire < hold[1] < 1.3 * wire, (hold[1], wire)
    assert hold[0] < hold[1]
    # the streaming figure is kept; a send may return sooner into socket buffers
    assert all(r <= h for r, h in zip(res["t_hold_return_s"], res["t_hold_stream_s"],
                                      strict=True))
    assert set(res["fits"]) >= {"t_hold", "t_end"}
    assert [r["m"] for r in res["system"]] == [1, 65536]


def test_bcast_reports_measured_predicted_and_verified(caps, clean_after):
    res = run_json("bcast", "--topo", "star", "--hosts", "4", "--bw", "100", "--algo", "binomial",
                   "--size", "1000", "--repetitions", "5")
    assert (res["algorithm"], res["hosts"], res["size"], res["iterations"]) == \
        ("binomial", 4, 1000, 5)
    assert res["verified"] is True
    assert 0 < res["t_mcast_s"]["p10"] <= res["t_mcast_s"]["median"] <= res["t_mcast_s"]["p90"]
    assert res["predicted_s"] > 0
    assert res["flow"]["critical"] in (1, 2, 3) and res["flow"]["t_mcast_s"] > 0
    cpu = res["cpu"]
    assert cpu["cores"] == os.cpu_count() and cpu["ranks"] == 4
    # /proc/stat counts in 10 ms ticks: 5 fast broadcasts may fit in less than one (None),
    # and with the ranks asleep while they wait the window may see no busy tick at all (0)
    assert cpu["busy"] is None or 0 <= cpu["busy"] <= 1
    assert 0 < cpu["on_cpu"] <= 1.05
    # every point carries its fidelity flags (the monitor watched this very window)
    fid = res["fidelity"]
    assert isinstance(fid["flags"], list) and fid["ok"] == (not fid["flags"])
    assert fid["window_s"] > 0
    # the switch's forwarding thread was read over that window: a 4-host star's broadcasts
    # of 1000 B leave it asleep most of the time, so the busy-switch flag does not fire
    assert fid["switch_busy"] >= 0 and fid["switch_had_work"] < SWITCH_WORK_LIMIT, fid
    dyn = run_json("bcast", "--topo", "star", "--hosts", "4", "--bw", "100", "--algo", "dyn-tree",
                   "--size", "1000", "--repetitions", "5", "--no-flow", "--frames", "0")
    assert dyn["verified"] is True and dyn["predicted_s"] > 0  # OPT-Tree's, at zero load
    # a sweep of host counts: one network (the largest), one rate, a run per count
    swept = run_json("bcast", "--topo", "star", "--hosts", "2,4", "--bw", "100", "--algo",
                     "mpich", "--size", "1000", "--repetitions", "5", "--no-flow")
    assert swept["hosts"] == [2, 4] and [r["hosts"] for r in swept["runs"]] == [2, 4]
    for native in swept["runs"]:
        assert native["verified"] is True and native["predicted_s"] is None
        assert native["topology"] == "star-4" and native["link_rate"] == swept["link_rate"]
        assert isinstance(native["fidelity"]["flags"], list)
        # where the wall time went: the network's up and teardown are shared by the counts
        ttr = native["time_to_result"]
        assert ttr["network_up_s"] > 0 and ttr["teardown_s"] > 0 and ttr["params_s"] is None
        assert 0 < ttr["job_start_s"] < ttr["job_s"] and 0 < ttr["measuring_s"] < ttr["job_s"]
        assert ttr["job_start_s"] + ttr["measuring_s"] + ttr["job_end_s"] == \
            pytest.approx(ttr["job_s"])
    assert len({r["time_to_result"]["network_up_s"] for r in swept["runs"]}) == 1
    # or a star of each count, each with its own record of its rate
    each = run_json("bcast", "--topo", "star", "--hosts", "2,3", "--bw", "100", "--networks",
                    "each", "--algo", "mpich", "--size", "1000", "--repetitions", "3",
                    "--no-flow", "--frames", "0")
    assert each["networks"] == "each" and "link_rate" not in each
    assert [(r["hosts"], r["topology"]) for r in each["runs"]] == [(2, "star-2"), (3, "star-3")]
    assert all(r["verified"] and r["link_rate"]["mbit"] == 100 for r in each["runs"])


def test_multicast_bcast_under_loss_reports_frames_and_datagrams(caps, clean_after):
    res = run_json("bcast", "--topo", "star", "--hosts", "4", "--bw", "100", "--algo", "nack",
                   "--size", "20000", "--repetitions", "10", "--loss", "0.2",
                   "--loss-scope", "multicast", "--frames", "10")
    assert res["verified"] is True and res["loss"] == 0.2 and res["loss_scope"] == "multicast"
    assert res["flow"] is None  # skipped under loss unless asked for (--flow)
    d = res["datagrams"]["per_broadcast"]
    # 14 fragments of 1444 B, and repairs: the lost ones were made good
    assert d["sent"] >= 14 and d["repaired"] > 0 and d["rejected"] == 0
    # every data datagram crosses the root's link once: at least 14 frames per broadcast
    # sent by hosts, and each reaches 3 hosts (less what the loss took)
    assert res["frames"]["sent"] >= 14 and res["frames"]["delivered"] >= 14


def test_bcast_refuses_an_impossible_loss():
    out = subprocess.run([*MCASTLAB, "bcast", "--topo", "star", "--hosts", "2", "--bw", "100",
                          "--algo", "nack", "--size", "10", "--loss", "5"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        "mcastlab bcast: error: argument --loss: '5' (500% of the packets) is not a fraction "
        "in [0, 1]; write 0.05 or 5% for five percent")


def test_bcast_on_a_mesh_prints_the_busiest_links(caps, clean_after):
    """A network-aware tree by name on a mesh; the text report names the links that carried
    the message most: the root's own link carries one copy per child (1 to 3)."""
    out = subprocess.run([*MCASTLAB, "bcast", "--topo", "mesh:rows=2,cols=2,bw=100", "--algo",
                          "opt-mesh", "--size", "20000", "--repetitions", "3", "--no-flow",
                          "--frames", "2"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if "busiest links" in ln)
    links = dict(item.rsplit(" ", 1) for item in line.split(": ", 1)[1].split(", "))
    assert links and all(">" in name for name in links)
    assert 1.0 <= max(float(c) for c in links.values()) < 3.5, line
    assert "verified True" in out.stdout


def test_bcast_takes_lists_suffixes_and_mininets_spelling(caps, clean_after, tmp_path):
    """Issue 54: --algo and --size take lists with binary suffixes (each call measured in
    turn on one network), Mininet's single,3 is our star of 3, --out keeps the JSON, and a
    pipe gets one progress line per step."""
    out = subprocess.run([*MCASTLAB, "bcast", "--topo", "single,3", "--bw", "100", "--algo",
                          "binomial,mpich", "--size", "1K,2KiB", "--repetitions", "3",
                          "--no-flow", "--frames", "0", "--json", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert [(r["algorithm"], r["size"]) for r in res["runs"]] == [
        ("binomial", 1024), ("binomial", 2048), ("mpich", 1024), ("mpich", 2048)]
    assert all(r["verified"] and r["topology"] == "star-3" and r["hosts"] == 3
               for r in res["runs"])
    # the model's t_hold/t_end once per size, for binomial only (MPI_Bcast needs none)
    params = [r["time_to_result"]["params_s"] for r in res["runs"]]
    assert params[0] > 0 and params[1] > 0 and params[2:] == [None, None]
    kept = list(tmp_path.glob("bcast-*/result.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == res
    assert "[1/4] done; now: binomial 2 KiB on 3 hosts (" in out.stderr
    assert "[4/4] done (" in out.stderr
