"""`mcastlab allgather`: Allgather algorithms side by side on one network at one link rate:
per block size, each algorithm's time (every rank going at one instant to the last rank's
return), in multiples of the floor (p - 1) m / B, beside the model and, counted on the switch ports,
the frames with data against the schedule's count; every block verified on every rank;
every row with the fidelity monitor's verdict (testbed.experiments.allgather)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from collectives.algorithms import ALLGATHERS
from collectives.call import AllgatherCall
from collectives.executor import WAIT_MODES

from ..emulation.network import Emulation
from ..errors import UsageError
from ..fidelity.link_rate import LinkRate
from ..measure.allgather import AllgatherResult, model_sizes, run_allgather
from ..measure.options import RunOptions
from ..measure.params import model_params
from ..results import size_text, text_table
from .arguments import (
    NON_NEGATIVE,
    POSITIVE,
    network,
    network_arguments,
    progress,
    switch_of,
)
from .steps import Steps
from .values import SIZE_SPELLINGS, SIZES, names

DEFAULT_ALGOS = ",".join(ALLGATHERS)
DEFAULT_SIZES = "1KiB,64KiB"


def algorithms(given: list[str]) -> list[AllgatherCall]:
    """--algo: registry Allgathers (values.names has them comma-separated, each once): a call
    each (its name looked up here, once; the registry's one wording for an unknown one)."""
    try:
        return [AllgatherCall(name) for name in given]
    except ValueError as e:
        raise UsageError(f"--algo: {e}") from None


def cmd_allgather(args: argparse.Namespace) -> int:
    algos = algorithms(args.algo)
    blocks: list[int] = args.size
    topo, rate = network(args, ranks=args.hosts)
    ranks = args.hosts or len(topo.hosts)
    if ranks > len(topo.hosts):
        raise UsageError(f"--hosts {ranks}: {topo.name} has {len(topo.hosts)} hosts")
    results: list[AllgatherResult] = []
    with Steps(len(algos)) as step, \
            Emulation(topo, progress=progress, switch=switch_of(args)) as emu:
        params = None
        if args.model:
            progress(f"measuring t_end at {', '.join(map(size_text, blocks))} for the model")
            params = model_params(emu, *model_sizes(blocks, ranks))
        for algo in algos:
            step(f"{algo.algorithm}: {ranks} ranks, blocks of "
                 f"{', '.join(map(size_text, blocks))}")
            try:
                results += run_allgather(emu, algo, blocks, RunOptions(
                    hosts=ranks, repetitions=args.repetitions, params=params, loss=args.loss,
                    frames=args.frames, wait=args.wait, timeout=args.timeout))
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    verified = all(r.verified for r in results)
    if args.json:
        print(json.dumps({"topology": topo.name, "ranks": ranks, "link_rate": rate.to_dict(),
                          "rows": [r.to_dict() for r in results]}))
        return 0 if verified else 4
    print_table(results, topo.name, ranks, rate)
    return 0 if verified else 4


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.2f}"


def print_table(results: list[AllgatherResult], topology: str, ranks: int,
                rate: LinkRate) -> None:
    """Per block size, every algorithm's row; a flagged row is marked and no result."""
    for block in dict.fromkeys(r.block for r in results):
        rows: list[list[Any]] = []
        for r in (r for r in results if r.block == block):
            frames = r.frames or {}
            data = frames.get("data")
            rows.append([
                r.algorithm, f"{_ms(r.t.median)}{' !' if r.flagged else ''}",
                f"{_ms(r.t.p10)}-{_ms(r.t.p90)}",
                "-" if r.per_floor is None else f"{r.per_floor:.2f}", _ms(r.predicted_s),
                "-" if data is None else f"{data:.0f}",
                "-" if r.frames_expected is None else r.frames_expected,
                "yes" if r.verified else "NO",
                "; ".join(r.fidelity.get("flags") or []) or "kept up"])
        floor = next(r.floor_s for r in results if r.block == block)
        print(f"\nAllgather of {size_text(block)} blocks on {ranks} ranks of {topology}"
              + (f" (floor (p-1)m/B = {_ms(floor)} ms)" if floor else ""))
        print(text_table(["algorithm", "median ms", "p10-p90 ms", "x floor", "model ms",
                          "data frames", "by schedule", "verified", "fidelity"], rows))
    if any(r.flagged for r in results):
        print("  ! flagged: the emulator did not keep up; not a result")
    if any(r.loss for r in results):
        print(f"  loss {results[0].loss:.0%} of every packet on every host link")
    print(f"  links at {rate.text()}")


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("allgather", help="Allgather algorithms side by side on one network: "
                                         "times against the floor (p-1)m/B and the model, "
                                         "frames, verification, fidelity")
    network_arguments(p, "number of ranks (with a bare 'star' also its size; default: every "
                         "host)")
    p.add_argument("--algo", default=DEFAULT_ALGOS, metavar="A,A,...", type=names,
                   help="Allgather algorithms (default %(default)s)")
    p.add_argument("--size", "--sizes", default=DEFAULT_SIZES, metavar="B,B,...", type=SIZES,
                   help=f"block sizes per rank, {SIZE_SPELLINGS} (default %(default)s)")
    p.add_argument("--repetitions", type=POSITIVE, default=10, metavar="N",
                   help="timed Allgathers per algorithm and size (default %(default)s)")
    p.add_argument("--frames", type=NON_NEGATIVE, default=5, metavar="N",
                   help="count frames on the switch ports over N back-to-back Allgathers "
                        "(0: skip; default %(default)s)")
    p.add_argument("--no-model", dest="model", action="store_false",
                   help="skip measuring t_end for the model")
    p.add_argument("--wait", choices=WAIT_MODES,
                   help="how ranks wait for messages (default block: asleep)")
    p.add_argument("--timeout", type=POSITIVE, default=600, metavar="S",
                   help="seconds for each algorithm's job (default %(default)s)")
    p.set_defaults(func=cmd_allgather)
