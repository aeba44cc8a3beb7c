"""The ``mcastlab`` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from topologies import TopologyError, parse_spec

from .errors import McastlabError, UsageError
from .outputs import output_dir, output_file

EPILOG = """examples:
  sudo mcastlab doctor                      what this machine offers
  sudo mcastlab testbed                     the default experiment (results/...)
  sudo mcastlab experiment experiments/loss.toml
                                            an experiment spec: sweep, records, report
  sudo mcastlab experiment --resume results/DIR
                                            finish an interrupted experiment
  mcastlab topo mesh:rows=4,cols=4          describe a topology (no root needed)
  mcastlab hwtree --nodes 4096 --faulty 0.01 --trials 1000
                                            greedy vs optimal range-multicast trees
  sudo mcastlab up --topo fattree           the network with a Mininet prompt
  mcastlab lab                              the teaching labs; sudo mcastlab lab 1 opens one
  sudo mcastlab mpirun --topo mesh:rows=2,cols=2 -- -m collectives.programs.pingpong
  sudo mcastlab cleanup                     remove what a crashed run left behind
"""


BW_HELP = ("host link rate, Mbit/s, or 'auto' (the default for bare shapes): the highest "
           "rate up to 100 at which this machine keeps up (mcastlab calibrate)")


def _progress(msg: str) -> None:
    print(f"mcastlab: {msg}", file=sys.stderr, flush=True)


def cmd_doctor(args: argparse.Namespace) -> int:
    from .environment import detect, report

    caps = detect()
    if args.json:
        print(json.dumps(caps.to_dict(), indent=1))
    else:
        print(report(caps))
    return 0 if not caps.problems() else 3


def cmd_topo(args: argparse.Namespace) -> int:
    save = output_file("--save", args.save) if args.save else None
    topo = parse_spec(args.spec)
    if save:
        topo.save(save)
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


def _controller_config(args: argparse.Namespace):
    from controller.config import ControllerConfig
    from controller.membership import IgmpTimers

    try:
        return ControllerConfig(mode=args.mode, timers=IgmpTimers(
            query_interval=args.query_interval,
            query_response_interval=min(10.0, args.query_interval / 2)))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _add_controller_choice(p: argparse.ArgumentParser) -> None:
    from controller.config import MODES

    p.add_argument("--mode", choices=MODES, default="igmp", help="controller mode")
    p.add_argument("--query-interval", type=float, default=125.0,
                   help="IGMP general query interval, s (default 125)")


def cmd_up(args: argparse.Namespace) -> int:
    from mininet.cli import CLI
    from mininet.log import setLogLevel

    from .network import Emulation

    topo, _rate_used = _network(args)
    with Emulation(topo, progress=_progress, controller_config=_controller_config(args)) as emu:
        _progress(f"{topo.name} is up ({args.mode} mode); controller state: "
                  f"http://127.0.0.1:{emu.controller.api_port}/state; 'exit' tears it down")
        setLogLevel("output")  # the prompt's own output; Mininet's chatter stays off
        CLI(emu.net)
    return 0


def _script(args: argparse.Namespace) -> Path | None:
    """The prompt's --script file (net, lab), checked before any network comes up."""
    script = Path(args.script) if args.script else None
    if script is not None and not script.is_file():
        raise UsageError(f"--script: no such file {script}")
    return script


def cmd_net(args: argparse.Namespace) -> int:
    from mininet.log import setLogLevel

    from .netcli import McastCLI
    from .network import Emulation

    if not 0 <= args.loss <= 1:
        raise UsageError(f"--loss is a fraction of packets in [0, 1], got {args.loss:g}")
    script = _script(args)
    topo, _rate_used = _network(args, star_size=args.hosts)
    with Emulation(topo, progress=_progress, controller_config=_controller_config(args)) as emu:
        if args.loss:
            emu.set_loss(args.loss * 100)
        loss = f", loss {args.loss:g} on every host link" if args.loss else ""
        _progress(f"{topo.name} is up ({args.mode} mode{loss}); 'help' lists the commands, "
                  "'exit' tears it down")
        setLogLevel("output")
        McastCLI(emu, script=str(script) if script else None)
    return 0


def cmd_lab(args: argparse.Namespace) -> int:
    from .labs import runner

    if args.number is None:
        if args.check or args.solve or args.script:
            raise UsageError("give the lab's number, e.g. mcastlab lab 1 --check answers.toml")
        print(runner.listing())
        return 0
    lab = runner.get(args.number)
    if sum(map(bool, (args.check, args.solve, args.script))) > 1:
        raise UsageError("--check, --solve and --script do not go together")
    if args.check:
        return runner.check_files(lab, [Path(f) for f in args.check], _progress)
    if args.solve:  # the file checked before the measurement, not after it
        out = None if args.solve == "-" else output_file("--solve", args.solve)
        return runner.solve(lab, out, _progress)
    script = _script(args)
    return runner.open_lab(lab, script, _progress)


def cmd_run(args: argparse.Namespace) -> int:
    from .mpi import run_mpi
    from .network import Emulation

    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog:
        raise UsageError("give the program after '--', e.g. -- -m collectives.programs.pingpong")
    _program_file(prog[0])
    topo, _rate_used = _network(args)
    hosts = args.hosts.split(",") if args.hosts else None
    with Emulation(topo, progress=_progress, controller_config=_controller_config(args)) as emu:
        res = run_mpi(emu, prog, hosts=hosts, np=args.np, ppn=args.ppn, timeout=args.timeout,
                      check=False)
        for rank, text in sorted(res.rank_output.items()):
            for line in text.splitlines():
                print(f"[{rank}] {line}")
    if res.returncode != 0:
        raise McastlabError(f"the MPI job exited with code {res.returncode}")
    return 0


def _program_file(first: str) -> None:
    """python's first argument, unless an option (-m, -c, -u ...), is its script: a missing
    one is refused here, not by every rank after the network came up. The old `mcastlab run
    myspec` lands here too (an experiment spec was told apart by its .toml)."""
    if first.startswith("-") or Path(first).is_file():
        return
    spec = (f"; the experiment spec {first}.toml? mcastlab experiment {first}.toml"
            if Path(f"{first}.toml").is_file() else "")
    raise UsageError(f"no such program file {first} (a program goes after '--', e.g. -- -m "
                     f"collectives.programs.pingpong; an experiment spec runs with mcastlab "
                     f"experiment){spec}")


def cmd_pingpong(args: argparse.Namespace) -> int:
    from . import default_experiment

    out = default_experiment.run(args.topo, out_root=output_dir("--out", args.out),
                                 reps=args.reps, progress=_progress)
    print((out / "summary.txt").read_text())
    print(f"results: {out}/ (config.json, records.jsonl, summary.txt, report.html)")
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    from .experiment_cli import run_spec

    return run_spec(args, _progress)


def cmd_testbed(args: argparse.Namespace) -> int:
    from .experiment_cli import DEFAULT_SPEC

    args.spec = args.spec or str(DEFAULT_SPEC)
    args.resume = args.list = None
    return cmd_experiment(args)


def cmd_cleanup(_args: argparse.Namespace) -> int:
    import os

    from .cleanup import cleanup_stale, leftovers

    if os.geteuid() != 0:
        raise McastlabError("cleanup must run as root (sudo mcastlab cleanup)")
    for line in cleanup_stale() or ["nothing to clean"]:
        print(line)
    left = {k: v for k, v in leftovers().items() if v}
    if any(left.get(k) for k in ("processes", "bridges", "interfaces")):
        print(f"still present (an active run?): {left}")
    return 0


def cmd_controller(args: argparse.Namespace) -> int:
    from controller.__main__ import checked_config, start

    try:
        config = checked_config(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    code = start(args, config)
    if code:
        raise UsageError("the controller did not start (see the message above)")
    return 0


def _api_port(args: argparse.Namespace) -> int:
    """The controller to talk to: --api-port, else the active run's."""
    from .registry import active_run

    if args.api_port:
        return args.api_port
    run = active_run()
    if run is None or not run.api_port:
        raise McastlabError("no mcastlab run is active (start one, or give --api-port of a "
                            "controller started with 'mcastlab controller')")
    return run.api_port


def _not_controller(args: argparse.Namespace, port: int, why: str) -> McastlabError:
    """Nothing, or something else, on the port: bad input (exit 2) when --api-port named it,
    otherwise the active run's controller is gone (exit 1)."""
    error = UsageError if args.api_port else McastlabError
    return error(f"no mcastlab controller answers on 127.0.0.1:{port} ({why})")


def _api(args: argparse.Namespace, path: str, body: dict | None = None) -> dict:
    """The controller's JSON answer, an object; anything else on the port is one error line."""
    import http.client
    import urllib.error

    from .controller_proc import api_get, api_post

    port = _api_port(args)
    try:
        answer = api_post(port, path, body) if body is not None else api_get(port, path)
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read())["error"]
        except (ValueError, TypeError, KeyError):
            raise _not_controller(args, port, f"HTTP {exc.code} on {path}") from None
        raise McastlabError(f"controller: {message}") from None
    except OSError as exc:  # refused, reset, timed out
        why = " ".join(str(getattr(exc, "reason", exc)).split()) or type(exc).__name__
        raise _not_controller(args, port, why) from None
    except http.client.HTTPException:
        raise _not_controller(args, port, "the answer is not HTTP") from None
    except ValueError:
        raise _not_controller(args, port, f"{path} is not JSON") from None
    if not isinstance(answer, dict):
        raise _not_controller(args, port, f"{path} is not a JSON object")
    return answer


@contextlib.contextmanager
def _controller_answer(args: argparse.Namespace, path: str) -> Iterator[None]:
    """Reading an answer of `path`: another service's JSON is one error line, not a KeyError."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError):
        raise _not_controller(args, _api_port(args), f"{path} is not the controller's") from None


def _show(args: argparse.Namespace, path: str, text: Callable[[dict], str]) -> int:
    """GET `path` and print it: as JSON with --json, else as `text` makes it."""
    answer = _api(args, path)
    if args.json:
        print(json.dumps(answer, indent=1))
        return 0
    with _controller_answer(args, path):
        shown = text(answer)
    print(shown)
    return 0


def _groups_text(groups: dict) -> str:
    from .netcli import group_lines

    return "\n".join(group_lines(groups))


def _ports_text(ports: dict) -> str:
    from .results import text_table

    rows = [[sw, p, c["neighbour"], c["tx_packets"], c["tx_bytes"], c["rx_packets"],
             c["rx_bytes"]] for sw, pp in ports.items() for p, c in pp.items()]
    return text_table(["switch", "port", "to", "tx pkts", "tx bytes", "rx pkts", "rx bytes"],
                      rows)


def cmd_groups(args: argparse.Namespace) -> int:
    return _show(args, "/groups", _groups_text)


def cmd_ports(args: argparse.Namespace) -> int:
    return _show(args, "/ports", _ports_text)


def cmd_nodes(args: argparse.Namespace) -> int:
    path = "/nodes/fail" if args.command == "fail" else "/nodes/restore"
    res = _api(args, path, {"nodes": args.nodes})
    with _controller_answer(args, path):
        failed = ", ".join(map(str, res["failed"]))
    print(f"failed nodes: {failed or 'none'}")
    return 0


def cmd_trees(args: argparse.Namespace) -> int:
    from collectives.algorithms import BCASTS
    from collectives.contention.schedules import Timed
    from collectives.trees.describe import describe
    from topologies import parse_spec

    from .placement import contended, node_params

    nodes = _int_list("--nodes", args.nodes) if args.nodes is not None else None
    if nodes is not None and args.topo is None:
        raise UsageError("--nodes places the ranks on a network: give --topo too")
    k = args.k if args.k is not None else (len(nodes) if nodes is not None else None)
    if k is None:
        raise UsageError("give --k (number of nodes) or --nodes")
    if nodes is not None and len(nodes) != k:
        raise UsageError(f"--nodes gives {len(nodes)} nodes, --k says {k}")
    if BCASTS[args.algorithm].nodes and args.topo is None:
        raise UsageError(f"{args.algorithm} follows a network's routing: give --topo, e.g. "
                         "--topo mesh:rows=6,cols=6")
    topo = placement = None
    if args.topo is not None:
        try:
            topo = parse_spec(args.topo)
        except (ValueError, TypeError, OSError) as exc:
            raise UsageError(f"--topo: {exc}") from None
        nodes = nodes if nodes is not None else list(range(k))
        hosts = {h.node_id: h.name for h in topo.hosts}
        bad = [n for n in nodes if n not in hosts]
        if bad or len(set(nodes)) != len(nodes):
            raise UsageError(f"--nodes must be distinct nodes of {topo.name} (0.."
                             f"{len(hosts) - 1}), got {nodes}")
        try:
            placement = node_params(topo, args.algorithm, [hosts[n] for n in nodes])
        except McastlabError as exc:
            raise UsageError(str(exc)) from None
    try:
        d = describe(args.algorithm, k, args.t_hold, args.t_end, root=args.root,
                     nbytes=args.size, ports=args.ports, t_int=args.t_int,
                     fragment=args.fragment, placement=placement)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    if topo is not None:
        sends = [Timed(nodes[s["sender"]], nodes[s["receiver"]], s["time"])
                 for s in d["schedule"]]
        d.update(topology=topo.name, nodes=nodes, contended=[
            {"sends": [[x.sender, x.receiver, x.start], [y.sender, y.receiver, y.start]],
             "links": sorted(f"{a}>{b}" for a, b in shared)}
            for x, y, shared in contended(topo, sends, args.t_hold)])
    if args.json:
        print(json.dumps(d, indent=1))
        return 0
    print(f"{d['algorithm']}, k={d['k']}, root {d['root']}, t_hold={d['t_hold']:g}, "
          f"t_end={d['t_end']:g}" + (f", {d['ports']} ports, t_int={d['t_int']:g}"
                                      if d["ports"] > 1 else "")
          + (f", on {d['topology']}" if "topology" in d else ""))
    where = (lambda r: f"{r}(h{nodes[r]})") if topo is not None else str
    for s in d["schedule"]:
        port = f" (port {s['port']})" if "port" in s else ""
        print(f"  t={s['time']:>10g}  {where(s['sender']):>7} -> {where(s['receiver']):<7} "
              f"arrives {s['arrival']:g}{port}")
    print(f"predicted t_mcast = {d['predicted']:g}")
    if "contended" in d:
        print(f"sends under way together on a shared link: {len(d['contended'])} pairs")
        for c in d["contended"]:
            (a, b, ta), (x, y, tx) = c["sends"]
            print(f"  h{a}->h{b} at {ta:g} and h{x}->h{y} at {tx:g} share "
                  + ", ".join(c["links"]))
    return 0


@contextlib.contextmanager
def _trial_progress(total: int) -> Iterator[Callable[[int, int], None]]:
    """A progress callback for long pure computations, on stderr: a rich bar on a terminal,
    otherwise a plain line at most every 10 s."""
    import time

    import rich.progress as rp
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        with rp.Progress(rp.TextColumn("[bold]trials"), rp.BarColumn(), rp.MofNCompleteColumn(),
                         rp.TimeElapsedColumn(), rp.TextColumn("left"), rp.TimeRemainingColumn(),
                         console=console, transient=True) as bar:
            task = bar.add_task("trials", total=total)
            yield lambda done, _total: bar.update(task, completed=done)
        return
    last = time.monotonic()

    def plain(done: int, total_: int) -> None:
        nonlocal last
        if time.monotonic() - last >= 10 and done < total_:
            last = time.monotonic()
            _progress(f"{done}/{total_} trials")

    yield plain


def _hwtree_failed(args: argparse.Namespace) -> int:
    """The greedy and the optimal tree around these failed nodes, step by step."""
    from collectives.range_trees.kary_tree import KaryNTree
    from collectives.range_trees.trees import SearchLimitExceeded, greedy_tree, optimal_tree

    try:
        tree = KaryNTree.for_nodes(args.nodes, args.arity)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    failed = set(_int_list("--failed", args.failed))
    bad = sorted(n for n in failed if not 0 <= n < args.nodes)
    if bad or args.root in failed or not 0 <= args.root < args.nodes:
        raise UsageError(f"--failed and --root must be nodes 0..{args.nodes - 1} and the root "
                         f"must not fail (got failed {sorted(failed)}, root {args.root})")
    up = [n for n in range(args.nodes) if n not in failed]
    trees = {"greedy": greedy_tree(tree, args.root, up)}
    try:
        trees["optimal"] = optimal_tree(tree, args.root, up, args.budget)
    except SearchLimitExceeded:
        trees["optimal"] = None
    if args.json:
        print(json.dumps({name: t and [[vars(m) for m in step] for step in t.steps()]
                          for name, t in trees.items()}, indent=1))
        return 0
    print(f"{args.nodes} nodes ({tree.arity}-ary {tree.dims}-tree), root {args.root}, failed "
          f"{', '.join(map(str, sorted(failed))) or 'none'}")
    for name, t in trees.items():
        if t is None:
            print(f"{name}: undecided within {args.budget} search states")
            continue
        print(f"{name}: {t.depth} steps, {len(t.multicasts)} range multicasts")
        for i, step in enumerate(t.steps(), 1):
            print(f"  step {i}: " + ", ".join(f"{m.sender} -> {m.lo}..{m.hi}" for m in step))
    return 0


def cmd_hwtree(args: argparse.Namespace) -> int:
    from collectives.range_trees.trials import check_config, hwtree_trials

    if args.failed is not None:
        if args.faulty is not None or args.trials is not None:
            raise UsageError("--failed shows one tree; --faulty/--trials draw random ones")
        return _hwtree_failed(args)
    if args.faulty is None or args.trials is None:
        raise UsageError("give --faulty and --trials (random faulty nodes), or --failed N,N")

    try:
        tree = check_config(args.nodes, args.faulty, args.trials, args.arity)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.budget < 1:
        raise UsageError(f"--budget must be >= 1, got {args.budget}")
    with _trial_progress(args.trials) as progress:
        stats = hwtree_trials(args.nodes, args.faulty, args.trials, seed=args.seed,
                              arity=args.arity, budget=args.budget, progress=progress)
    if args.json:
        print(json.dumps(stats.to_dict(), indent=1))
        return 0
    from .results import text_table

    greedy, optimal = stats.fractions(stats.greedy), stats.fractions(stats.optimal)
    rows = [[d, f"{greedy.get(d, 0):.1%}", f"{optimal[d]:.1%}" if d in optimal else "-"]
            for d in sorted(set(greedy) | set(optimal))]
    print(f"{stats.nodes} nodes ({tree.arity}-ary {tree.dims}-tree), {stats.faulty_nodes} "
          f"faulty ({args.faulty:.2%}), {stats.trials} trials, seed {stats.seed}")
    print(text_table(["steps", "greedy", "optimal"], rows))
    if stats.undecided:
        print(f"undecided: {stats.undecided} trials (the optimal search exceeded "
              f"{args.budget} states; optimal column over the other {stats.decided})")
    print(f"greedy optimal in {stats.greedy_optimal_fraction:.1%} of {stats.decided} "
          f"decided trials")
    return 0


def _topo_spec(topo: str, bw: str | None, star_size: int | None, ranks: int | None) -> str:
    """--topo with --bw and --hosts folded in; a contradiction is refused, never ignored.

    --bw is the host-link rate of any shape: added to its parameters, refused when they give
    bw= too or when --topo is a file (a file keeps its own rates). --hosts of a bare 'star'
    is its size. `star_size` (net, params): --hosts means nothing else, so it is refused
    with any other --topo. `ranks` (bcast): that many ranks, at most the network's hosts.
    """
    from topologies import split_spec
    from topologies.spec_file import is_topology_file

    from .link_rate import nominal_topology

    spec = topo.strip()
    bare_star = spec == "star"
    if star_size and not bare_star:
        where = "hosts= in --topo" if spec.startswith("star:") else "the size in --topo"
        raise UsageError(f"--hosts sizes a bare 'star', not {spec}: give {where}")
    extra = [f"hosts={star_size or ranks}"] if bare_star and (star_size or ranks) else []
    if bw:
        if is_topology_file(spec):
            raise UsageError(f"--bw: the topology file {spec} sets its own link rates")
        try:
            params = split_spec(spec)[1]
        except TopologyError as exc:
            raise UsageError(f"--topo: {exc}") from None
        if "bw" in params:
            raise UsageError(f"--bw {bw} and bw={params['bw']} in --topo: give the rate once")
        extra.append(f"bw={bw}")
    if extra:
        spec += ("," if ":" in spec else ":") + ",".join(extra)
    if ranks and not bare_star:
        try:
            hosts = len(nominal_topology(spec).hosts)
        except TopologyError as exc:
            raise UsageError(f"topology: {exc}") from None
        if ranks > hosts:
            raise UsageError(f"--hosts {ranks}: {spec} has {hosts} hosts")
    return spec


def _network(args: argparse.Namespace, *, star_size: int | None = None,
             ranks: int | None = None):
    """The topology to run (--topo, --bw, --hosts as _topo_spec reads them) and its LinkRate:
    a shape without a rate, or with bw=auto, runs at this machine's calibrated rate
    (testbed.link_rate)."""
    from .link_rate import resolve

    return resolve(_topo_spec(args.topo, getattr(args, "bw", None), star_size, ranks),
                   _progress)


def _rate(text: str) -> str:
    """--bw: 'auto' or a rate in Mbit/s > 0 (argparse type)."""
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'auto' or Mbit/s, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a rate must be > 0 Mbit/s, got {text!r}")
    return f"{value:g}"


def _at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= low (a count, a size), refused while parsing."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    return whole


POSITIVE, NON_NEGATIVE = _at_least(1), _at_least(0)


def _seconds(text: str) -> float:
    """An argparse type: a duration > 0 s."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0 s, got {text}")
    return value


def _int_list(option: str, text: str) -> list[int]:
    """A comma-separated list of non-negative ints, or UsageError naming the option."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} takes comma-separated whole numbers, got {text!r}") from None
    if any(v < 0 for v in values):
        raise UsageError(f"{option} takes non-negative numbers, got {text!r}")
    return values


def cmd_params(args: argparse.Namespace) -> int:
    from .bcast_experiment import measure_params
    from .network import Emulation

    sizes = _int_list("--sizes", args.sizes)
    topo, rate = _network(args, star_size=args.hosts)
    with Emulation(topo, progress=_progress) as emu:
        _progress(f"measuring t_hold/t_end on {emu.topo.name} for {len(sizes)} sizes")
        res = measure_params(emu, sizes, repeats=args.repeats, dummy_max=args.dummy_max,
                             budget_bytes=args.budget_bytes)
    res["link_rate"] = rate.to_dict()
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    from .results import text_table

    rows = [[m, f"{h * 1e6:.1f}", f"{e * 1e6:.1f}"]
            for m, h, e in zip(res["sizes"], res["t_hold_s"], res["t_end_s"], strict=True)]
    print(f"hosts {' and '.join(res['hosts'])} (medians of {res['repeats']} runs), links at "
          f"{rate.text()}")
    print(text_table(["bytes", "t_hold us", "t_end us"], rows))
    for row in res["system"]:
        print(f"  {row['m']} B: t_send {row['t_send_s'] * 1e6:.1f} us, t_net "
              f"{row['t_net_s'] * 1e6:.1f} us, t_recv {row['t_recv_s'] * 1e6:.1f} us")
    for name, f in res["fits"].items():
        print(f"  {name}(m) = {f['start_s'] * 1e6:.2f} us + m * {f['per_byte_s'] * 1e9:.3f} ns")
    return 0


def cmd_bcast(args: argparse.Namespace) -> int:
    from collectives.algorithms import BCASTS, NATIVE

    from .bcast_experiment import model_params, run_bcast
    from .fidelity import Monitor
    from .network import Emulation

    if args.algo not in BCASTS:
        raise UsageError(f"unknown algorithm {args.algo!r}; choose from "
                         f"{', '.join(BCASTS)}")
    if not 0 <= args.loss <= 1:
        raise UsageError(f"--loss is a fraction of packets in [0, 1], got {args.loss:g}")
    from .bcast_experiment import MPICH_ALGORITHMS

    if args.mpich_algorithm and (args.algo != NATIVE
                                 or args.mpich_algorithm not in MPICH_ALGORITHMS):
        raise UsageError(f"--mpich-algorithm needs --algo {NATIVE} and one of "
                         f"{', '.join(MPICH_ALGORITHMS)}")
    topo, rate = _network(args, ranks=args.hosts)
    flow = args.flow if args.flow is not None else not args.loss
    if args.flow is None and args.loss:
        _progress("flow-latency benchmark skipped under --loss (pass --flow to run it)")
    with Emulation(topo, progress=_progress) as emu:
        _progress(f"measuring t_hold/t_end at {args.size} B for the model")
        params = model_params(emu, args.size)
        _progress(f"broadcasting {args.size} B with {args.algo} on "
                  f"{args.hosts or len(topo.hosts)} hosts")
        with Monitor(emu.topo) as mon:
            res = run_bcast(emu, args.algo, args.size, hosts=args.hosts, iters=args.iters,
                            flow=flow, params=params, fragment=args.fragment,
                            mpich_algorithm=args.mpich_algorithm, wait=args.wait,
                            loss=args.loss, loss_scope=args.loss_scope, frames=args.frames)
        res["fidelity"] = mon.window(*res["window"],
                                     host_wait_s=(res.get("cpu") or {}).get("wait_per_turn_s"))
    from .wire_units import in_units

    res["link_rate"] = rate.to_dict()
    res["t_mcast_units"] = in_units(res["t_mcast_s"]["median"], args.size, rate.mbit)
    if args.json:
        print(json.dumps(res))
        return 0 if res["verified"] else 4
    t = res["t_mcast_s"]
    pred = f"{res['predicted_s'] * 1e6:.0f} us" if res["predicted_s"] is not None else "-"
    print(f"{res['algorithm']} {res['size']} B on {res['hosts']} hosts of {res['topology']}: "
          f"t_mcast median {t['median'] * 1e6:.0f} us (p10 {t['p10'] * 1e6:.0f}, p90 "
          f"{t['p90'] * 1e6:.0f}); predicted {pred}; verified {res['verified']}")
    flags = res["fidelity"]["flags"]
    print("  fidelity: " + ("; ".join(flags) + " (not a result: the emulator did not keep up)"
                            if flags else "kept up (no flag)"))
    units = res["t_mcast_units"]
    print(f"  links at {rate.text()}"
          + (f"; t_mcast = {units['per_wire_time']:.2f} x M/B" if units["per_wire_time"]
             else "")
          + (f" = {units['per_frame_time']:.1f} frame times" if units["per_frame_time"]
             else ""))
    from .netcli import rank_lines

    print("\n".join("  " + ln for text in rank_lines(res) for ln in text.splitlines()))
    cpu = res.get("cpu") or {}
    if cpu.get("busy") is not None:
        print(f"  CPU: {cpu['ranks']} ranks on {cpu['cores']} cores, machine {cpu['busy']:.0%} "
              f"busy, ranks on a CPU {cpu['on_cpu']:.0%} of their time in the broadcast")
    if res.get("frames"):
        print(f"  frames per broadcast: {res['frames']['sent']:.1f} sent by hosts, "
              f"{res['frames']['delivered']:.1f} delivered to hosts")
    if res.get("link_bytes") and res["size"]:
        busiest = sorted(res["link_bytes"].items(), key=lambda kv: -kv[1])[:4]
        print("  busiest links (copies of the message per broadcast, headers included): "
              + ", ".join(f"{link} {b / res['size']:.1f}" for link, b in busiest))
    if res.get("datagrams"):
        d = res["datagrams"]["per_broadcast"]
        print(f"  datagrams per broadcast: {d['sent']:.1f} sent, {d['received']:.1f} received, "
              f"{d['rejected']:.1f} rejected, {d['repaired']:.1f} fragments repaired")
        if res["datagrams"].get("pace_bps"):
            print(f"  the root's pace after the last broadcast: "
                  f"{res['datagrams']['pace_bps'] / 1e6:.1f} Mbit/s, its group round trip "
                  f"{res['datagrams']['grtt_s'] * 1e3:.2f} ms")
    if res.get("flow"):
        print(f"  flow-latency benchmark: {res['flow']['t_mcast_s'] * 1e6:.0f} us "
              f"(critical responder {res['flow']['critical']})")
    return 0 if res["verified"] else 4


def cmd_calibrate(args: argparse.Namespace) -> int:
    from . import calibration
    from .environment import detect
    from .link_rate import nominal_topology
    from .network import host_port_type

    counts = _int_list("--hosts", args.hosts) if args.hosts else [None]
    if args.hosts and (":" in args.topo or args.topo != "star"):
        raise UsageError("--hosts takes a list of star sizes: give it with a bare --topo star")
    if not args.max > 0:
        raise UsageError(f"--max must be > 0 Mbit/s, got {args.max:g}")
    here = calibration.machine(host_port_type(detect()))
    rows, out = [], []
    for n in counts:
        spec = args.topo if n is None else f"star:hosts={n}"
        try:
            topo = nominal_topology(spec)
        except TopologyError as exc:
            raise UsageError(f"--topo: {exc}") from None
        if topo.host_rate() is None:
            raise UsageError(f"{spec}: calibration needs shaped host links, not unlimited ones")
        key = calibration.topology_key(topo)
        entry = None if args.redo else calibration.cached(key, here, args.max)
        source = "cached"
        if entry is None:
            entry = calibration.calibrate(topo, args.max, _progress)
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
    from .results import text_table

    print(f"keep-up envelope on this machine (up to {args.max:g} Mbit/s; + kept up, - did "
          f"not; cache {calibration.cache_file()}):")
    print(text_table(["hosts", "Mbit/s", "rates tried", "why the next rate up failed",
                      "result"], rows))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    out = bench.run(output_dir("--out", args.out), quick=args.quick, progress=_progress,
                    suite=args.suite)
    print(out.read_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="mcastlab", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Emulation testbed for broadcast and barrier algorithms over "
                    "Mininet, Open vSwitch, an OpenFlow multicast controller and MPI.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("doctor", help="what this machine offers and what the testbed will use")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("topo", help="describe a topology (shape[:k=v,...] or a .toml/.json file)")
    p.add_argument("spec")
    p.add_argument("--json", action="store_true", help="print the full description")
    p.add_argument("--routes", action="store_true", help="print every host-to-host route")
    p.add_argument("--save", metavar="FILE", help="write the JSON description to FILE")
    p.set_defaults(func=cmd_topo)

    topo_help = ("topology: shape[:key=val,...] or a .toml/.json file (default %(default)s); "
                 "a shape without bw= runs at this machine's calibrated rate (bw=auto)")
    p = sub.add_parser("net", help="bring a network up and open the Mininet prompt with "
                                   "mcastlab's commands (join, send, tree, loss, fail, ...)")
    p.add_argument("--topo", default="star", help=topo_help)
    p.add_argument("--hosts", type=POSITIVE, help="star size (bare 'star' only)")
    p.add_argument("--bw", type=_rate, help=BW_HELP)
    p.add_argument("--loss", type=float, default=0.0, metavar="P",
                   help="drop this fraction of the packets each way on every host link")
    p.add_argument("--script", metavar="FILE", help="run the commands in FILE, then tear down")
    _add_controller_choice(p)
    p.set_defaults(func=cmd_net)

    p = sub.add_parser("lab", help="the teaching labs (labs/): list them, set one's network "
                                   "up, check answers against the testbed's measurement")
    p.add_argument("number", type=int, nargs="?", help="the lab (none: list the labs)")
    p.add_argument("--check", nargs="+", metavar="ANSWERS.toml",
                   help="measure the lab on the testbed and check these answer files "
                        "(exit 5 if an answer is wrong)")
    p.add_argument("--solve", metavar="FILE", help="measure the lab and write the testbed's "
                                                  "own answers to FILE ('-': stdout)")
    p.add_argument("--script", metavar="FILE", help="run the prompt's commands in FILE")
    p.set_defaults(func=cmd_lab)

    p = sub.add_parser("up", help="bring a network up and open the Mininet prompt")
    p.add_argument("--topo", default="star", help=topo_help)
    _add_controller_choice(p)
    p.set_defaults(func=cmd_up)

    p = sub.add_parser("mpirun", help="run an mpi4py program across the emulated hosts "
                                      "('mcastlab run -- PROGRAM' before)")
    p.add_argument("--topo", default="star", help=topo_help)
    p.add_argument("--np", type=POSITIVE, help="number of ranks (default: one per host)")
    p.add_argument("--ppn", type=POSITIVE, default=1, help="ranks per host (default 1)")
    p.add_argument("--hosts", help="comma-separated host names or ids, rank order")
    p.add_argument("--timeout", type=_seconds, default=300.0, help="seconds (default 300)")
    _add_controller_choice(p)
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="after '--': arguments to python, e.g. -m collectives.programs.pingpong")
    p.set_defaults(func=cmd_run)

    _experiment_arguments(sub.add_parser(
        "experiment", help="run an experiment spec (TOML): every point measured, a results "
                           "folder with an HTML report ('mcastlab run SPEC.toml' before)"))

    from .default_experiment import DEFAULT_TOPOLOGY

    p = sub.add_parser("testbed", help="run the default experiment (experiments/default.toml) "
                                       "and print where its report is")
    p.add_argument("--spec", help="another experiment spec instead of the default")
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.set_defaults(func=cmd_testbed)

    p = sub.add_parser("pingpong", help="MPI ping-pong from rank 0 to every rank (latency, "
                                        "bandwidth); writes a results folder")
    p.add_argument("--topo", default=DEFAULT_TOPOLOGY, help=topo_help)
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.add_argument("--reps", type=POSITIVE, default=50, help="measured round trips per pair")
    p.set_defaults(func=cmd_pingpong)

    from controller.__main__ import add_arguments

    p = sub.add_parser("controller", help="run the OpenFlow controller in the foreground")
    add_arguments(p)
    p.set_defaults(func=cmd_controller)

    api_help = "JSON port of a controller (default: the active run's)"
    for name, helptext, func in [("groups", "multicast groups, members, trees, refusals",
                                  cmd_groups),
                                 ("ports", "per-port packet and byte counters of every switch",
                                  cmd_ports)]:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--json", action="store_true")
        p.add_argument("--api-port", type=POSITIVE, help=api_help)
        p.set_defaults(func=func)
    for name, helptext in [("fail", "mark nodes failed/excluded (contiguous mode refuses "
                                    "ranges holding them)"),
                           ("restore", "clear the failed mark of nodes")]:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("nodes", type=int, nargs="+", metavar="NODE_ID")
        p.add_argument("--api-port", type=POSITIVE, help=api_help)
        p.set_defaults(func=cmd_nodes)

    from collectives.algorithms import BCASTS, names
    from collectives.executor import WAIT_MODES
    from collectives.range_trees.trials import DEFAULT_BUDGET

    p = sub.add_parser("trees", help="a broadcast schedule and its predicted latency "
                                     "(no root needed)")
    p.add_argument("algorithm", choices=names("tree", "contention"))
    p.add_argument("--k", type=int, help="number of nodes (default: as many as --nodes)")
    p.add_argument("--t-hold", type=float, required=True)
    p.add_argument("--t-end", type=float, required=True)
    p.add_argument("--root", type=int, default=0)
    p.add_argument("--size", type=int, default=0, help="message bytes (byte ranges shown)")
    p.add_argument("--fragment", type=int, help="fragmented-chain fragment size")
    p.add_argument("--ports", type=int, default=1, help="alpha ports (opt-tree)")
    p.add_argument("--t-int", type=float, help="interval between sends on different ports")
    p.add_argument("--topo", metavar="SPEC",
                   help="place the ranks on this network (shape[:k=v,...]; needed by opt-mesh, "
                        "u-mesh, u-torus, opt-min) and list the sends that share one of its "
                        "links while both are under way (each holds its path for t_hold)")
    p.add_argument("--nodes", metavar="N,N,...",
                   help="the node of each rank on --topo (default rank i on node i)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_trees)

    p = sub.add_parser("hwtree", help="greedy vs optimal trees of hardware range multicasts "
                                      "over random faulty nodes (Coll2003; no root needed)")
    p.add_argument("--nodes", type=int, required=True,
                   help="network size: a power of the arity, or whole top-level subtrees")
    p.add_argument("--faulty", type=float, metavar="F",
                   help="fraction of faulty nodes, 0 <= F < 1 (rounded to whole nodes)")
    p.add_argument("--trials", type=int, metavar="T")
    p.add_argument("--failed", metavar="N,N,...", help="instead of random trials: the greedy "
                   "and optimal trees around these failed nodes, step by step")
    p.add_argument("--root", type=int, default=0, help="source node with --failed")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--arity", type=int, default=4, help="switch arity k (default 4, QsNET)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="STATES",
                   help="optimal-search states per trial before it counts as undecided "
                        "(default %(default)s)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_hwtree)

    for name, helptext, func in [
            ("params", "measure t_hold/t_end (and t_send/t_net/t_recv) on the emulated "
                       "network", cmd_params),
            ("bcast", "one measured broadcast experiment", cmd_bcast)]:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--topo", default="star", help=topo_help)
        p.add_argument("--hosts", type=POSITIVE,
                       help="star size (bare 'star' only)" if name == "params" else
                       "number of ranks (with a bare 'star' also its size)")
        p.add_argument("--bw", type=_rate, help=BW_HELP)
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=func)
        if name == "params":
            p.add_argument("--sizes", default="1,1024,16384,65536,262144,1048576")
            p.add_argument("--repeats", type=POSITIVE, default=5)
            p.add_argument("--budget-bytes", type=POSITIVE, default=8 << 20, metavar="B",
                           help="bytes per timed run of each size (default 8 MiB; 1 MiB "
                                "keeps 10 Mbit/s links quick)")
            p.add_argument("--dummy-max", type=NON_NEGATIVE, default=65536, metavar="B",
                           help="run the dummy loop for sizes up to B (0: skip it)")
        else:
            p.add_argument("--algo", required=True,
                           help=f"one of {', '.join(BCASTS)}")
            p.add_argument("--size", type=NON_NEGATIVE, required=True, help="message bytes")
            p.add_argument("--iters", type=POSITIVE, default=20)
            p.add_argument("--fragment", type=POSITIVE, help="fragmented-chain fragment size")
            p.add_argument("--no-flow", dest="flow", action="store_false", default=None,
                           help="skip the flow-latency benchmark")
            p.add_argument("--flow", dest="flow", action="store_true",
                           help="run the flow-latency benchmark also under --loss (skipped "
                                "there by default: it repeats the broadcast once per "
                                "responder, and TCP's retransmission timeouts under heavy "
                                "loss make that minutes)")
            p.add_argument("--mpich-algorithm", metavar="NAME",
                           help="with --algo mpich: MPI_Bcast's algorithm (MPICH control "
                                "variable), e.g. binomial, scatter_ring_allgather")
            p.add_argument("--wait", choices=WAIT_MODES,
                           help="how ranks wait for messages: block (default: asleep until "
                                "a socket wakes them), spin (MPI's own busy waits), yield, "
                                "sleep (naps)")
            p.add_argument("--loss", type=float, default=0.0, metavar="P",
                           help="drop this fraction of packets each way on every host link")
            p.add_argument("--loss-scope", choices=("all", "multicast"), default="all",
                           help="drop any packet (default) or only multicast datagrams")
            p.add_argument("--frames", type=NON_NEGATIVE, default=10, metavar="N",
                           help="count frames on the switch ports over N back-to-back "
                                "broadcasts (0: skip)")

    p = sub.add_parser("calibrate", help="find the highest link rate at which this machine "
                                         "keeps up with a network (cached; bw=auto uses it)")
    p.add_argument("--topo", default="star", help="shape[:key=val,...] (rates are ignored: "
                                                  "calibration scales them)")
    p.add_argument("--hosts", metavar="N,N,...", help="star sizes, e.g. 2,4,8,16")
    p.add_argument("--max", type=float, default=100.0, metavar="MBIT",
                   help="highest rate to try (default %(default)g, the nominal rate)")
    p.add_argument("--redo", action="store_true", help="measure again, ignoring the cache")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("cleanup", help="remove everything a crashed or killed run left behind")
    p.set_defaults(func=cmd_cleanup)

    p = sub.add_parser("bench", help="testbed benchmarks (start time, throughput, latency)")
    p.add_argument("--out", default="bench", help="folder for the results (default %(default)s)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer repetitions")
    from .bench import SUITES

    p.add_argument("--suite", choices=("all", "testbed", *(name for name, _, _ in SUITES)),
                   default="all", help="which benchmarks (default all)")
    p.set_defaults(func=cmd_bench)
    return ap


def _experiment_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Run an experiment spec: expand its sweep, measure every point, write a "
                     "results folder with records, CSV, plots and an HTML report.")
    p.add_argument("spec", nargs="?", help="experiment spec (TOML), e.g. experiments/default.toml")
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.add_argument("--resume", metavar="FOLDER", help="measure what an interrupted run left")
    p.add_argument("--list", action="store_true",
                   help="check the spec and list its points; run nothing (no root needed)")
    p.set_defaults(func=cmd_experiment)


def _is_experiment(argv: list[str]) -> bool:
    """`mcastlab run ...` as it was spelled for an experiment (a spec, --resume, --list)."""
    if not argv or argv[0] != "run" or "--" in argv:
        return False
    return ("--resume" in argv or "--list" in argv
            or any(a.endswith(".toml") for a in argv[1:]))


def _renamed(argv: list[str]) -> list[str]:
    """The old `mcastlab run`, which meant two commands told apart by its arguments, still
    works: as `experiment` or `mpirun`, with a note saying so."""
    if not argv or argv[0] != "run":
        return argv
    new = "experiment" if _is_experiment(argv) else "mpirun"
    print(f"mcastlab: note: 'mcastlab run' is now 'mcastlab {new}' (and 'mcastlab "
          f"{'mpirun' if new == 'experiment' else 'experiment'}' for "
          f"{'programs' if new == 'experiment' else 'experiment specs'})", file=sys.stderr)
    return [new, *argv[1:]]


def main(argv: list[str] | None = None) -> int:
    argv = _renamed(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (McastlabError, TopologyError) as exc:
        print(f"mcastlab: error: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2)
    except KeyboardInterrupt:
        print("mcastlab: interrupted; everything was torn down", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `mcastlab experiment SPEC --list | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
