"""testbed.bench.scale without a network: its table, and the probe's process start time."""

import subprocess
import sys
import time

from collectives.programs.startup_probe import started_at
from testbed.bench.scale import markdown, ovs_rss_mib


def test_a_process_start_is_read_from_the_kernel() -> None:
    before = time.time()
    out = subprocess.run([sys.executable, "-c", "from collectives.programs.startup_probe "
                          "import started_at; print(started_at())"],
                         capture_output=True, text=True, check=True).stdout
    after = time.time()
    # the boot time is in whole seconds: the start is known to a second
    assert before - 1.0 <= float(out) <= after + 1.0
    assert started_at() <= before  # this process began before it asked


def test_the_table_says_each_limit_and_what_is_not_calibrated() -> None:
    row = {"hosts": 64, "cores": 2, "cores_per_rank": 2 / 64, "network_start_s": 30.5,
           "network_stop_s": 4.2, "ovs_rss_mib": {"before": 450.0, "with_network": 5000.0},
           "envelope_mbit": None, "job_s": 25.0, "all_past_barrier_s": 24.0,
           "first_host_sent_mib": 16.3,
           "start_to_init_s": {"median": 9.5, "max": 20.1},
           "init_to_barrier_s": {"median": 1.0, "max": 2.0},
           "rank_cpu_s": {"median": 0.61, "max": 0.9},
           "rank_rss_mib": {"median": 33.2, "max": 35.0}}
    lines = markdown({"link_mbit": 2, "rows": [row, row | {"hosts": 32, "envelope_mbit": 3.0}]})
    assert "Stars at 2 Mbit/s" in lines[1]
    cells = [c.strip() for c in lines[-2].split("|")[1:-1]]
    assert cells == ["64", "0.031", "30.5", "4.2", "25.0", "24.0", "16.3", "9.50 (20.10)",
                     "0.61 (0.90)", "33 (35)", "450 / 5000", "not calibrated"]
    assert lines[-1].split("|")[-2].strip() == "3"


def test_open_vswitch_memory_is_a_number_or_none() -> None:
    rss = ovs_rss_mib()
    assert rss is None or rss > 0
