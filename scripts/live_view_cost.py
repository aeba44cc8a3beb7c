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

    sudo PYTHONPATH=. .venv/bin/python scripts/live_view_cost.py OUT [PAIRS] [--reprobe]

(--reprobe: each run probes its operating point again, as a first run does, instead of
taking the cache's: whether the view changes the rate the probe chooses.)

(MCASTLAB=PATH: the mcastlab to run, e.g. another checkout's .venv/bin/mcastlab.)
`live_view_cost.py --read OUT...`: the summary of earlier calls' folders, nothing run.
"""
from __future__ import annotations

import contextlib
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

from scripts.live_view_figures import cpu_by_pid
from testbed.report.text_report import flagged
from tests.integration.test_live_view import browser, shown

MCASTLAB = os.environ.get("MCASTLAB", "/usr/local/sbin/mcastlab")  # or a checkout's own
URL = re.compile(r"live view: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)")
SAMPLE_S = 0.5
PARTS = {"server": "testbed.live.server", "chromium": "chromium", "controller": "-m controller"}


class Sampler:
    """CPU seconds per second of each part over a run whose processes come and go (a
    controller per network): each process's last reading, every SAMPLE_S, summed; a
    process already running at the start counts from its first reading."""

    def __init__(self, parts: dict[str, str]) -> None:
        self.parts = parts
        self.first = {k: cpu_by_pid(m) for k, m in parts.items()}
        self.last = {k: dict(v) for k, v in self.first.items()}
        self.t0 = time.monotonic()

    def sample(self) -> None:
        for k, m in self.parts.items():
            self.last[k].update(cpu_by_pid(m))

    def rates(self) -> dict[str, float]:
        took = time.monotonic() - self.t0
        return {k: round((sum(self.last[k].values()) - sum(self.first[k].values())) / took, 4)
                for k in self.parts}


def run(out: Path, web: bool, reprobe: bool) -> dict[str, Any]:
    """One `mcastlab testbed` into a folder of its own under `out` (`reprobe`: the default
    spec with the operating point probed again, not taken from the cache); with `web`, the
    page open in Chromium from the URL's line until the run ends."""
    out.mkdir(parents=True, exist_ok=True)
    what = (["experiment", str(Path("experiments/default.toml").resolve()), "--reprobe"]
            if reprobe else ["testbed"])  # the script runs from its checkout
    argv = [MCASTLAB, *what, "--out", str(out), *(["--web"] if web else [])]
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
    sampler = Sampler(PARTS if web else {"controller": PARTS["controller"]})
    with contextlib.ExitStack() as stack:
        if web:
            if not found.wait(120):
                proc.kill()
                raise SystemExit("no live view URL said:\n" + "".join(lines[-20:]))
            url = URL.search("".join(lines))[1]  # type: ignore[index]
            driver = stack.enter_context(browser())
            driver.get(url)
            shown(driver, '#view svg g.node[data-name="h0"]', 30.0)
        while proc.poll() is None:
            sampler.sample()
            time.sleep(SAMPLE_S)  # the page polls on its own; this samples the CPU
    code = proc.wait()
    reader.join(5)
    if code != 0:
        raise SystemExit(f"mcastlab exited {code}:\n" + "".join(lines[-20:]))
    folder = max(out.glob("*-exp-default"), key=lambda p: p.stat().st_mtime)
    recs = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines() if x]
    config = json.loads((folder / "config.json").read_text())
    return {"web": web, "folder": str(folder), "seconds": round(time.monotonic() - start, 1),
            "link_rate": config.get("link_rate"), "cpu_s_per_s": sampler.rates(),
            "records": recs}


def point(r: dict[str, Any]) -> str:
    c = r["config"]
    return f"{c['algorithm']} {c['size']} B {c['hosts']} hosts"


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Flags and medians per point, compared only between runs at the same link rate (a
    probe may choose another rate for another run)."""
    table: dict[str, dict[str, Any]] = {}
    for r in runs:
        side = "web" if r["web"] else "plain"
        for rec in r["records"]:
            name = f"{point(rec)} at {rec['config']['link_mbit']:g} Mbit/s"
            row = table.setdefault(name, {"web": [], "plain": [], "web_flagged": 0,
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
    return {
        "runs_with_web": sum(r["web"] for r in runs),
        "runs_without_web": sum(not r["web"] for r in runs),
        "rates_chosen": {side: [(r["link_rate"] or {}).get("mbit") for r in runs
                                if r["web"] == (side == "web")] for side in ("web", "plain")},
        "points": len(table),
        "flagged_with_web": sum(row["web_flagged"] for row in table.values()),
        "flagged_without_web": sum(row["plain_flagged"] for row in table.values()),
        "points_flagged_more_often_with_web": newly,
        "median_ratio_web_to_plain":
            round(statistics.median(ratios.values()), 3) if ratios else None,
        "ratio_range": [min(ratios.values()), max(ratios.values())] if ratios else None,
        "ratios": ratios,
        "runs": [{k: v for k, v in r.items() if k != "records"} for r in runs]}


def read(out: Path) -> list[dict[str, Any]]:
    """The runs an earlier call wrote under `out` (its N-web and N-plain folders)."""
    runs = []
    for folder in sorted(out.glob("*-*/*-exp-default")):
        config = json.loads((folder / "config.json").read_text())
        runs.append({"web": folder.parent.name.endswith("-web"), "folder": str(folder),
                     "link_rate": config.get("link_rate"),
                     "records": [json.loads(x) for x in
                                 (folder / "records.jsonl").read_text().splitlines() if x]})
    return runs


def main(out: Path, pairs: int, reprobe: bool) -> None:
    runs = []
    for i in range(pairs):
        for web in ((True, False) if i % 2 == 0 else (False, True)):
            print(f"pair {i + 1}/{pairs}: {'with' if web else 'without'} --web",
                  file=sys.stderr, flush=True)
            runs.append(run(out / f"{i}-{'web' if web else 'plain'}", web, reprobe))
    print(json.dumps(summary(runs), indent=1))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--read" in sys.argv:  # the summary of earlier runs' folders, none run
        print(json.dumps(summary([r for d in args for r in read(Path(d))]), indent=1))
    else:
        main(Path(args[0]), int(args[1]) if len(args) > 1 else 3, "--reprobe" in sys.argv)
