"""mpi4py's own tests as the judge of the drop-in communicator (collectives.Intracomm): the
broadcast and barrier tests of its buffer, object and zero-length collective modules (world,
self and duplicated communicators; every backend, typecode and root; an indexed datatype
with holes; pickled objects), from the vendored suite of the mpi4py version requirements.txt
pins (third_party/mpi4py-tests), run unmodified under collectives.use (the function behind
``python -m collectives.use``) on four emulated hosts, once for every broadcast algorithm of
the registry, each paired with a barrier algorithm: one run after the other in one MPI job
per network, the suite's modules imported afresh for each (mpi4py_runs.py). Every rank must
report, for every algorithm, the suite's tests run and passed, and that the broadcasts went
through the chosen algorithm (the calls collectives.use --report prints)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from collectives.algorithms import BARRIERS, BCASTS
from controller.config import ControllerConfig
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mpi4py_runs import MARK

HERE = Path(__file__).resolve().parent
SUITE = HERE.parents[1] / "third_party" / "mpi4py-tests"
SELECT = ["--no-builddir", "-q", "-i", "test_cco_buf", "-i", "test_cco_obj",
          "-i", "test_msgzero", "-k", "Bcast", "-k", "bcast", "-k", "Barrier", "-k", "barrier",
          "-k", "Collectives"]
TESTS = 24  # per rank: 3 buffer, 2 object and 1 zero-length test in each of 4 classes
# (self, world, and a Dup of each)
# the world classes broadcast 288 + 576 buffers and 2 x 72 objects each (sizes 0-3 KiB)
LEAST_BCASTS = 2000
MODEL = {"t_hold": 60e-6, "t_end": 120e-6}  # any plausible values make a valid OPT tree
OPTIONS = {"opt-tree": MODEL, "dyn-tree": MODEL, "opt-mesh": {**MODEL, "mesh": [2, 2]},
           "u-mesh": {"mesh": [2, 2]}, "u-torus": {"torus": [2, 2]},
           "opt-min": {**MODEL, "bmin": [2, 2]}}
# dyn-mesh runs dyn-tree's executor on the mesh's order (test_bcast.py checks it on real
# ranks): left out here, where every run costs about 2 s of make test's 15 minutes
STAR = [a for a in BCASTS if a not in ("range-tree", "dyn-mesh")]
STAR_BARRIERS = [b for b in BARRIERS if b != "range-tree"]


def suites(emu, choices: list[tuple[str, str, dict]], hosts=None) -> None:
    argv = [str(HERE / "mpi4py_runs.py"), json.dumps(choices), "--",
            str(SUITE / "runtests.py"), *SELECT]
    res = run_mpi(emu, argv, hosts=hosts, timeout=180 * len(choices), check=False)
    for rank, text in res.rank_output.items():
        runs: dict[str, str] = {}  # each run's stdout and stderr, by its broadcast
        for part in text.split(MARK)[1:]:
            name, _, output = part.partition("\n")
            runs[name] = runs.get(name, "") + output
        for bcast, barrier, _options in choices:
            out = runs.get(bcast, "")
            ran = re.search(r"Ran (\d+) tests? in", out)
            assert ran and int(ran.group(1)) == TESTS, f"{bcast} rank {rank}:\n{out[-3000:]}"
            assert re.search(r"^OK$", out, re.M), f"{bcast} rank {rank}:\n{out[-3000:]}"
            line = next(ln for ln in out.splitlines() if ln.startswith('{"collectives.use"'))
            calls = json.loads(line)["collectives.use"]["calls"]
            assert calls.get(f"bcast {bcast}", 0) >= LEAST_BCASTS, (bcast, rank, calls)
            assert calls.get(f"barrier {barrier}", 0) >= 2, (barrier, rank, calls)
    assert res.returncode == 0, res.err[-2000:]


def test_every_star_algorithm_passes_mpi4pys_broadcast_and_barrier_tests(caps, clean_after):
    with Emulation(parse_spec("star:hosts=4,bw=1000"), caps=caps) as emu:
        suites(emu, [(bcast, STAR_BARRIERS[i % len(STAR_BARRIERS)], OPTIONS.get(bcast, {}))
                     for i, bcast in enumerate(STAR)])


def test_range_tree_passes_them_on_a_fat_tree(caps, clean_after):
    with Emulation(parse_spec("fattree:k=4,n=2,hosts=8"), caps=caps,
                   controller_config=ControllerConfig(mode="contiguous")) as emu:
        suites(emu, [("range-tree", "range-tree", {"nodes": [0, 1, 2, 3], "fattree": [4, 8]})],
               hosts=["h0", "h1", "h2", "h3"])
