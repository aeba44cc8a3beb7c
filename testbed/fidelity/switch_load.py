"""How hard the software switch worked over a stretch of a run, from the readings of its
threads taken during it (testbed.fidelity.reading.switch_threads): the share of its time it
waited for a core, and how much of the stretch its forwarding thread had work (on a core or
waiting for one). testbed.fidelity.flags judges both.

Which thread forwards: with the userspace datapath and no polling (PMD) ports, which the
testbed never makes (its host ports are afxdp-nonpmd, the rest AF_PACKET), ovs-vswitchd's
main thread (its thread id is the process id) receives every frame of every bridge, looks it
up and sends it, and runs the upcalls of the frames that miss the datapath's flows inline.
Its other threads (one handler, which the userspace datapath leaves idle, one revalidator,
urcu, ct_clean, ipf_clean) took 0-5 % of a core on the 8 x 8 mesh's 64 switches while the
main thread had work throughout (docs/fidelity.md, "A busy switch"). One thread forwards for
every bridge, so a network of many switches is limited by that one thread, whatever the
machine's other cores do."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Snapshot = Mapping[str, Any]  # {"pid": int, "threads": {tid: [ns on a core, ns waiting]}}
Reading = tuple[float, Snapshot | None]  # (when, the switch's threads then)


def switch_load(readings: Sequence[Reading], t0: float, t1: float) -> dict[str, Any]:
    """Over [t0, t1], from `readings` in the order taken: "waited", the share of the switch's
    time with work that it waited for a core (every thread), and of its forwarding (main)
    thread "busy", the share of the stretch it ran, and "had_work", the share it ran or
    waited to run: 1.0 when it never slept, i.e. frames were waiting for it throughout.

    Each interval between two readings counts by the part of it inside [t0, t1] (its
    counts taken as spread evenly over it), so the time around a point is not judged with
    it; a stretch inside one interval is judged by that interval. Threads that started or
    ended within an interval are left out of it (a thread's end never makes a share
    negative); an interval across a restart of the switch, or with a reading missing,
    counts for nothing. All None where nothing counts."""
    ran = waited = main_run = main_wait = span = 0.0
    main_span = 0.0
    pairs = list(zip(readings, readings[1:], strict=False))
    inside = [(a, b, _overlap(a[0], b[0], t0, t1)) for a, b in pairs]
    if t1 <= t0 or not any(w > 0 for _, _, w in inside):  # judged by its enclosing interval
        inside = [(a, b, 1.0) for a, b in pairs if a[0] <= t0 <= b[0]][:1]
    for (ta, a), (tb, b), w in inside:
        if w <= 0 or a is None or b is None or a["pid"] != b["pid"] or tb <= ta:
            continue
        for tid, (run1, wait1) in b["threads"].items():
            if tid in a["threads"]:
                ran += w * (run1 - a["threads"][tid][0])
                waited += w * (wait1 - a["threads"][tid][1])
        span += w * (tb - ta)
        main = str(b["pid"])
        if main in a["threads"] and main in b["threads"]:
            main_run += w * (b["threads"][main][0] - a["threads"][main][0]) / 1e9
            main_wait += w * (b["threads"][main][1] - a["threads"][main][1]) / 1e9
            main_span += w * (tb - ta)
    out: dict[str, Any] = {"waited": None, "busy": None, "had_work": None}
    if span > 0:
        out["waited"] = waited / (ran + waited) if ran + waited > 0 else 0.0
    if main_span > 0:
        out |= {"busy": main_run / main_span,
                "had_work": min(1.0, (main_run + main_wait) / main_span)}
    return out


def _overlap(ta: float, tb: float, t0: float, t1: float) -> float:
    """The share of the interval [ta, tb] inside [t0, t1]."""
    if tb <= ta:
        return 0.0
    return max(0.0, min(tb, t1) - max(ta, t0)) / (tb - ta)
