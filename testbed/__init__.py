"""Orchestration: everything that needs root, a network or a results folder.

- ``emulation/``: the emulated network of one run (Mininet hosts, OVS switches, the
  controller process, link shaping, MPI launch across hosts) and what keeps runs apart
  and cleans up after them (run lock, run registry, cleanup, the machine's capabilities).
- ``fidelity/``: did the emulator keep up (flags on every point), and the highest link
  rate at which it does (calibration, ``bw=auto``).
- ``conditions/``: background traffic, hot spots and faults injected into a running network.
- ``experiments/``: specs (TOML), the run of a spec, broadcast measurements, where the
  ranks sit, results folders.
- ``bench/``: the benchmark suites (``mcastlab bench``), one module per suite.
- ``report/``: a results folder becomes tables, plots, findings and one HTML page.
- ``labs/``: the teaching labs and their checkers.
- ``cli/``: the ``mcastlab`` command line, one module per area of commands.
- ``hostprogs/``: small programs run inside the emulated hosts (senders, sniffers, loads).
"""
