"""Hardware range-multicast trees against the software tree (``mcastlab bench --suite range``).

Coll2003's experiment on this testbed: a 16-node quaternary fat tree (k=4, n=2, 10 Mbit/s
links, so that moving the data, not the two cores, sets the broadcast's pace) under the
contiguous-mode controller, 0 to 4 failed nodes (drawn with a fixed seed, recorded), the
remaining hosts as the communicator. Per number of failed nodes:

- barrier latency (last entry to last exit): MPI_Barrier, the software tree (zero-byte
  messages up and down Chen2000's binary tree), the range-tree barrier (same arrivals,
  released by range multicasts), and with no failed node the single multicast release;
- broadcast time and bandwidth of 64 B, 64 KiB and 256 KiB: binomial (the software tree of
  point-to-point messages), MPI_Bcast, the range tree, and with no failed node nack (one
  multicast to everyone, the hardware broadcast without a tree).

The paper's claim: barrier latency halved and broadcast bandwidth doubled against the
software tree; the tree takes 1 step without faults and 2 with a few.
"""

from __future__ import annotations

import json
import random
from typing import Any

from collectives.algorithms import names
from collectives.call import BcastCall
from collectives.programs import barrier_bench
from collectives.range_trees import KaryNTree, greedy_tree
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from controller.config import ControllerConfig
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..measure.bcast import run_bcast
from ..measure.options import RunOptions

TOPO = "fattree:k=4,n=2,bw=10"
K, NODES = 4, 16
FAILED = (0, 1, 2, 4)
SIZES = (64, 65536, 262144)
MPICH_MAX = 65536  # MPI_Bcast beyond this takes seconds per broadcast at 10 Mbit/s
BCASTS = ("mpich", "binomial", "range-tree")
# the barriers Coll2003 compares, the registry's barrier of each family: MPI's own, the
# software tree, the range tree (unpacked: a registry that changes them fails here), and the
# multicast barrier shown beside (without failed nodes)
BARRIERS = names("mpi", "tree", "range", collective="barrier")
MPI_BARRIER, SOFTWARE_TREE, RANGE_TREE = BARRIERS
(MULTICAST,) = names("multicast", collective="barrier")
SEED = 1
# 16 ranks on 2 cores: ranks that poll MPI starve the software switches (1 KiB binomial on
# this fat tree took 18-24 ms spinning, 4-4.7 ms napping). Every rank waits asleep
# (collectives.waiting; MPI_Bcast as MPI_Ibcast), as in every other run.
WAIT = DEFAULT_WAIT


def failed_sets(counts: tuple[int, ...] = FAILED, seed: int = SEED) -> dict[int, list[int]]:
    """Nested failed-node sets: each count adds one node to the previous set (never node 0,
    the root)."""
    order = random.Random(seed).sample(range(1, NODES), max(counts))
    return {f: sorted(order[:f]) for f in counts}


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    counts = (0, 2) if quick else FAILED
    sizes = (1024, 65536) if quick else SIZES
    sets = failed_sets(counts)
    topo = parse_spec(TOPO)
    out: dict[str, Any] = {"topology": TOPO, "seed": SEED, "failed_sets": sets,
                           "barrier": [], "bcast": [], "trees": []}
    with Emulation(topo, caps=caps,
                   controller_config=ControllerConfig(mode="contiguous")) as emu:
        for f in counts:
            failed = sets[f]
            emu.fail_nodes(list(range(NODES)), failed=False)
            if failed:
                emu.fail_nodes(failed)
            up = [n for n in range(NODES) if n not in failed]
            hosts = [f"h{n}" for n in up]
            tree = greedy_tree(KaryNTree(K, 2, NODES), 0, up)
            out["trees"].append({"failed": failed, **tree.to_dict()})
            barriers = (*BARRIERS, MULTICAST) if not failed else BARRIERS
            progress(f"bench: barriers on {len(up)} nodes, failed {failed or 'none'}")
            res = run_mpi(emu, barrier_bench.argv(algorithms=barriers, iters=30 if quick else 50,
                                                  nodes=up, fattree=(K, NODES)),
                          hosts=hosts, timeout=600, env={"MCASTLAB_WAIT": WAIT})
            rows = json.loads(res.rank_output[0].strip().splitlines()[-1])["rows"]
            out["barrier"] += [{**r, "failed": failed} for r in rows]
            algos = (*BCASTS, "nack") if not failed else BCASTS
            for size in sizes:
                for alg in algos:
                    if alg == "mpich" and size > MPICH_MAX:
                        continue
                    progress(f"bench: {alg} {size} B on {len(up)} nodes, failed "
                             f"{failed or 'none'}")
                    r = run_bcast(emu, BcastCall(alg, size),
                                  RunOptions(hosts=hosts, flow=False, wait=WAIT,
                                             repetitions=10 if size >= 65536 else 20))
                    out["bcast"].append({**r.to_dict(), "failed": failed})
    return out


def _us(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e6:.0f}"


def markdown(res: dict[str, Any]) -> list[str]:
    counts = [len(t["failed"]) for t in res["trees"]]
    lines = ["", f"## Range trees on {res['topology']} (contiguous mode)", "",
             "Failed nodes (seed " + str(res["seed"]) + "): " + "; ".join(
                 f"{len(t['failed'])}: {t['failed'] or 'none'} (tree of {t['depth']} step"
                 f"{'s' if t['depth'] != 1 else ''})" for t in res["trees"]), "",
             "### Barrier, median us (last entry to last exit)", "",
             "| failed | " + " | ".join(BARRIERS) + f" | {MULTICAST} | {RANGE_TREE} / "
             f"{SOFTWARE_TREE} |",
             "|---" * (len(BARRIERS) + 3) + "|"]
    for f in counts:
        rows = {r["algorithm"]: r for r in res["barrier"] if len(r["failed"]) == f}
        med = {a: (rows[a]["t_barrier_s"] or {}).get("median") if a in rows else None
               for a in (*BARRIERS, MULTICAST)}
        fast, slow = med[RANGE_TREE], med[SOFTWARE_TREE]
        ratio = f"{fast / slow:.2f}" if fast and slow else "-"
        lines.append(f"| {f} | " + " | ".join(_us(med[a]) for a in (*BARRIERS, MULTICAST))
                     + f" | {ratio} |")
    lines += ["", "### Broadcast, median time (us) and bandwidth (MB/s)", "",
              "| failed | bytes | " + " | ".join(BCASTS) + " | nack | range-tree vs binomial |",
              "|---" * (len(BCASTS) + 4) + "|"]
    sizes = sorted({r["size"] for r in res["bcast"]})
    for f in counts:
        for size in sizes:
            rows = {r["algorithm"]: r for r in res["bcast"]
                    if len(r["failed"]) == f and r["size"] == size}
            cells, med = [], {}
            for a in (*BCASTS, "nack"):
                t = rows[a]["t_mcast_s"]["median"] if a in rows else None
                med[a] = t
                cells.append("-" if t is None else f"{t * 1e6:.0f} ({size / t / 1e6:.1f})")
            ratio = (f"{med['binomial'] / med['range-tree']:.2f}x"
                     if med["binomial"] and med["range-tree"] else "-")
            lines.append(f"| {f} | {size} | " + " | ".join(cells) + f" | {ratio} |")
    return lines
