"""Orchestration: environment checks, the emulated network, the controller process, MPI
launch, experiments, results and the ``mcastlab`` command line."""
