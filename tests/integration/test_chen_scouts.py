"""Chen2000's scout broadcast as it ran (completion "none", collectives.ipmc.gaps) on real
MPI ranks: the bytes arrive, and the frames that carry data are the paper's formula,
(N - 1) scouts + M/T + 1 datagrams, with TCP's pure ACKs counted apart."""

from __future__ import annotations

import pytest

from collectives.call import BcastCall
from collectives.ipmc.plans import scout_frames
from testbed.emulation.network import Emulation
from testbed.measure.bcast import run_bcast
from testbed.measure.options import RunOptions
from topologies import parse_spec

HOSTS, SIZE = 4, 3000  # 3 scouts + 3 datagrams


def test_scouts_without_completion_send_the_formulas_data_frames(caps, clean_after):
    with Emulation(parse_spec(f"star:hosts={HOSTS},bw=100"), caps=caps) as emu:
        res = run_bcast(emu, BcastCall("scout-linear", SIZE, completion="none"),
                        RunOptions(repetitions=5,
                                   flow=False, frames=40))
    assert res.verified and res.call.completion == "none" and res.frames is not None
    frames = res.frames
    # counted over 40 back-to-back broadcasts: a bracket's noise is a few frames in all
    assert abs(frames["data"] - scout_frames(SIZE, 1500, HOSTS)) < 0.25, frames
    assert frames["acks"] > 0 and frames["sent"] == pytest.approx(frames["data"] + frames["acks"])
    # no receiver spoke: the root's datagrams alone, none repaired
    per = res.datagrams["per_broadcast"]
    assert (per["sent"], per["repaired"]) == (3.0, 0.0), per
