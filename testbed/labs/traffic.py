"""Lab 5: traffic (Nupairoj1998, chapter 6). A broadcast among four hosts while every host of
the network also sends uniform background traffic, or hot-spot traffic aimed at one member
of the broadcast; the dynamic tree (DYN-Tree) against the static OPT-Tree there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..conditions.traffic import Traffic
from ..conditions.traffic_model import TrafficSpec
from ..experiments.bcast import measure_params, run_bcast
from .answers import Question
from .lab import Lab

HOSTS, SIZE = 4, 65536
MEMBERS = [f"h{i}" for i in range(HOSTS)]
# Each of the 6 hosts offers 20 % of its link: the hot spot's link gets 5 x 0.2 x 0.8 = 80 %
# of its capacity (at 30 % it was overloaded and the times doubled from run to run).
LOADS = {"background": TrafficSpec("uniform", load=0.2, hosts="all"),
         "hotspot": TrafficSpec("hotspot", load=0.2, hot="h1", hot_fraction=0.8,
                                hosts="all")}
RUNS = (("none", "binomial"), ("background", "binomial"), ("hotspot", "binomial"),
        ("hotspot", "opt-tree"), ("hotspot", "dyn-tree"))
YES_NO = ("yes", "no")
SLOWER = 1.2  # "slower" means at least this much slower than the quiet broadcast

QUESTIONS = (
    *(Question(f"t_ms.{load}.{alg}", f"t_mcast of {alg}, {SIZE} B on h0..h{HOSTS - 1}, "
               f"traffic {load}, ms", factor=1.5 if load == "none" else 2.5)
      for load, alg in RUNS),
    Question("hotspot_slower", f"is binomial under hot-spot traffic at least {SLOWER:g}x "
             "slower than quiet?", "choice", choices=YES_NO),
)


def measure(emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    progress(f"lab 5: t_hold/t_end up to {SIZE} B (OPT-Tree, DYN-Tree)")
    params = measure_params(emu, [1, 1024, SIZE], repeats=3, dummy_max=0,
                            budget_bytes=1 << 20)
    out: dict[str, Any] = {}
    for load, alg in RUNS:
        progress(f"lab 5: {alg} under traffic {load}")
        if load == "none":
            r = run_bcast(emu, alg, SIZE, hosts=MEMBERS, iters=7, flow=False, params=params)
        else:
            with Traffic(emu, LOADS[load], MEMBERS, seed=1):
                r = run_bcast(emu, alg, SIZE, hosts=MEMBERS, iters=7, flow=False,
                              params=params)
        out[f"t_ms.{load}.{alg}"] = round(r["t_mcast_s"]["median"] * 1e3, 2)
    slow = out["t_ms.hotspot.binomial"] / out["t_ms.none.binomial"]
    out["hotspot_slower"] = "yes" if slow >= SLOWER else "no"
    return out


LAB = Lab(5, "Traffic", "05-traffic.md", "star:hosts=6,bw=10", QUESTIONS, measure,
          paper="Nupairoj1998, chapter 6")
