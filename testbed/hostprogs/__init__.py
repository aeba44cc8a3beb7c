"""Small programs run inside emulated hosts (``python -m testbed.hostprogs.<name>``):
traffic sources and probes used by benchmarks and tests. Standard library only."""
