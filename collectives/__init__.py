"""Code that runs inside MPI ranks: the broadcast, barrier and allgather algorithms, their
models and the programs that measure them. This layer never imports ``testbed`` or ``controller``.

As mpi4py does, it states its public face: what the testbed (and a user's program) may
import, `PUBLIC` below; tests/unit/test_layout.py holds the testbed to it. A module's
public names are its ``__all__``; a sub-package's are those its ``__init__`` lists (its
``__all__``), loaded when first asked for (collectives._facade), and its modules are its
own. Every module not named here is private to collectives.

  public
    collectives   bcast, barrier, allgather, allgatherv, Intracomm: calls for mpi4py programs
    algorithms    the registry: one record per algorithm (family, paper, what it needs)
    call          the typed calls: BcastCall, BarrierCall, AllgatherCall
    catalog       the algorithms under their MPICH, Open MPI and SimGrid names
    executor      bcast, barrier, allgather and allgatherv for mpi4py programs, one runner
                  per family (each imports its family's modules when first called)
    use           the drop-in's defaults; ``python -m collectives.use`` runs a program with it
    measured      t_hold and t_end timed (as params does), on the drop-in's first use
    waiting, timing, stats: how ranks wait, clocks and CPU time, medians and tails
    trees/        point-to-point trees and their model [Nupairoj1998]
    contention/   contention-aware trees on meshes, tori, BMINs [Nupairoj1998 ch. 5]
    exchanges/    point-to-point allgathers: ring, recursive doubling [Thakur2005], Bruck
                  [Bruck1997]
    ipmc/         broadcast and barrier over IP multicast [Chen2000, Siebert2006], nack
    range_trees/  trees of hardware range multicasts [Coll2003]
    partitioning/ multi-node multicast on a partitioned torus [Tseng2001]
    programs/     the MPI programs the testbed runs (python -m collectives.programs.X), each
                  public as a program (its ``argv``); marks: the marks they send around
                  collectives, which the testbed's frame counter reads
  private
    ops, opttree  a point-to-point schedule's data; OPT-Tree [Nupairoj1998 ch. 4] (below
                  trees/ and contention/; public through collectives.trees)
    slots         where each rank's block lies in an allgather's receive buffer
    intracomm, buffers: the drop-in communicator (public as collectives.Intracomm), any
                  message as bytes
    held, sent, outqueue: when ranks hold the message, when their messages left (the
                  root's sending queue)
    pairwise      MPICH 1's barrier [Chen2000 3.2]
    _facade       how a sub-package loads its public names on first use

``bcast`` is the broadcast call for mpi4py programs (``collectives.executor.bcast``),
``barrier``, ``allgather`` and ``allgatherv`` likewise; they load mpi4py only when called.
``Intracomm`` is the drop-in communicator (collectives.intracomm: an mpi4py communicator
whose broadcasts, barriers and allgathers are ours); naming it loads mpi4py.
``python -m collectives.use --bcast nack -- program.py`` runs a whole program with it.
Citation keys: docs/references.md.
"""

from .executor import allgather, allgatherv, barrier, bcast

__all__ = ["Intracomm", "allgather", "allgatherv", "barrier", "bcast"]

PROGRAMS = ("allgather_bench", "allgather_check", "barrier_bench", "bcast_bench", "idle_bench",
            "marks", "mcast_allgather", "multinode_bench", "naive_bench", "osu", "params",
            "pingpong", "start_gun", "startup_probe", "sweep_bench", "verify")
# The modules the testbed may import (the table above); every other module is private.
PUBLIC = ("collectives", "collectives.algorithms", "collectives.call", "collectives.catalog",
          "collectives.executor", "collectives.use", "collectives.measured",
          "collectives.waiting", "collectives.timing", "collectives.stats",
          "collectives.trees", "collectives.contention", "collectives.exchanges",
          "collectives.ipmc", "collectives.range_trees", "collectives.partitioning",
          "collectives.programs", *(f"collectives.programs.{p}" for p in PROGRAMS))


def __getattr__(name: str):
    """``collectives.Intracomm`` (the drop-in communicator) loads mpi4py when first named."""
    if name == "Intracomm":
        # collectives.intracomm imports mpi4py.MPI, which starts MPI: in ranks only
        from .intracomm import Intracomm

        globals()["Intracomm"] = Intracomm  # once loaded, a plain attribute (pdoc reads those)
        return Intracomm
    raise AttributeError(f"module 'collectives' has no attribute {name!r}")
