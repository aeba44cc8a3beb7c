"""A tree node's send order on real MPI ranks (collectives.outqueue): in fifo order the
root's second child gets the message one wire time after the first, as Nupairoj1998's
model has it; overlapped, the two messages share the root's link and both arrive late."""

from __future__ import annotations

from testbed.emulation.network import Emulation
from testbed.experiments.bcast import run_bcast
from topologies import parse_spec

MBIT, SIZE = 10, 65536
WIRE_S = SIZE * 8 / (MBIT * 1e6)  # M/B: 52 ms of the root's link per message


def test_a_fifo_binomial_delivers_its_children_one_after_the_other(caps, clean_after):
    """Binomial on 4 ranks: the root sends to rank 2, then to rank 1; rank 2 to rank 3. The
    per-rank times (root's call to the rank holding the message, median of 5) step by
    about M/B in fifo order; overlapped, rank 2 waits for both of the root's messages."""
    with Emulation(parse_spec(f"star:hosts=4,bw={MBIT}"), caps=caps) as emu:
        fifo = run_bcast(emu, "binomial", SIZE, iters=5, flow=False)
        overlapped = run_bcast(emu, "binomial", SIZE, iters=5, flow=False,
                               send_order="overlapped")
    assert fifo["send_order"] == "fifo" and overlapped["send_order"] == "overlapped"
    assert fifo["verified"] and overlapped["verified"]
    first, second = fifo["rank_done_s"][2], fifo["rank_done_s"][1]
    assert 0.8 * WIRE_S < first < 1.5 * WIRE_S, fifo["rank_done_s"]
    assert 0.7 * WIRE_S < second - first < 1.4 * WIRE_S, fifo["rank_done_s"]
    assert overlapped["rank_done_s"][2] > 1.5 * WIRE_S, overlapped["rank_done_s"]
