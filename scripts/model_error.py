"""The t_hold/t_end model against the trees on one star: t_hold/t_end measured on the
broadcast's hosts (t_hold at every count of back-to-back sends), then each tree's median
over many broadcasts beside the model's prediction at its busiest node's count, and
DYN-Tree's share of broadcasts built as OPT-Tree (docs/trees.md quotes its figures).

    sudo .venv/bin/python scripts/model_error.py --bw 10 --hosts 8 --size 1024
"""

from __future__ import annotations

import argparse
import json

from collectives.call import BcastCall
from testbed.emulation.network import Emulation
from testbed.measure import model_inputs
from testbed.measure.bcast import run_bcast
from testbed.measure.options import RunOptions
from testbed.measure.params import measure_params
from topologies import parse_spec

TREES = ("sequential", "binomial", "opt-tree", "dyn-tree")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bw", type=float, default=10, help="link rate, Mbit/s")
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--repetitions", type=int, default=40)
    args = ap.parse_args()
    with Emulation(parse_spec(f"star:hosts={args.hosts},bw={args.bw:g}")) as emu:
        names = [h.name for h in emu.topo.hosts]
        params = measure_params(emu, sorted({1, 1024, 65536, args.size}), repetitions=3,
                                dummy_max=0, budget_bytes=1 << 20, hosts=names)
        print(json.dumps({k: params[k] for k in ("t_hold_sends_s", "t_hold_software_s",
                                                 "t_end_s", "wire_check", "partner_host")}))
        for tree in TREES:
            r = run_bcast(emu, BcastCall(tree, args.size),
                          RunOptions(hosts=args.hosts, flow=False, repetitions=args.repetitions,
                                     params=params))
            sends = model_inputs.sends_for(tree, args.hosts, args.size, params)
            model = r.predicted_s or float("nan")
            same = (r.dyn_tree or {}).get("same_as_opt_tree")
            print(f"{tree}: {r.t_mcast.median * 1e3:.3f} ms, model {model * 1e3:.3f} ms "
                  f"(measured/model {r.t_mcast.median / model:.2f}), t_hold at {sends} "
                  f"send(s)" + (f", OPT-Tree's tree in {same:.0%}" if same is not None
                                else ""))


if __name__ == "__main__":
    main()
