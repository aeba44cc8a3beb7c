"""Multi-node multicast on a 2D torus or mesh: many sources at once, by partitioning the
network.

Yu-Chee Tseng, final report of NSC 89-2218-E-009-095, National Chiao Tung University, 2001
[Tseng2001] (docs/references.md):

    三.1-三.2  the network model, subnetworks                  grid
    三.3-三.4  DDNs and DCNs (P1-P5, Fig. 1) on the torus        grid
               (and on a mesh, which the report omits)
               U-torus (U-mesh) direct; the three partitioned
               phases, random and balanced choice of DDNs        plans
    三.3       any sources and destination sets, given by hand   sets
    三.4.4     hot-spot destination sets                         hotspot_sets
               a step model (T_s + L T_c, link sharing)          step_model
               the schemes, their names and plans (one table)    schemes
(run on real ranks: collectives.programs.multinode_bench)
"""
