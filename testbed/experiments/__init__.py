"""Experiments: a spec (TOML, checked in full before anything starts: `spec`) runs on one
network (`run`); `bcast` measures broadcasts and barriers on it, `rank_placement` tells the
network-aware algorithms where the ranks sit, `calibration` finds the highest link rate
this machine keeps up with (cached; `bw=auto`: `resolve`) by measuring broadcasts; results
folders are written by
testbed.results. `default` is the experiment of ``sudo make testbed``."""
