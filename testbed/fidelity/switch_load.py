"""How hard the software switch worked over a stretch of a run, from two readings of its
threads (testbed.fidelity.reading.switch_threads): the share of its time it waited for a
core, and how much of the stretch its forwarding thread had work (on a core or waiting for
one). testbed.fidelity.flags judges both.

Which thread forwards: with the userspace datapath and no polling (PMD) ports, which the
testbed never makes (its host ports are afxdp-nonpmd, the rest AF_PACKET), ovs-vswitchd's
main thread (its thread id is the process id) receives every frame of every bridge, looks it
up and sends it, and runs the upcalls of the frames that miss the datapath's flows inline.
Its other threads (one handler, which the userspace datapath leaves idle, one revalidator,
urcu, ct_clean, ipf_clean) took 0-5 % of a core on the 8 x 8 mesh's 64 switches while the
main thread had work throughout (docs/fidelity.md, "The switch's forwarding thread"). One
thread forwards for every bridge, so a network of many switches is limited by that one
thread, whatever the machine's other core does."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Snapshot = Mapping[str, Any]  # {"pid": int, "threads": {tid: [ns on a core, ns waiting]}}


def switch_load(a: Snapshot | None, b: Snapshot | None, span_s: float) -> dict[str, Any]:
    """Between two snapshots `span_s` apart: "waited", the share of the switch's time with
    work that it waited for a core (every thread; threads that started or ended between the
    two are left out, so a thread's end never makes it negative), and of the forwarding
    (main) thread "busy", the share of the stretch it ran, and "had_work", the share it ran
    or waited to run: 1.0 when it never slept, i.e. frames were waiting for it throughout.
    All None where either snapshot is missing, the switch restarted between them, or the
    span is empty."""
    none: dict[str, Any] = {"waited": None, "busy": None, "had_work": None}
    if a is None or b is None or a["pid"] != b["pid"] or span_s <= 0:
        return none
    ran = waited = 0
    for tid, (run1, wait1) in b["threads"].items():
        if tid in a["threads"]:
            run0, wait0 = a["threads"][tid]
            ran, waited = ran + run1 - run0, waited + wait1 - wait0
    main = str(b["pid"])
    out = dict(none, waited=waited / (ran + waited) if ran + waited > 0 else 0.0)
    if main in a["threads"] and main in b["threads"]:
        run = (b["threads"][main][0] - a["threads"][main][0]) / 1e9
        wait = (b["threads"][main][1] - a["threads"][main][1]) / 1e9
        out |= {"busy": run / span_s, "had_work": min(1.0, (run + wait) / span_s)}
    return out
