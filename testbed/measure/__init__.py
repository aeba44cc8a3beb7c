"""Measuring: one collective measured on a network that is up (an `Emulation` brought up by
whoever calls). `experiments/` keeps the experiment spec and its runner, which calls in
here point by point; benchmarks, labs, the papers' claims and the command line call in
here too. `bcast` measures broadcasts and t_hold/t_end (its result `bcast_result`),
`bcast_batch` several broadcasts in one job, `barrier` barriers; `rank_placement` tells
the network-aware algorithms where the ranks sit, `model_inputs` reads t_hold/t_end for
the model."""
