"""Contention-aware broadcast trees on meshes, tori and BMINs: trees placed in the order of
the network's routing, so that no two sends under way at once share a link.

[Nupairoj1998], chapter 5 (docs/references.md):

    5.2      OPT-Mesh (U-Mesh, U-Torus the baselines)       trees
    5.3      OPT-Min on a BMIN with turnaround routing      trees
             the trees as broadcast schedules               schedules
             (OPT-Tree's table and a schedule's data: collectives.opttree, collectives.ops;
             collectives.trees builds these trees through schedules and splits their
             chains in DYN-Tree: trees/ stands on contention/, which imports nothing of it)
             (where the ranks sit on the emulated network: testbed.experiments.rank_placement)
"""
