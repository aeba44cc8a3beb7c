"""The descriptions several floors of the testbed share (testbed/__init__.py): plain data,
no machine. `cluster`: a cluster's servers, placement, tunnels and controller address;
`faults`: the fault events of an experiment; `loss_scope`: which packets a loss drops, and
its words; `traffic_model`: background traffic and the model its generators run in the
hosts (after Nupairoj 1998 ch. 6)."""
