"""Contention-aware broadcast trees on meshes, tori and BMINs: trees placed in the order of
the network's routing, so that no two sends under way at once share a link.

[Nupairoj1998], chapter 5 (docs/references.md):

    5.2      OPT-Mesh (U-Mesh, U-Torus the baselines)       trees
    5.3      OPT-Min on a BMIN with turnaround routing      trees
             the trees as broadcast schedules               schedules
             (OPT-Tree's table and a schedule's data: collectives.opttree, collectives.ops;
             collectives.trees builds these trees through schedules and splits their
             chains in DYN-Tree: trees/ stands on contention/, which imports nothing of it)
             (where the ranks sit on the emulated network: testbed.measure.rank_placement)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from .schedules import Timed, contended_pairs, timed_sends
    from .trees import opt_mesh, opt_min, u_mesh

__all__ = ["Timed", "contended_pairs", "opt_mesh", "opt_min", "timed_sends", "u_mesh"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
