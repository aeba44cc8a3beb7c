"""The testbed over several machines (Mininet Cluster Edition): where nodes run (placement),
and what a cluster is made of (spec). Work in progress (issue 22): only the pure parts exist
so far; docs/cluster.md will say how to run it."""
