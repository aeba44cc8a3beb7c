"""Point-to-point broadcast trees and the model that predicts them.

Natawut Nupairoj, *Multicast Communication: From Platform-Independent Modeling to
Platform-Dependent Tuning*, PhD dissertation, Michigan State University, 1998
[Nupairoj1998] (docs/references.md; contention-aware trees of chapter 5: collectives.contention).

    2.2-2.3  t_hold, t_end, t_send/t_net/t_recv, measured   collectives.programs.params
    3.1      the basic trees: sequential, binomial, chain   schedules (builders; the data:
                                                            collectives.ops)
    3.2-3.3  t_mcast, the flow model                        latency_model
    3.3.2    the multicast benchmark (Algorithm 3.3.2)      collectives.programs.bcast_bench
    4.2-4.5  OPT-Tree, O(k), alpha-port                     collectives.opttree
    6.1-6.2  the sender's channel, head-of-line blocking    hol
    6.3      DYN-Tree: the pure part, its executor          dyntree, dyn_bcast
    (ours)   a schedule run on MPI point-to-point           run
             a schedule as a timeline (mcastlab trees)      describe

The fragmented chain and scatter-allgather are classic baselines (the chain pipelined in
fragments is [Siebert2006]'s second stage); latency_model also gives [Siebert2006]'s LogGP maxima.

trees/ stands on contention/ (schedules builds its trees, DYN-Tree splits its chains),
never the other way: what both use, a schedule's data and OPT-Tree's table, is
collectives.ops and collectives.opttree, below both (tests/unit/test_layout.py).
"""
