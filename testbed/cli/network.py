"""Commands about the machine and the network itself: doctor, topo, net, up, calibrate,
cleanup."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from collections.abc import Iterator

from topologies import TopologyError, parse_spec

from ..cluster import doctor
from ..cluster.spread import across
from ..emulation.cleanup import cleanup_stale, leftovers
from ..emulation.environment import detect, detected, report
from ..emulation.network import Emulation
from ..emulation.ports import host_port_type
from ..errors import McastlabError, UsageError
from ..fidelity.link_rate import nominal_topology
from ..live.view import LiveView, check_available
from ..results import text_table
from ..safepath import output_file, trusted_config, write_file
from ..specs.cluster import from_dict
from .arguments import (
    BW_HELP,
    POSITIVE,
    TOPO_HELP,
    add_cluster_choice,
    add_controller_choice,
    add_link_options,
    add_out,
    cluster_spec,
    controller_config,
    int_list,
    network,
    old_spelling,
    progress,
    rate,
    refused,
    script_file,
    switch_of,
    topology,
)
from .steps import Steps


def cmd_doctor(args: argparse.Namespace) -> int:
    if args.servers:
        return _doctor_servers(args)
    caps = detect()
    if args.json:
        print(json.dumps(caps.to_dict(), indent=1))
    else:
        print(report(caps))
    return 0 if not caps.problems() else 3


def _doctor_servers(args: argparse.Namespace) -> int:
    """Each server of a cluster: ssh, the same checkout and versions, what it can emulate,
    its clock (testbed.cluster.doctor)."""
    names = [s for s in args.servers.split(",") if s.strip()]
    try:
        ssh_config = (str(trusted_config("--ssh-config", args.ssh_config))
                      if args.ssh_config else None)  # ssh runs its commands as root
        spec = from_dict({"servers": ["localhost", *names], "ssh_config": ssh_config})
    except ValueError as exc:
        raise UsageError(f"--servers: {exc}") from None
    reports = doctor.check(spec)
    if args.json:
        print(json.dumps([vars(r) for r in reports], indent=1, default=str))
    else:
        print(doctor.text(reports))
    return 0 if not any(r.problems for r in reports) else 3


def cmd_topo(args: argparse.Namespace) -> int:
    if args.spec and args.spec_given and args.spec != args.spec_given:
        raise UsageError(f"two topologies: {args.spec_given} and --topo {args.spec}")
    spec = args.spec or args.spec_given
    if not spec:
        raise UsageError("give the topology: mcastlab topo --topo SPEC (or topo SPEC)")
    save = output_file("--save", args.save) if args.save else None
    topo = parse_spec(spec)
    if save:  # a regular file, replaced atomically: never a device, a /proc file or a link
        write_file("--save", save, json.dumps(topo.to_dict(), indent=2) + "\n")
    if args.json:
        print(json.dumps(topo.to_dict(), indent=1))
    else:
        print(topo.summary())
        if args.routes:
            for src in topo.hosts:
                for dst in topo.hosts:
                    if src != dst:
                        route = " ".join(topo.path(src.name, dst.name))
                        print(f"  {src.name} -> {dst.name}: {route}")
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    # Mininet loads only where a network is built
    from mininet.cli import CLI
    from mininet.log import setLogLevel


    cluster = cluster_spec(args)
    switch = switch_of(args)
    topo, _rate_used = network(args)
    with Emulation(topo, progress=progress, controller_config=controller_config(args),
                   switch=switch, cluster=across(topo, cluster)) as emu:
        if args.loss:
            emu.set_loss(args.loss)
        state = (f"controller state: curl --unix-socket {emu.controller.api} "
                 "http://controller/state" if emu.controller else f"{switch} switches")
        progress(f"{topo.name} is up ({args.mode} mode); {state}; 'exit' tears it down")
        setLogLevel("output")  # the prompt's own output; Mininet's chatter stays off
        CLI(emu.net)
    return 0


def cmd_net(args: argparse.Namespace) -> int:
    # testbed.cli.interactive loads Mininet: only where a network is built
    from .interactive import open_prompt

    script = script_file(args)
    cluster = cluster_spec(args)
    switch = switch_of(args)
    check_web(args)
    topo, _rate_used = network(args, star_size=args.hosts)
    with Emulation(topo, progress=progress, controller_config=controller_config(args),
                   switch=switch, cluster=across(topo, cluster)) as emu:
        if args.loss:
            emu.set_loss(args.loss)
        lost = f", loss {args.loss * 100:g}% on every host link" if args.loss else ""
        how = f"{args.mode} mode" if emu.controller else f"{switch} switches"
        with live_view(emu, args.web, args.web_port or 0) as view:
            progress(f"{topo.name} is up ({how}{lost}); 'help' lists the commands, "
                     "'exit' tears it down")
            open_prompt(emu, script, view.publisher.publish if view else None)
    return 0


@contextlib.contextmanager
def live_view(emu: Emulation, web: bool, port: int) -> Iterator[LiveView | None]:
    """The live view of `emu` while the block runs, its URL printed (nothing without
    `web`)."""
    if not web:
        yield None
        return
    api = emu.controller.api if emu.controller else None
    with LiveView(emu.topo, api, emu.run_dir, port, loss=lambda: emu.loss.current,
                  ranges=emu.controller_config.contiguous) as view:
        progress(f"live view: {view.url} (this machine only; the token is the key)")
        yield view


def cmd_cleanup(_args: argparse.Namespace) -> int:

    if os.geteuid() != 0:
        raise McastlabError("cleanup must run as root (sudo mcastlab cleanup)")
    for line in cleanup_stale() or ["nothing to clean"]:
        print(line)
    left = {k: v for k, v in leftovers().items() if v}
    if any(left.get(k) for k in ("processes", "bridges", "interfaces")):
        print(f"still present (an active run?): {left}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..experiments import calibration

    counts = int_list("--host-counts", args.host_counts) if args.host_counts else [None]
    if args.host_counts and (":" in args.topo or args.topo != "star"):
        raise UsageError("--host-counts is a list of star sizes: give it with a bare --topo "
                         "star")
    if not args.max > 0:
        raise UsageError(f"--max must be > 0 Mbit/s, got {args.max:g}")
    here = calibration.machine(host_port_type(detected()))
    topos = []  # every one checked before the first is measured
    for n in counts:
        spec = args.topo if n is None else f"star:hosts={n}"
        try:
            topo = nominal_topology(spec)
        except TopologyError as exc:
            raise UsageError(f"--topo: {exc}") from None
        if topo.host_rate() is None:
            raise UsageError(f"{spec}: calibration needs shaped host links, not unlimited ones")
        topos.append(topo)
    rows, out = [], []
    with Steps(len(topos)) as step:
        for topo in topos:
            step(f"{topo.name} up to {args.max:g} Mbit/s")
            key = calibration.topology_key(topo)
            entry = None if args.redo else calibration.cached(key, here, args.max)
            source = "cached"
            if entry is None:
                entry = calibration.calibrate(topo, args.max, progress)
                source = "measured now"
            tried = sorted(entry["tried"], key=lambda v: v["mbit"])
            above = [v for v in tried if not v["ok"] and v["mbit"] > entry["mbit"]]
            rows.append([len(topo.hosts), f"{entry['mbit']:g}",
                         " ".join(f"{v['mbit']:g}{'+' if v['ok'] else '-'}" for v in tried),
                         "; ".join(above[0]["failed"]) if above else "-", source])
            out.append({"topology": calibration.topo_text(topo), "key": key, **entry,
                        "source": source})
    if args.json:
        print(json.dumps({"machine": here, "envelope": out}, indent=1))
        return 0

    print(f"keep-up envelope on this machine (up to {args.max:g} Mbit/s; + kept up, - did "
          f"not; cache {calibration.cache_file()}):")
    print(text_table(["hosts", "Mbit/s", "rates tried", "why the next rate up failed",
                      "result"], rows))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="what this machine offers and what the testbed will use")
    p.add_argument("--json", action="store_true")
    p.add_argument("--servers", metavar="HOST,...", help="check these servers too, as a "
                   "cluster with this machine: ssh without a password, the same checkout "
                   "and versions, what each can emulate, its clock")
    p.add_argument("--ssh-config", metavar="FILE", help="with --servers: ssh -F FILE")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("topo", help="describe a topology (shape[:k=v,...] or a .toml/.json file)")
    p.add_argument("--topo", dest="spec", metavar="SPEC", type=topology, help="the topology "
                   "(as every "
                   "command's --topo; a bare SPEC after 'topo' also works)")
    p.add_argument("spec_given", nargs="?", metavar="SPEC", type=topology,
                   help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="print the full description")
    p.add_argument("--routes", action="store_true", help="print every host-to-host route")
    p.add_argument("--save", metavar="FILE", help="write the JSON description to FILE")
    p.set_defaults(func=cmd_topo)

    p = sub.add_parser("net", help="bring a network up and open the Mininet prompt with "
                                   "mcastlab's commands (join, send, tree, loss, fail, ...)")
    p.add_argument("--topo", default="star", type=topology, help=TOPO_HELP)
    p.add_argument("--hosts", type=POSITIVE, help="star size (bare 'star' only)")
    p.add_argument("--bw", type=rate, help=BW_HELP)
    add_link_options(p)
    p.add_argument("--script", metavar="FILE", help="run the commands in FILE, then tear down")
    add_web_options(p)
    add_controller_choice(p)
    add_cluster_choice(p)
    p.set_defaults(func=cmd_net)

    p = sub.add_parser("up", help="bring a network up and open the Mininet prompt")
    p.add_argument("--topo", default="star", type=topology, help=TOPO_HELP)
    add_link_options(p)
    add_controller_choice(p)
    add_cluster_choice(p)
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("calibrate", help="find the highest link rate at which this machine "
                                         "keeps up with a network (cached; bw=auto uses it)")
    p.add_argument("--topo", default="star", type=topology,
                   help="shape[:key=val,...] (rates are ignored: "
                                                  "calibration scales them; default "
                                                  "%(default)s)")
    p.add_argument("--host-counts", metavar="N,N,...",
                   help="calibrate stars of these sizes, e.g. 2,4,8,16 (default: --topo as "
                        "given)")
    old_spelling(p, "--hosts", "--host-counts", metavar="N,N,...")
    p.add_argument("--max", type=float, default=100.0, metavar="MBIT",
                   help="highest rate to try (default %(default)g, the nominal rate)")
    p.add_argument("--redo", action="store_true", help="measure again, ignoring the cache")
    p.add_argument("--json", action="store_true")
    add_out(p)
    refused(p, "--loss", "the envelope is the rate at which this machine keeps up without "
                         "loss; a lossy run at it: --loss P on the command that measures")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("cleanup", help="remove everything a crashed or killed run left behind")
    p.set_defaults(func=cmd_cleanup)


def check_web(args: argparse.Namespace) -> None:
    """--web-port only with --web; --web only where it can work (view.check_available):
    refused in one line before anything starts."""
    if args.web_port is not None and not args.web:
        raise UsageError("--web-port is the live view's: give --web too")
    if args.web:
        check_available(args.web_port or 0)


def add_web_options(p: argparse.ArgumentParser) -> None:
    """--web and --web-port (the live view, docs/live-view.md)."""
    p.add_argument("--web", action="store_true", help="serve a live view of the network on "
                   "127.0.0.1 (the URL with its token is printed; docs/live-view.md)")
    p.add_argument("--web-port", type=int, metavar="PORT", help="with --web: listen on this "
                   "port (default: a free one)")
