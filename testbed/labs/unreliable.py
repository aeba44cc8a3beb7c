"""Lab 4: multicast is unreliable. Frames on the wire for a tree against IP multicast with
scouts (Chen2000) and with NACKs; under loss, the repairs of the two-stage broadcast
(Siebert2006) and of the NACK broadcast."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from collectives.call import BcastCall

from ..measure.bcast_batch import Batched
from ..measure.options import RunOptions
from .answers import Question
from .lab import Lab
from .points import measure_together

HOSTS = 4
SIZE, LOSSY_SIZE, LOSS = 8192, 65536, 0.05
FRAMED = ("binomial", "scout-linear", "two-stage", "nack")
REPAIRED = ("two-stage", "nack")
YES_NO = ("yes", "no")

QUESTIONS = (
    *(Question(f"frames_sent.{a}", f"frames the hosts send per {a} broadcast of {SIZE} B on "
               f"{HOSTS} hosts (switch port counters)", factor=1.3) for a in FRAMED),
    Question("frames_delivered.nack", "frames delivered to hosts per nack broadcast of "
             f"{SIZE} B", factor=1.3),
    *(Question(f"delivered_under_loss.{a}", f"did every rank get every byte of {a} at "
               f"{LOSS:g} loss ({LOSSY_SIZE} B)?", "choice", choices=YES_NO)
      for a in REPAIRED),
    Question("repaired.nack", f"did nack repair datagrams at {LOSS:g} loss?", "choice",
             choices=YES_NO),
)


def measure(emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    progress(f"lab 4: frames of {', '.join(FRAMED)}, {SIZE} B (one job)")
    framed = measure_together(emu, [Batched(a, BcastCall(a, SIZE), repetitions=5, frames=5)
                                    for a in FRAMED])
    for a, r in framed.items():
        assert r.frames is not None  # counted: frames > 0
        out[f"frames_sent.{a}"] = round(r.frames["sent"], 1)
        if a == "nack":
            out["frames_delivered.nack"] = round(r.frames["delivered"], 1)
    progress(f"lab 4: {', '.join(REPAIRED)} at {LOSS:g} loss, {LOSSY_SIZE} B (one job)")
    lossy = measure_together(emu, [Batched(a, BcastCall(a, LOSSY_SIZE), repetitions=5)
                                   for a in REPAIRED], RunOptions(loss=LOSS))
    for a, r in lossy.items():
        out[f"delivered_under_loss.{a}"] = "yes" if r.verified else "no"
        if a == "nack":  # two-stage repairs over MPI (the fragmented chain), not datagrams
            # how many varies tenfold from run to run (a lost NACK or repair is asked again)
            repaired = (r.datagrams or {})["per_broadcast"]["repaired"]
            out["repaired.nack"] = "yes" if repaired > 0 else "no"
    return out

LAB = Lab(4, "Multicast is unreliable", "04-multicast-unreliable.md",
          f"star:hosts={HOSTS},bw=100", QUESTIONS, measure,
          paper="Chen2000 and Siebert2006")
