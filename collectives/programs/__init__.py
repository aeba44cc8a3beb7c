"""The MPI programs the testbed runs in the emulated hosts (`python -m collectives.programs.X`
under mpiexec; each prints JSON from rank 0): measuring broadcasts (bcast_bench, sweep_bench,
naive_bench, multinode_bench), barriers (barrier_bench), both as the OSU micro-benchmarks
do (osu), waiting (idle_bench), the point-to-point parameters (params), a ping-pong
(pingpong), and correctness (verify)."""
