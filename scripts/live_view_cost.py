"""Issue 55's third figure: what the live view costs the emulator while broadcasts run.
`mcastlab testbed` (the default experiment, `sudo make testbed` without the install) runs
PAIRS times with `--web` and a headless Chromium showing the page for the whole run, and
PAIRS times without, alternating which comes first in a pair (the machine's drift falls on
both alike). Per point (the record's key: its configuration): the runs that flagged it with
and without the view, and the ratio of its median time with the view to without; also the
CPU seconds per second of the view's parts (server, Chromium, the publisher in the run's
own process cannot be told apart from it) and of the controller, which the publisher asks
for groups and port counters. The goal: no point flagged with the view that is unflagged
without it. One JSON object on standard output; the runs' folders under OUT.

    sudo PYTHONPATH=. .venv/bin/python scripts/live_view_cost.py OUT [PAIRS]

(MCASTLAB=PATH: the mcastlab to run, e.g. another checkout's .venv/bin/mcastlab.)
"""
from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from scripts.live_view_figures import cpu_seconds
from tests.integration.test_live_view import browser, shown

MCASTLAB = os.environ.get("MCASTLAB", "/usr/local/sbin/mcastlab")  # or a checkout's own
URL = re.compile(r"live view: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)")
PARTS = {"server": "testbed.live.server", "chromium": "chromium", "controller": "-m controller"}


def run(out: Path, web: bool) -> dict[str, Any]:
    """One `mcastlab testbed` into a folder of its own under `out`; with `web`, the page
    open in Chromium from the URL's line until the run ends."""
    out.mkdir(parents=True, exist_ok=True)
    argv = [MCASTLAB, "testbed", "--out", str(out), *(["--web"] if web else [])]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if URL.search(line):
                found.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    start = time.monotonic()
    cpu: dict[str, float] = {}
    if web:
        if not found.wait(120):
            proc.kill()
            raise SystemExit("no live view URL said:\n" + "".join(lines[-20:]))
        url = URL.search("".join(lines))[1]  # type: ignore[index]
        with browser() as driver:
            driver.get(url)
            shown(driver, '#view svg g.node[data-name="h0"]', 30.0)
            before = {k: cpu_seconds(m) for k, m in PARTS.items()}
            t0 = time.monotonic()
            while proc.poll() is None:
                time.sleep(0.5)  # the page polls on its own; this only waits for the run
            took = time.monotonic() - t0
            cpu = {k: round((cpu_seconds(m) - before[k]) / took, 4)
                   for k, m in PARTS.items()}
    code = proc.wait()
    reader.join(5)
    if code != 0:
        raise SystemExit(f"mcastlab testbed exited {code}:\n" + "".join(lines[-20:]))
    folder = max(out.glob("*-exp-default"), key=lambda p: p.stat().st_mtime)
    recs = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines() if x]
    return {"web": web, "folder": str(folder), "seconds": round(time.monotonic() - start, 1),
            "cpu_s_per_s": cpu, "records": recs}


def point(r: dict[str, Any]) -> str:
    c = r["config"]
    return f"{c['algorithm']} {c['size']} B {c['hosts']} hosts"


def flagged(r: dict[str, Any]) -> bool:
    fid = r.get("fidelity") or {}
    return fid.get("ok") is False or bool(fid.get("flags"))


def main(out: Path, pairs: int) -> None:
    runs = []
    for i in range(pairs):
        for web in ((True, False) if i % 2 == 0 else (False, True)):
            print(f"pair {i + 1}/{pairs}: {'with' if web else 'without'} --web",
                  file=sys.stderr, flush=True)
            runs.append(run(out / f"{i}-{'web' if web else 'plain'}", web))
    table: dict[str, dict[str, Any]] = {}
    for r in runs:
        side = "web" if r["web"] else "plain"
        for rec in r["records"]:
            row = table.setdefault(point(rec), {"web": [], "plain": [], "web_flagged": 0,
                                                "plain_flagged": 0})
            row[f"{side}_flagged"] += flagged(rec)
            if rec.get("status") == "ok" and not flagged(rec) and rec.get("t_mcast_s"):
                row[side].append(rec["t_mcast_s"]["median"])
    ratios = {}
    for name, row in table.items():
        if row["web"] and row["plain"]:
            ratios[name] = round(statistics.median(row["web"])
                                 / statistics.median(row["plain"]), 3)
    newly = [n for n, row in table.items() if row["web_flagged"] > row["plain_flagged"]]
    print(json.dumps({
        "pairs": pairs, "points": len(table),
        "flagged_with_web": sum(row["web_flagged"] for row in table.values()),
        "flagged_without_web": sum(row["plain_flagged"] for row in table.values()),
        "points_flagged_more_often_with_web": newly,
        "median_ratio_web_to_plain":
            round(statistics.median(ratios.values()), 3) if ratios else None,
        "ratio_range": [min(ratios.values()), max(ratios.values())] if ratios else None,
        "ratios": ratios,
        "runs": [{k: v for k, v in r.items() if k != "records"} for r in runs]}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3)
