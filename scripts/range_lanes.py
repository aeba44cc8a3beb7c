"""Strict contiguous mode's port rule measured: on one switch, one range multicast alone,
two with disjoint receivers (h0 to node 1, h2 to node 3) and two sharing h2's port (h0 to
nodes 1-2, h3 to node 2), each sender bursting 300 datagrams of 1400 B, timed from its start
to the last datagram's kernel receive stamp (tests/integration/test_contiguous.py's
`bursts`); TRIALS rounds, then the medians relative to one alone.

    sudo .venv/bin/python -m scripts.range_lanes star:hosts=4,bw=20 contiguous-strict 5

(from the checkout: `-m` puts it on the path, for `tests`)
"""
import statistics
import sys
import tempfile
from pathlib import Path

from controller.config import ControllerConfig
from controller.ranges import range_group
from testbed.emulation.network import Emulation
from tests.integration.test_contiguous import bursts
from topologies import parse_spec

COUNT = 300  # datagrams a burst
spec, mode, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
g1, g3, g12, g22 = (range_group(a, b) for a, b in ((1, 1), (3, 3), (1, 2), (2, 2)))
rows: dict[str, list[float]] = {"disjoint": [], "shared port (h2)": [], "other port (h1)": []}
alone_s = []
with tempfile.TemporaryDirectory() as tmp, \
        Emulation(parse_spec(spec), controller_config=ControllerConfig(mode=mode)) as emu:
    for t in range(trials):
        d = Path(tmp) / str(t)
        d.mkdir()
        s, got, _ = bursts(emu, d, [("h0", g1)], {"h1": [g1]}, COUNT)
        alone = got["h1"][g1][2] - s[g1]
        sd, got, lane = bursts(emu, d, [("h0", g1), ("h2", g3)], {"h1": [g1], "h3": [g3]},
                                COUNT)
        side = max(got["h1"][g1][2] - sd[g1], got["h3"][g3][2] - sd[g3])
        lost = 2 * COUNT - got["h1"][g1][0] - got["h3"][g3][0]
        s, got2, lane2 = bursts(emu, d, [("h0", g12), ("h3", g22)],
                                {"h1": [g12], "h2": [g12, g22]}, COUNT)
        shared = max(got2["h2"][g][2] - s[g] for g in (g12, g22))
        other = got2["h1"][g12][2] - s[g12]
        lost += 3 * COUNT - got2["h1"][g12][0] - got2["h2"][g12][0] - got2["h2"][g22][0]
        alone_s.append(alone)
        for k, v in zip(rows, (side, shared, other), strict=True):
            rows[k].append(v / alone)
        apart = max(abs(s[g12] - s[g22]), abs(sd[g1] - sd[g3]))
        print(f"trial {t}: alone {alone:.3f} s; disjoint {side / alone:.2f} x; sharing a port: "
              f"h2 {shared / alone:.2f} x, h1 {other / alone:.2f} x; {lost} lost; starts "
              f"apart at most {apart * 1e3:.1f} ms; s1's lane classes (sent, dropped): "
              f"{lane} {lane2}", flush=True)
print(f"one alone: median {statistics.median(alone_s):.3f} s")
for k, v in rows.items():
    print(f"{k}: median {statistics.median(v):.2f} x one alone ({min(v):.2f}-{max(v):.2f})")
