"""Chen2000's barrier counts (section 3.2) on real MPI ranks: MPICH 1's three-phase barrier
(`pairwise`) and Chen's multicast barrier (`mcast`, release "multicast") put exactly the
paper's count of data frames on the wire per barrier, with TCP's pure ACKs counted apart;
the safe multicast barrier (release "both") one more point-to-point release per rank."""

from __future__ import annotations

from collectives.ipmc.plans import mcast_barrier_messages, mpich_barrier_messages
from testbed.emulation.network import Emulation
from testbed.measure.barrier import run_barriers
from testbed.measure.options import RunOptions
from topologies import parse_spec

HOSTS = 4  # pairwise 8 messages (K = 4: 4 log2 4), Chen's multicast barrier 4


def test_pairwise_and_chens_multicast_barrier_send_the_papers_messages(caps, clean_after):
    rows = [("pairwise", {}), ("mcast", {"release": "multicast"}), ("mcast", {})]
    with Emulation(parse_spec(f"star:hosts={HOSTS},bw=100"), caps=caps) as emu:
        pairwise, chen, safe = run_barriers(emu, rows,
                                            RunOptions(repetitions=5, warmup=2, frames=40))
    for r in (pairwise, chen, safe):
        assert r.released_early == 0 and r.frames is not None, r
        assert r.frames["acks"] is not None
    assert (chen.release, safe.release, pairwise.release) == ("multicast", "both", None)
    # counted over 40 back-to-back barriers: a bracket's noise is a few frames in all
    assert abs(pairwise.frames["data"] - mpich_barrier_messages(HOSTS)) < 0.25, pairwise
    assert abs(chen.frames["data"] - mcast_barrier_messages(HOSTS)) < 0.25, chen
    assert abs(safe.frames["data"] - (2 * HOSTS - 1)) < 0.25, safe
    assert chen.p2p_releases == 0  # no multicast release was lost, none made good
