"""The allgather executor (collectives.allgather) on real MPI ranks in emulated hosts: every
algorithm of the registry (MPICH's MPI_Allgather, ring, recursive doubling, Bruck, and the
multicast ones through the executor, on the communicator's channel) delivers
every rank's block to every rank, byte for byte, at blocks of 0 B to 1 MiB, with a send
buffer and in place, on 5 ranks (not a power of two: recursive doubling's stand-ins and
Bruck's wrapped steps run); a receive buffer that is not p blocks is refused on every rank
with one message. One MPI job (collectives.programs.allgather_check)."""

from __future__ import annotations

import json

from collectives.algorithms import ALLGATHERS
from collectives.programs import allgather_check
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

SIZES = [0, 1, 1000, 65536, 1 << 20]


def test_every_allgather_delivers_every_block_at_every_size(caps, clean_after):
    with Emulation(parse_spec("star:hosts=5,bw=1000"), caps=caps) as emu:
        res = run_mpi(emu, allgather_check.argv(sizes=SIZES), timeout=120, check=False)
    lines = [json.loads(ln) for out in res.rank_output.values() for ln in out.splitlines()
             if ln.startswith("{")]
    assert [ln for ln in lines if "error" in ln] == [], lines
    (got,) = lines
    cases = [f"{a}/{n}/{form}" for a in ALLGATHERS for n in SIZES
             for form in allgather_check.FORMS]
    assert got["cases"] == cases and len(got.pop("seconds")) == len(cases)
    assert got.pop("cases") and got == {
        "size": 5, "allgathers": len(cases), "all_correct": True,
        "refused": ["allgather: the receive buffer holds 19 bytes, not 5 blocks of the 4 sent "
                    "(every rank's block must be the same size)"]}
    assert res.returncode == 0, res.err[-2000:]
