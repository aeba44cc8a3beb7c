"""The emulated network of one run and what it stands on: Mininet hosts and OVS switches
(`network`, `hosts`), link rate and loss with what the kernel offers (`linkshape`), the
controller as its own process (`controller_proc`), MPI across the hosts (`mpi`), the
switch's CPU priority (`priority`), what this machine offers (`environment`), and what
keeps runs apart and leaves nothing behind (`runlock`, `run_records`, `cleanup`).
Probes of a running network: `group_probe`, `frame_count`, `uftp_peer` (a real
reliable-multicast peer in the hosts)."""
