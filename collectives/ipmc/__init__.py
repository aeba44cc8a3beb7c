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
