"""The default experiment of ``sudo make testbed``: bring up the default cluster (8 hosts on
one switch, 100 Mbit/s links, under the project's controller), measure MPI point-to-point
latency and bandwidth between rank 0 and every other rank, write a results folder.

Later issues extend it with the collectives; the command stays.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from collectives.programs import pingpong
from topologies import Topology, parse_spec

from .. import results
from ..emulation.environment import detected
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..errors import renamed_keyword

DEFAULT_TOPOLOGY = "star:hosts=8"  # at the calibrated rate, as every command's bare shapes


def run(topo_spec: str | Topology = DEFAULT_TOPOLOGY, *, out_root: Path | None = None,
        repetitions: int = 50, bw_bytes: int = 1 << 20, timeout: float = 300.0,
        progress: Progress = print, link_rate: dict[str, Any] | None = None,
        reps: int | None = None, loss: float = 0.0) -> Path:
    """The ping-pong on `topo_spec` (text, or a topology the caller resolved, e.g. at the
    calibrated rate: `link_rate` is its LinkRate record, kept in config.json); `loss`: that
    fraction of the packets dropped each way on every host link."""
    repetitions = renamed_keyword(reps, "reps", repetitions, "repetitions")
    topo: Topology = parse_spec(topo_spec) if isinstance(topo_spec, str) else topo_spec
    caps = detected()
    caps.require()
    out = results.new_results_dir(f"pingpong-{topo.name}", out_root)
    config: dict[str, Any] = {
        "experiment": "pingpong",
        "topology_spec": topo_spec if isinstance(topo_spec, str) else topo.name,
        "link_rate": link_rate,
        "topology": topo.to_dict(),
        "reps": repetitions, "lat_bytes": 1, "bw_bytes": bw_bytes, "loss": loss,
        "capabilities": caps.to_dict(),
        "versions": results.versions(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    results.write_json(out / "config.json", config)
    records_file = out / "records.jsonl"
    with Emulation(topo, caps=caps, progress=progress) as emu:
        config["network_start_s"] = round(emu.timings["ready_s"], 3)
        if loss:
            emu.set_loss(loss)
        progress(f"running MPI ping-pong on {len(topo.hosts)} ranks")
        job = run_mpi(emu, pingpong.argv(out=records_file.resolve(), reps=repetitions,
                                          bw_bytes=bw_bytes), timeout=timeout)
        config["mpi_elapsed_s"] = round(job.elapsed_s, 3)
        (out / "controller.log").write_text(
            (emu.run_dir / "controller.log").read_text(errors="replace"))
    config["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    results.write_json(out / "config.json", config)
    write_summary(out, config, results.read_jsonl(records_file))
    return out


def write_summary(out: Path, config: dict[str, Any], records: list[dict[str, Any]]) -> None:
    header = ["pair", "hosts", "latency us (median)", "p10", "p90",
              "bandwidth Mbit/s (median)", "of link rate"]
    link_bw = config["topology"]["links"][0]["params"].get("bw_mbit") if records else None
    rows = []
    for r in records:
        lat, bw = r["latency_us"], r["bandwidth_mbit"]
        rows.append([f"0->{r['dst']}", f"{r['src_host']}->{r['dst_host']}",
                     f"{lat['median']:.1f}", f"{lat['p10']:.1f}", f"{lat['p90']:.1f}",
                     f"{bw['median']:.1f}",
                     f"{bw['median'] / link_bw:.0%}" if link_bw else "-"])
    summary = {"records": len(records),
               "latency_us_median": [r["latency_us"]["median"] for r in records],
               "bandwidth_mbit_median": [r["bandwidth_mbit"]["median"] for r in records]}
    results.write_json(out / "summary.json", summary)
    title = f"MPI ping-pong, rank 0 to every rank, on {config['topology']['name']}"
    text = (f"{title}\n{results.text_table(header, rows)}\n\n"
            f"{config['reps']} round trips of {config['lat_bytes']} B (latency), "
            f"{config['bw_bytes']} B messages (bandwidth); network start "
            f"{config.get('network_start_s', '?')} s.\n")
    (out / "summary.txt").write_text(text)
    (out / "report.html").write_text(results.html_page(title, [("Ping-pong", header, rows)],
                                                       config))
