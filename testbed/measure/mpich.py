"""MPICH's own MPI_Bcast algorithms, and the control variables that choose one (the
broadcast measured as MPI_Bcast, `--algo mpich --mpich-algorithm NAME`)."""

from __future__ import annotations

# MPICH's own MPI_Bcast algorithms, chosen with its control variables (MPICH 4/5 names),
# and the MPI_Ibcast algorithm of each: ranks that wait asleep (collectives.waiting) run
# MPI_Ibcast, whose algorithms have names of their own.
MPICH_ALGORITHMS = ("auto", "binomial", "scatter_recursive_doubling_allgather",
                    "scatter_ring_allgather", "pipelined_tree", "tree", "smp", "nb")
MPICH_IBCAST = {"auto": "auto", "binomial": "sched_binomial", "smp": "sched_smp",
                "scatter_recursive_doubling_allgather":
                    "sched_scatter_recursive_doubling_allgather",
                "scatter_ring_allgather": "sched_scatter_ring_allgather",
                "pipelined_tree": "tsp_tree", "tree": "tsp_tree", "nb": "auto"}


def mpich_env(mpich_algorithm: str) -> dict[str, str]:
    """The control variables that make MPI_Bcast use `mpich_algorithm` (one of
    MPICH_ALGORITHMS) and MPI_Ibcast its counterpart, with MPICH's device-level collectives
    off so the choice is honoured."""
    return {"MPIR_CVAR_BCAST_INTRA_ALGORITHM": mpich_algorithm,
            "MPIR_CVAR_IBCAST_INTRA_ALGORITHM": MPICH_IBCAST[mpich_algorithm],
            "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE": "0",
            "MPIR_CVAR_IBCAST_DEVICE_COLLECTIVE": "0"}
