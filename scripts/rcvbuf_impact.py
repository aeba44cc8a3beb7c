"""The papers' multicast broadcasts (two-stage, scout-linear, scout-binary) with the kernel's
default receive buffer (rcvbuf=0, their default) against 32 MiB, root last (bcast_bench's
own order: the receivers wait in the call), 64 KiB and 1 MiB on an 8-host star at BW Mbit/s,
5 timed broadcasts after 1 warm-up a job; one JSON line a job: median and p90 ms, the buffer
got, the datagrams the full buffers dropped and the fragments repaired a broadcast, and
two-stage's share by multicast. No fidelity monitor: above the calibrated rate the figures
say what the hosts' software could not keep up with (docs/ip-multicast.md#receive-buffers).

    sudo .venv/bin/python scripts/rcvbuf_impact.py 10      # BW, default 10
"""
import json
import sys

from collectives.call import BcastCall
from testbed.emulation.environment import detect
from testbed.emulation.network import Emulation
from testbed.measure.bcast import run_bcast
from testbed.measure.options import RunOptions
from topologies import parse_spec

BW = sys.argv[1] if len(sys.argv) > 1 else "10"
TIMED = 5

with Emulation(parse_spec(f"star:hosts=8,bw={BW}"), caps=detect()) as emu:
    for size in (65536, 1 << 20):
        for alg in ("two-stage", "scout-linear", "scout-binary"):
            for rcvbuf in (0, 32 << 20):
                r = run_bcast(emu, BcastCall(alg, size, options={"rcvbuf": rcvbuf}),
                              RunOptions(repetitions=TIMED, warmup=1, flow=False))
                d = r.datagrams or {}
                buf = d.get("rcvbuf") or {}
                print(json.dumps({
                    "algorithm": alg, "size": size, "rcvbuf": rcvbuf,
                    "ms": r.t_mcast.median * 1e3, "p90_ms": r.t_mcast.p90 * 1e3,
                    "got": buf.get("got"),
                    "dropped_per_bcast": (buf.get("drops") or 0) / TIMED,
                    "repaired_per_bcast": d.get("per_broadcast", {}).get("repaired"),
                    "multicast_first": (d.get("repair_rounds") or {}).get("multicast_first")}),
                    flush=True)
