"""Experiments: a spec (TOML, checked in full before anything starts: `spec`) runs on one
network (`run`); `bcast` measures broadcasts and barriers on it, `placement` tells the
network-aware algorithms where the ranks sit; its results folders are written by
testbed.results. `default` is the experiment of ``sudo make testbed``."""
