"""Measuring: one collective measured on a network that is up (an `Emulation` brought up by
whoever calls), each function taking the emulation, the call and one `RunOptions` bundle
(`options`), as Mininet bundles a link's options. `experiments/` keeps the experiment spec
and its runner, which calls in here point by point; benchmarks, labs, the papers' claims
and the command line call in here too.

`params` measures t_hold/t_end (`model_inputs` reads them for the model, `model` says what
they give one algorithm); `rank_placement` tells the network-aware algorithms where the
ranks sit; `job` and `mpich` make the MPI job around a collective; `times` is the summary
every result holds; one module per collective: `bcast` (its result `bcast_result`),
`bcast_batch` (several broadcasts in one job), `allgather` (rows judged as they come:
`row_stream`), `barrier`."""
