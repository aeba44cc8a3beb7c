"""Experiments: a spec (TOML, checked in full before anything starts: `spec`) runs on one
network (`run`), each point measured by testbed.measure (one collective on a network that
is up, with one RunOptions bundle); `allgather` and `multinode_run` are the Allgather and
multi-node specs' points and records, `points_once` writes each point of a job once;
`calibration` finds the highest link rate this machine keeps up with (cached; `bw=auto`:
`resolve`) by measuring broadcasts; results folders are written by testbed.results.
`default` is the experiment of ``sudo make testbed``."""
