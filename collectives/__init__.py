"""Code that runs inside MPI ranks: schedules, transports, models and benchmarks.

This layer never imports ``testbed`` or ``controller``. ``bcast`` is the broadcast call for
mpi4py programs (``collectives.executor.bcast``); it loads mpi4py only when called.
"""

from .executor import barrier, bcast

__all__ = ["barrier", "bcast"]
