"""The ``mcastlab`` command line: the parser made of every area's commands, and `main`.

Each area is a module with its commands (``cmd_*``) and ``add_commands(sub)``, which adds
their parsers (as ``bin/mn`` builds its options from choice dictionaries): `network`
(doctor, topo, net, up, calibrate, cleanup), `experiments` (experiment, testbed, bench),
`measure` (mpirun, pingpong, params, bcast, osu), `multinode` (multinode: Tseng2001's many
sources at once), `controller` (controller, groups, ports, fail, restore), `catalog`
(algorithms: the registry, no root), `algorithms` (trees, range-trees: no root) and `labs`
(lab); `arguments` holds what they share, `values` the types of their values (sizes,
lists, percentages, nodes) and `parser` the parser they are made with.
"""

from __future__ import annotations

import argparse
import os
import sys

from topologies import TopologyError

from ..errors import DiskFull, McastlabError
from ..results import FULL
from . import (
    algorithms,
    allgather,
    bcast,
    catalog,
    controller,
    experiments,
    labs,
    measure,
    multinode,
    network,
)
from .arguments import link_loss
from .kept import kept
from .parser import Parser, mcastlab_version

EPILOG = """examples:
  sudo mcastlab doctor                      what this machine offers
  sudo mcastlab testbed                     the default experiment (results/...)
  sudo mcastlab experiment experiments/loss.toml
                                            an experiment spec: sweep, records, report
  sudo mcastlab experiment --resume results/DIR
                                            finish an interrupted experiment
  mcastlab topo mesh:rows=4,cols=4          describe a topology (no root needed)
  mcastlab algorithms                       every algorithm, its options, its MPICH names
  mcastlab range-trees --nodes 4096 --faulty 0.01 --repetitions 1000
                                            greedy vs optimal range-multicast trees
  sudo mcastlab up --topo fattree           the network with a Mininet prompt
  mcastlab lab                              the teaching labs; sudo mcastlab lab 1 opens one
  sudo mcastlab mpirun --topo mesh:rows=2,cols=2 -- -m collectives.programs.pingpong
  sudo mcastlab cleanup                     remove what a crashed run left behind
"""

# the order of --help
AREAS = (network, experiments, measure, bcast, allgather, multinode, controller, catalog,
         algorithms, labs)


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog="mcastlab", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Emulation testbed for broadcast, barrier and Allgather algorithms over "
                    "Mininet, Open vSwitch, an OpenFlow multicast controller and MPI.")
    ap.add_argument("--version", action="version", version=f"mcastlab {mcastlab_version()}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for area in AREAS:
        area.add_commands(sub)
    return ap


def _is_experiment(argv: list[str]) -> bool:
    """`mcastlab run ...` as it was spelled for an experiment (a spec, --resume, --list)."""
    if not argv or argv[0] != "run" or "--" in argv:
        return False
    return ("--resume" in argv or "--list" in argv
            or any(a.endswith(".toml") for a in argv[1:]))


RENAMED = {"hwtree": "range-trees"}  # old command -> new (one name per concept: docs/glossary.md)


def _renamed(argv: list[str]) -> list[str]:
    """Old spellings still work, with a note: `mcastlab run`, which meant two commands told
    apart by its arguments (now `experiment` or `mpirun`), and the commands of RENAMED."""
    if not argv or argv[0] not in ("run", *RENAMED):
        return argv
    if argv[0] in RENAMED:
        new = RENAMED[argv[0]]
        print(f"mcastlab: note: 'mcastlab {argv[0]}' is now 'mcastlab {new}'", file=sys.stderr)
        return [new, *argv[1:]]
    new = "experiment" if _is_experiment(argv) else "mpirun"
    print(f"mcastlab: note: 'mcastlab run' is now 'mcastlab {new}' (and 'mcastlab "
          f"{'mpirun' if new == 'experiment' else 'experiment'}' for "
          f"{'programs' if new == 'experiment' else 'experiment specs'})", file=sys.stderr)
    return [new, *argv[1:]]


def main(argv: list[str] | None = None) -> int:
    argv = _renamed(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "link"):  # --link's loss= is --loss
            args.loss = link_loss(args)
        with kept(args):
            return args.func(args)
    except (McastlabError, TopologyError) as exc:
        print(f"mcastlab: error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    except KeyboardInterrupt:
        print("mcastlab: interrupted; everything was torn down", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `mcastlab experiment SPEC --list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a full disk met where no results writer names it first
        if exc.errno not in FULL:
            raise
        print(f"mcastlab: error: no space left on the device of {exc.filename or 'an output'} "
              f"({os.strerror(exc.errno)})", file=sys.stderr)
        return DiskFull.exit_code

