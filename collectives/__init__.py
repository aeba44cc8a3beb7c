"""Code that runs inside MPI ranks: the broadcast, barrier and allgather algorithms, their
models and the programs that measure them. This layer never imports ``testbed`` or ``controller``.

    algorithms    the registry: one record per algorithm (family, paper, what it needs)
    executor      bcast, barrier, allgather and allgatherv for mpi4py programs, one runner
                  per family (each imports its family's modules when first called)
    slots         where each rank's block lies in an allgather's receive buffer
    ops, opttree  a point-to-point schedule's data; OPT-Tree [Nupairoj1998 ch. 4]
    trees/        point-to-point trees and their model [Nupairoj1998]
    contention/   contention-aware trees on meshes, tori, BMINs [Nupairoj1998 ch. 5]
    exchanges/    point-to-point allgathers: ring, recursive doubling [Thakur2005], Bruck
                  [Bruck1997]
    ipmc/         broadcast and barrier over IP multicast [Chen2000, Siebert2006], nack
    range_trees/  trees of hardware range multicasts [Coll2003]
    partitioning/ multi-node multicast on a partitioned torus [Tseng2001]
    programs/     the MPI programs the testbed runs (python -m collectives.programs.X)
    intracomm, buffers, use: the drop-in communicator, any message as bytes, whole programs
    measured      t_hold and t_end timed (as params does), on the drop-in's first use
    waiting, held, sent, timing, stats: how ranks wait, when they hold the message, when
                  their messages left (the root's sending queue), clocks, medians

``bcast`` is the broadcast call for mpi4py programs (``collectives.executor.bcast``),
``barrier``, ``allgather`` and ``allgatherv`` likewise; they load mpi4py only when called.
``Intracomm`` is the drop-in communicator (collectives.intracomm: an mpi4py communicator
whose broadcasts, barriers and allgathers are ours); naming it loads mpi4py.
``python -m collectives.use --bcast nack -- program.py`` runs a whole program with it.
Citation keys: docs/references.md.
"""

from .executor import allgather, allgatherv, barrier, bcast

__all__ = ["Intracomm", "allgather", "allgatherv", "barrier", "bcast"]


def __getattr__(name: str):
    """``collectives.Intracomm`` (the drop-in communicator) loads mpi4py when first named."""
    if name == "Intracomm":
        # collectives.intracomm imports mpi4py.MPI, which starts MPI: in ranks only
        from .intracomm import Intracomm

        globals()["Intracomm"] = Intracomm  # once loaded, a plain attribute (pdoc reads those)
        return Intracomm
    raise AttributeError(f"module 'collectives' has no attribute {name!r}")
