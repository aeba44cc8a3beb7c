"""Orchestration: everything that needs root, a network or a results folder.

Its parts stand on floors, lowest first. A module imports from its own part, from parts on
lower floors, and from topologies/, controller/ and collectives/ (below them all); never
from a higher floor, not even inside a function, and parts do not reach each other in a
circle (tests/unit/test_layout.py; docs/architecture.md says why each stands where it does).

1. ``errors.py``, ``interpreter.py``, ``safepath.py``, ``results.py``, ``trust.py``: the
   ground: the errors a user can be shown, how a project module is started in a host, where
   a command writes (every folder and file made and checked in one step), a results
   folder's files (records, tables, versions), and whether a path is one only root can
   change.
2. ``specs/``: the descriptions the floors share: a cluster's servers, fault events,
   background traffic and its model. Plain data, read by everyone above.
3. ``hostprogs/``: small programs run inside the emulated hosts (senders, sniffers, loads),
   which the emulation starts by name.
4. ``emulation/``: the emulated network of one run (Mininet hosts, OVS switches, the
   controller process, link shaping, MPI launch across hosts) and what keeps runs apart and
   cleans up after them. It lays the network out through one interface
   (``emulation.servers.OneMachine``); a network across servers is handed to it.
5. ``fidelity/``: did the emulator keep up (flags on every point), read from the emulation's
   processes and links; link rates and their units.
6. ``cluster/``: the network across servers (Mininet Cluster Edition): it implements the
   emulation's interface with servers, holds and tunnels, and its agent runs the emulation's
   cleanup and the fidelity readings on the other servers.
7. ``conditions/``, ``report/``, ``live/``: background traffic, hot spots and faults
   injected into a running network; a results folder becomes tables, plots, findings and
   one HTML page (it reads files only, and stands below the experiments so that each kind
   of experiment names its report); the live view of a network that is up (a snapshot the
   run publishes, a web server without root that draws it), below the labs and the CLI
   that open it.
8. ``measure/``: one collective measured on a network that is up (broadcast, batch of
   broadcasts, Allgather, barriers; t_hold/t_end; where the ranks sit), each taking the
   emulation, the call and one ``RunOptions`` bundle.
9. ``experiments/``: the experiment spec (TOML) and its kinds (``experiments/kinds.py``:
   each kind's reader, runner, record, listing and report), the run of a spec point by
   point, and calibration (the highest link rate this machine keeps up with, ``bw=auto``),
   which is measured with broadcasts.
10. ``labs/``: the teaching labs and their checkers (the prompt they open is handed to
    them).
11. ``bench/``: the benchmark suites (``mcastlab bench``), one module per suite.
12. ``reproduce/``: the papers' claims (``mcastlab reproduce``), run with the benchmarks.
13. ``cli/``: the ``mcastlab`` command line, one module per area of commands.
"""
