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

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from ..ops import Schedule, Send
    from ..opttree import multiport_table, opt_children, opt_table
    from .describe import describe as describe_schedule
    from .flow import critical_destinations, flow_latencies
    from .hol import Channel, hol_latency, hol_times
    from .inputs import HoldTable, below_wire, sends_for, table_of, timing, wire_s
    from .latency_model import (
        MeasuredPointToPoint,
        PointToPoint,
        completion_times,
        predict,
        return_times,
    )
    from .run import schedule_for
    from .schedules import DEFAULT_FRAGMENT, binomial_tree, block_binomial_tree, build

__all__ = ["Channel", "DEFAULT_FRAGMENT", "HoldTable", "MeasuredPointToPoint", "PointToPoint",
           "Schedule", "Send", "below_wire", "binomial_tree", "block_binomial_tree",
           "build", "completion_times", "critical_destinations", "describe_schedule",
           "flow_latencies", "hol_latency", "hol_times", "multiport_table",
           "opt_children", "opt_table", "predict", "return_times", "schedule_for",
           "sends_for", "table_of", "timing", "wire_s"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
