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

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from .kary_tree import KaryNTree
    from .overlap import (
        backward_overlap_level,
        capabilities,
        differences,
        first_backward_overlap,
        forward_overlap_level,
        needs,
        resolve_backward,
        split_down,
    )
    from .schedule import RangeTree
    from .sensitivity import FIG7_TRIALS, fault_sensitivity
    from .trees import SearchLimitExceeded, greedy_steps, greedy_tree, optimal_steps, optimal_tree
    from .trials import (
        DEFAULT_BUDGET,
        Cell,
        HwTreeStats,
        check_config,
        greedy_trials,
        hwtree_trials,
        run_cells,
    )

__all__ = ["Cell", "DEFAULT_BUDGET", "FIG7_TRIALS", "HwTreeStats", "KaryNTree", "RangeTree",
           "SearchLimitExceeded", "backward_overlap_level", "capabilities",
           "check_config", "differences", "fault_sensitivity", "first_backward_overlap",
           "forward_overlap_level", "greedy_steps", "greedy_tree", "greedy_trials",
           "hwtree_trials", "needs", "optimal_steps", "optimal_tree",
           "resolve_backward", "run_cells", "split_down"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
