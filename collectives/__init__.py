"""Code that runs inside MPI ranks: the broadcast and barrier algorithms, their models and
the programs that measure them. This layer never imports ``testbed`` or ``controller``.

    algorithms    the registry: one record per algorithm (family, paper, what it needs)
    executor      bcast and barrier for mpi4py programs, one runner per family
    trees/        point-to-point trees and their model [Nupairoj1998]
    contention/   contention-aware trees on meshes, tori, BMINs [Nupairoj1998 ch. 5]
    ipmc/         broadcast and barrier over IP multicast [Chen2000, Siebert2006], nack
    range_trees/  trees of hardware range multicasts [Coll2003]
    partitioning/ multi-node multicast on a partitioned torus [Tseng2001]
    programs/     the MPI programs the testbed runs (python -m collectives.programs.X)
    waiting, held, timing, stats: how ranks wait, when they hold the message, clocks, medians

``bcast`` is the broadcast call for mpi4py programs (``collectives.executor.bcast``); it loads
mpi4py only when called. Citation keys: docs/references.md.
"""

from .executor import barrier, bcast

__all__ = ["barrier", "bcast"]
