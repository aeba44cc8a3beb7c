"""Broadcast and barrier as trees of hardware multicasts that each reach only a contiguous
range of nodes, around failed nodes.

Salvador Coll, José Duato, Fabrizio Petrini, Francisco J. Mora, "Scalable Hardware-Based
Multicast Trees", SC2003 [Coll2003] (docs/references.md):

    2-4      range multicast on a k-ary n-tree (QsNET)       kary_tree
    5.2      backward and forward routing overlaps           overlap
    5        the optimal tree (Alg. 1), the greedy (Alg. 2)  trees
             the optimal search's bounds and last step       bounds, final_step (ours)
    6        greedy vs optimal over random faults (Table 1)  trials
    6        depth against the share of faults (Fig. 7)     sensitivity
    (ours)     a tree as an executor reads it                  schedule
               run on real ranks: channel, broadcast, barrier  channel, bcast
(the controller's contiguous mode emulates the hardware: controller.ranges)
"""
