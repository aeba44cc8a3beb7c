"""Point-to-point allgathers (family "exchange" of collectives.algorithms): every rank's
block reaches every rank through exchanges among the ranks themselves.

    ring, recursive doubling   [Thakur2005]   schedules (pure: who sends which blocks to whom)
    Bruck's concatenation      [Bruck1997]    schedules
    (ours)                     a schedule run on MPI point-to-point   run

The package is not called ``allgather``: ``collectives.allgather`` is the call
(collectives.executor.allgather), and a package of that name would shadow it or be shadowed.
The multicast allgather is collectives/ipmc/allgather.py's (built apart).
"""
