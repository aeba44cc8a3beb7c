"""Issue 55's figures for the live view, in Chromium (headless, Selenium) against
`mcastlab net --web` on a 16-host star: the time from a join at the prompt (its "hX joined
G" line: the controller lists the member and the switches confirmed the flows) to the
member ringed on the page, over 20 joins spread over 8 groups, each at a random phase of
the page's polling (median, max; also from the command written); then h0 sends to each
group, and the page is loaded again 10 times with 16 hosts and 8 groups with trees (median
and max until every node and group is drawn).
Last, the CPU the live view costs while the page stays open (idle network, CPU_WINDOW s):
CPU seconds per second of the prompt's process (the publisher thread), the server, the
controller (which answers the publisher's /groups, /failed, /ports) and Chromium, against
the prompt's process and the controller of the same network without --web. One JSON object
on standard output; a screenshot to the path given.

    sudo .venv/bin/python scripts/live_view_figures.py /tmp/live16.png
"""
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from tests.integration.test_live_view import Prompt, browser, shown

GROUPS = [f"239.1.1.{i}" for i in range(1, 9)]
CPU_WINDOW = 10.0  # s
TICK = os.sysconf("SC_CLK_TCK")


def cpu_by_pid(match: str) -> dict[int, float]:
    """User + system CPU seconds of each process whose command line holds `match`."""
    out: dict[int, float] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if match not in (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(proc.name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def cpu_seconds(match: str) -> float:
    """User + system CPU seconds of every process whose command line holds `match`."""
    return sum(cpu_by_pid(match).values())


def cpu_rates(parts: dict[str, str]) -> dict[str, float]:
    """CPU seconds per second of each part (a command-line match) over CPU_WINDOW s."""
    before = {k: cpu_seconds(m) for k, m in parts.items()}
    time.sleep(CPU_WINDOW)  # the window measured
    return {k: round((cpu_seconds(m) - before[k]) / CPU_WINDOW, 4) for k, m in parts.items()}


PARTS = {"prompt": "testbed.cli net", "controller": "-m controller"}


def main(shot: Path) -> None:
    with Prompt("--topo", "star", "--hosts", "16", "--bw", "100", "--web") as prompt:
        url = prompt.until(r"live view: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)")[1]
        prompt.until(r"is up")
        with browser() as driver:
            driver.get(url)
            shown(driver, '#view svg g.node[data-name="h15"]', 30.0)
            after_line, after_cmd = [], []
            for k in range(20):
                host, group = f"h{1 + k % 15}", GROUPS[k % 8]
                # a random phase against the page's 300 ms polls: joins made right after
                # the page showed the last one would all meet the same point of its period
                time.sleep(random.uniform(0.0, 0.3))
                sent = time.monotonic()
                prompt.say(f"join {host} {group}")
                prompt.until(rf"{host} joined {group}")
                joined = time.monotonic()
                shown(driver, f'#view svg circle.member[data-group="{group}"]'
                              f'[data-host="{host}"]', 10.0)
                after_line.append(time.monotonic() - joined)
                after_cmd.append(time.monotonic() - sent)
            for group in GROUPS:
                prompt.say(f"send h0 {group} 2")
                prompt.until(rf"h0 sent 2 datagrams to {group}")
            last = GROUPS[-1]
            shown(driver, f'#view svg line.tree[data-group="{last}"][data-source="h0"]', 5.0)
            loads = []
            for _ in range(10):
                start = time.monotonic()
                driver.get(url)
                shown(driver, f'#view svg text.legend[data-group="{last}"]', 30.0)
                loads.append(time.monotonic() - start)
            drawn = len(driver.find_elements("css selector", "#view svg g.node"))
            trees = len(driver.find_elements("css selector", "#view svg line.tree"))
            driver.save_screenshot(str(shot))
            with_web = cpu_rates({**PARTS, "server": "testbed.live.server",
                                  "chromium": "chromium"})
        prompt.exit()
    with Prompt("--topo", "star", "--hosts", "16", "--bw", "100") as prompt:
        prompt.until(r"is up")
        for k in range(20):  # the same groups, no view
            prompt.say(f"join h{1 + k % 15} {GROUPS[k % 8]}")
            prompt.until(rf"h{1 + k % 15} joined {GROUPS[k % 8]}")
        without_web = cpu_rates(PARTS)
        prompt.exit()

    def summary(xs: list[float]) -> dict[str, float]:
        return {"n": len(xs), "median_s": round(statistics.median(xs), 3),
                "max_s": round(max(xs), 3)}

    print(json.dumps({"join_to_page_after_joined_line": summary(after_line),
                      "join_to_page_after_command": summary(after_cmd),
                      "page_load_16_hosts_8_groups": summary(loads),
                      "nodes_drawn": drawn, "tree_links_drawn": trees,
                      "cpu_s_per_s_with_web": with_web,
                      "cpu_s_per_s_without_web": without_web}))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "live16.png"))
