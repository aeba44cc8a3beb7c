"""The multicast allgathers (collectives.ipmc.allgather) on real MPI ranks through the
controller's groups: every block on every rank byte-identical at block sizes 0 to 1 MiB
and in an Allgatherv of blocks from 0 to 64 KiB (mcast-concurrent paces each sender by
its block), on a lossless star and then with 5 % loss of every packet on every host link,
in one MPI job (its ranks up and connected before the loss is set: MPI's start-up under
loss is not what this is about, tests/integration/test_mcast_collectives.py)."""

from __future__ import annotations

import json

from collectives.ipmc.allgather import ALGORITHMS
from collectives.programs.mcast_allgather import argv
from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .midjob import FINISH, loss_once_ready, once_all_done

SIZES = (0, 1, 1000, 65536, 1 << 20, "v65536")
LOSS = 0.05
# the program (its arguments after argv[2]), and the loss lifted once every rank has run
# it, before the ranks leave (midjob.FINISH): MPI_Finalize and hydra's exit are not what
# this is about, as MPI's start-up is not
THEN_LIFTED = FINISH + """
from collectives.programs.mcast_allgather import main
finish(main(sys.argv[3:]))
"""


def test_every_block_on_every_rank_lossless_and_under_loss(caps, clean_after):
    with Emulation(parse_spec("star:hosts=4,bw=100"), caps=caps) as emu, \
            loss_once_ready(emu, LOSS) as (ready, go), \
            once_all_done(emu, 4, lambda: emu.set_loss(0)) as (done, lifted):
        program = argv(sizes=SIZES, algorithms=ALGORITHMS, ready=str(ready), go=str(go),
                       timeout=30)[2:]  # after "-m", the module
        res = run_mpi(emu, ["-c", THEN_LIFTED, str(done), str(lifted), *program],
                      timeout=150)
    got = [json.loads(ln) for ln in res.rank_output[0].splitlines() if ln.startswith("{")]
    cases = {(r["phase"], r["algorithm"], r["size"]): r for r in got}
    assert set(cases) == {(ph, a, n) for ph in (1, 2) for a in ALGORITHMS for n in SIZES}
    assert [k for k, r in cases.items() if not r["correct"]] == []
    for a in ALGORITHMS:
        # multicast carried the blocks: 3 receivers x 3 blocks of 1 MiB (datagrams of at
        # most 1500 bytes, the MTU)
        lossless, lossy = cases[1, a, 1 << 20], cases[2, a, 1 << 20]
        assert lossless["datagrams"]["delivered"] >= 9 * (1 << 20) // 1500, lossless
        assert lossless["datagrams"]["rejected"] == 0, lossless
        assert lossy["datagrams"]["repaired"] > 0, lossy  # lost datagrams were made good
