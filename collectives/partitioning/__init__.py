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

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from .grid import GRIDS, Grid, Torus
    from .hotspot_sets import HOT_SPOT_FACTORS, hotspot_multicasts
    from .plans import DIRECT, DIRECT_MESH, TITLES
    from .report_scale import SCHEMES as TSENG2001_SCHEMES
    from .report_scale import TSENG2001, Workload, costs, latency_us, tseng2001_model
    from .schemes import BY_NAME, SCHEME_NAMES, SCHEMES, plan_for, scheme_name, scheme_names
    from .sets import FORM, Pairs, parse_sets, sets_of_mapping, sets_text
    from .step_model import plan_cost

__all__ = ["BY_NAME", "DIRECT", "DIRECT_MESH", "FORM", "GRIDS", "Grid", "HOT_SPOT_FACTORS",
           "Pairs", "SCHEMES", "SCHEME_NAMES", "TITLES", "TSENG2001", "TSENG2001_SCHEMES",
           "Torus", "Workload", "costs", "hotspot_multicasts", "latency_us", "parse_sets",
           "plan_cost", "plan_for", "scheme_name", "scheme_names", "sets_of_mapping",
           "sets_text", "tseng2001_model"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
