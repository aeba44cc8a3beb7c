"""Broadcast, barrier and allgather over IP multicast through the controller's groups.

- Hsiang Ann Chen, Yvette O. Carrasco, Amy W. Apon, "MPI Collective Operations over IP
  Multicast", IPDPS 2000 Workshops [Chen2000]: scout-linear, scout-binary, the multicast
  barrier, the frame counts.
- Christian Siebert, *Efficient Broadcast for Multicast-Capable Interconnection Networks*,
  diploma thesis, Chemnitz University of Technology, 2006 [Siebert2006]: two-stage, the
  datagram's CRC, the group and port choice.
- nack: ours (docs/reliable-multicast.md gives the source of each choice: NORM, UFTP, UCC).
- the allgathers (issue 39, docs/allgather-multicast.md): p nack broadcasts in turn, or
  every rank's block at once with nack's repair serving all senders (ours).

    [Chen2000]     3.1 scouts, binary and linear            bcast, plans (scout trees)
                   3.1 frames per broadcast                 plans (counts)
                   3.2 the multicast barrier                barrier
    [Siebert2006]  3.2 two stages: unreliable, completion   bcast
                   3.2.1 the datagram, its CRC-32           datagram
                   3.5 the crossover rules (coll_ipmc)      plans (two_stage_dispatch)
                   1.7.2 group and port per communicator    groups
    nack           reports, repair, end markers             nack
                   parity repair (Reed-Solomon, zfec)       parity
                   the pace, the group round trip           rate, grtt
                   what a broadcast's repair cost           accounting
    allgather      sequential, concurrent                   allgather, concurrent
                   one report for all senders               gapreport
                   a paced queue, never blocking            pacer
    all            a communicator's sockets and group       channel
                   a message assembled from datagrams       message
                   deadlines and naps                       deadline
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from .accounting import joined
    from .acktree import ACKS, DEFAULT_FANOUT
    from .datagram import DATA, KEY_SIZE, Codec
    from .groups import (
        SIEBERT_ADDRESSES,
        SIEBERT_PAIRS,
        SIEBERT_PORTS,
        collision_probability,
        group_dir,
    )
    from .plans import mcast_barrier_messages, mpich_barrier_messages, scout_frames, tree_frames
    from .rounds import expected_mean
    from .sockbuf import describe as rcvbuf_line

__all__ = ["ACKS", "Codec", "DATA", "DEFAULT_FANOUT", "KEY_SIZE", "SIEBERT_ADDRESSES",
           "SIEBERT_PAIRS", "SIEBERT_PORTS", "collision_probability", "expected_mean",
           "group_dir", "joined", "mcast_barrier_messages", "mpich_barrier_messages",
           "rcvbuf_line", "scout_frames", "tree_frames"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
