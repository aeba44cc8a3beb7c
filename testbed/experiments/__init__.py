"""Experiments: a spec (TOML, checked in full before anything starts: `spec`) runs on one
network (`run`); `bcast` measures broadcasts and barriers on it, `placement` tells the
network-aware algorithms where the ranks sit, `results` writes folders that carry their
full configuration and versions. `default` is the experiment of ``sudo make testbed``."""
