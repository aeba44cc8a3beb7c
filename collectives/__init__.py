"""Code that runs inside MPI ranks: schedules, transports, models and benchmarks.

This layer never imports ``testbed`` or ``controller``.
"""
