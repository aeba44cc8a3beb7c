"""What several commands share: the topology and link options (Mininet's spellings too:
topologies.mininet), the controller's options, argparse types for counts and durations,
--out's folder, and progress lines on stderr. Sizes, lists, percentages and nodes are
values.py's."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.config import MODES, ControllerConfig
from controller.timers import IgmpTimers
from topologies import TopologyError, split_spec
from topologies.loss import loss_fraction
from topologies.mininet import mininet_link, mininet_topology
from topologies.spec_file import is_topology_file

from ..emulation.switching import DEFAULT, SWITCHES, choices_help
from ..errors import UsageError
from ..fidelity.link_rate import nominal_topology
from ..safepath import trusted_config
from ..specs.cluster import METHODS, TUNNELS, from_servers

TOPO_HELP = ("topology: shape[:key=val,...] or a .toml/.json file (default %(default)s); "
             "a shape without bw= runs at this machine's calibrated rate (bw=auto)")
BW_HELP = ("host link rate, Mbit/s, or 'auto' (the default for bare shapes): the highest "
           "rate up to 100 at which this machine keeps up (mcastlab calibrate)")


def progress(msg: str) -> None:
    print(f"mcastlab: {msg}", file=sys.stderr, flush=True)


def controller_config(args: argparse.Namespace):
    try:
        return ControllerConfig(mode=args.mode, timers=IgmpTimers(
            query_interval=args.query_interval,
            query_response_interval=min(10.0, args.query_interval / 2),
            last_member_interval=args.last_member_interval))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def add_switch_choice(p: argparse.ArgumentParser) -> None:
    """--switch: what the switches are (testbed.emulation.switching's table drives it)."""
    p.add_argument("--switch", choices=tuple(SWITCHES), default=DEFAULT,
                   help=f"what the switches are: {choices_help()}")


def switch_of(args: argparse.Namespace) -> str:
    """--switch, refused with --mode other than igmp unless it is the controller."""
    if getattr(args, "mode", "igmp") != "igmp" and not SWITCHES[args.switch].controller:
        raise UsageError(f"--mode {args.mode} is the controller's: it needs --switch "
                         "controller")
    return args.switch


def add_controller_choice(p: argparse.ArgumentParser) -> None:
    add_switch_choice(p)
    p.add_argument("--mode", choices=MODES, default="igmp",
                   help="controller mode (default %(default)s)")
    p.add_argument("--query-interval", type=float, default=125.0,
                   help="IGMP general query interval, s (default 125)")
    p.add_argument("--last-member-interval", type=float, default=1.0, metavar="S",
                   help="IGMP group-specific queries after a leave are this far apart, s "
                        "(default 1): a member that left is dropped after two of them")


def add_cluster_choice(p: argparse.ArgumentParser) -> None:
    """--servers and its companions: the network spread over this machine and others."""
    g = p.add_argument_group("across servers (docs/cluster.md)")
    g.add_argument("--servers", metavar="HOST,...",
                   help="spread the network over this machine and these servers ([user@]host, "
                        "reached by ssh as root without a password; mcastlab doctor --servers "
                        "checks them)")
    g.add_argument("--placement", choices=METHODS,
                   help="how switches are placed on the servers (default blocks: a pod, "
                        "row or leaf with its hosts)")
    g.add_argument("--tunnel", choices=TUNNELS,
                   help="links between servers (default auto: gretap where every server's "
                        "kernel has GRE, else VXLAN)")
    g.add_argument("--ssh-config", metavar="FILE", help="ssh -F FILE for the servers")


def cluster_spec(args: argparse.Namespace):
    """The ClusterSpec of --servers (None without it), refused with the option at fault."""
    servers = getattr(args, "servers", None)
    given = {k: getattr(args, k, None) for k in ("placement", "tunnel", "ssh_config")}
    if not servers:
        extra = [f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None]
        if extra:
            raise UsageError(f"{', '.join(extra)}: for a network across servers; give "
                             "--servers too")
        return None
    if given["ssh_config"]:  # ssh runs its ProxyCommand as root: root's file alone
        given["ssh_config"] = str(trusted_config("--ssh-config", given["ssh_config"]))
    try:
        return from_servers(servers, **given)
    except ValueError as exc:
        raise UsageError(str(exc).replace("cluster.servers", "--servers")) from None


class OldSpelling(argparse.Action):
    """An option's old spelling: it keeps working, stored as the new option is, and says
    once on standard error what the option is called now (hidden from --help)."""

    def __init__(self, option_strings: list[str], dest: str, new: str = "",
                 **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"mcastlab: note: {option_string} is now {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def old_spelling(p: argparse.ArgumentParser, old: str, new: str, **kwargs: Any) -> None:
    """Accept `old` for the option `new` of `p` (same dest; `kwargs` as its type, nargs,
    metavar), with a note when it is used."""
    dest = new.lstrip("-").replace("-", "_")
    p.add_argument(old, dest=dest, action=OldSpelling, new=new, help=argparse.SUPPRESS,
                   default=argparse.SUPPRESS, **kwargs)


class Refused(argparse.Action):
    """An option a command does not take, though others do: refused with why and where
    the command takes that setting from (hidden from --help)."""

    def __init__(self, option_strings: list[str], dest: str, why: str = "",
                 **kwargs: Any) -> None:
        self.why = why
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        parser.error(f"{option_string}: not taken here: {self.why}")


def refused(p: argparse.ArgumentParser, option: str, why: str) -> None:
    """`option` refused by `p` with `why` (a command that takes its setting elsewhere)."""
    p.add_argument(option, action=Refused, why=why, nargs="?", help=argparse.SUPPRESS,
                   default=argparse.SUPPRESS, dest=f"refused_{option.strip('-')}")


def script_file(args: argparse.Namespace) -> Path | None:
    """The prompt's --script file (net, lab), checked before any network comes up."""
    # its commands run in the hosts as root: a file of root's or yours, nobody else writes
    return trusted_config("--script", args.script, root_only=False) if args.script else None


def topo_spec(topo: str, bw: str | float | None, star_size: int | None,
              ranks: int | None) -> tuple[str, dict[str, Any]]:
    """--topo, and the parameters --bw and --hosts give as values (never pasted into the
    text); a contradiction is refused, never ignored.

    --bw is the host-link rate of any shape ('auto' or Mbit/s): refused when --topo gives
    bw= too or is a file (a file keeps its own rates). --hosts of a bare 'star' is its size.
    `star_size` (net, params): --hosts means nothing else, so it is refused with any other
    --topo. `ranks` (bcast): that many ranks, at most the network's hosts.
    """
    spec = topo.strip()
    bare_star = spec == "star"
    if star_size and not bare_star:
        where = "hosts= in --topo" if spec.startswith("star:") else "the size in --topo"
        raise UsageError(f"--hosts sizes a bare 'star', not {spec}: give {where}")
    given: dict[str, Any] = {"hosts": star_size or ranks} if bare_star and (star_size or ranks) \
        else {}
    if bw is not None:
        if is_topology_file(spec):
            raise UsageError(f"--bw: the topology file {spec} sets its own link rates")
        try:
            params = split_spec(spec)[1]
        except TopologyError as exc:
            raise UsageError(f"--topo: {exc}") from None
        if "bw" in params:
            shown = f"{bw:g}" if isinstance(bw, float) else bw
            raise UsageError(f"--bw {shown} and bw={params['bw']} in --topo: give the rate once")
        given["bw"] = bw
    if ranks and not bare_star:
        try:
            hosts = len(nominal_topology(spec, **given).hosts)
        except TopologyError as exc:
            raise UsageError(f"topology: {exc}") from None
        if ranks > hosts:
            raise UsageError(f"--hosts {ranks}: {spec} has {hosts} hosts")
    return spec, given


def network(args: argparse.Namespace, *, star_size: int | None = None,
             ranks: int | None = None):
    """The topology to run (--topo, --bw, --hosts as topo_spec reads them) and its LinkRate:
    a shape without a rate, or with bw=auto, runs at this machine's calibrated rate
    (testbed.experiments.calibration.resolve)."""
    # loaded when the command runs: keeps the start of `mcastlab` quick
    from ..experiments.calibration import resolve

    link = getattr(args, "link", None) or {}
    bw = getattr(args, "bw", None)
    if "bw" in link:
        if bw is not None:
            raise UsageError("--bw and bw= in --link: give the rate once")
        bw = link["bw"]
    spec, given = topo_spec(args.topo, bw, star_size, ranks)
    if "delay_ms" in link:
        given["delay_ms"] = link["delay_ms"]
    return resolve(spec, progress, given=given)


def topology(text: str) -> str:
    """--topo (argparse type): our spelling, or Mininet's (single,4; linear,4;
    tree,depth=2,fanout=2: topologies.mininet) as ours."""
    try:
        return mininet_topology(text) or text
    except TopologyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def link(text: str) -> dict[str, Any]:
    """--link (argparse type): Mininet's 'tc,bw=10,delay=5ms,loss=1' as ours."""
    try:
        return mininet_link(text)
    except TopologyError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--link {text}: ")) from None


def add_link_options(p: argparse.ArgumentParser, link_option: bool = True) -> None:
    """--loss (and Mininet's --link) of a command that builds a network."""
    p.add_argument("--loss", type=loss, default=0.0, metavar="P",
                   help="drop this fraction of packets (or a percentage: 5%%) each way on "
                        "every host link (default 0)")
    if link_option:
        p.add_argument("--link", type=link, metavar="tc,bw=B,delay=D,loss=L",
                       help="Mininet's link options: bw= (Mbit/s, as --bw), delay= (5ms) and "
                            "loss= (a percentage, as Mininet's: loss=1 is 1%%)")


def link_loss(args: argparse.Namespace) -> float:
    """The loss --loss or --link's loss= asks for (refused when both give one)."""
    given = (getattr(args, "link", None) or {}).get("loss")
    if given is None:
        return float(getattr(args, "loss", 0.0) or 0.0)
    if getattr(args, "loss", 0.0):
        raise UsageError("--loss and loss= in --link: give the loss once")
    return float(given)


def add_out(p: argparse.ArgumentParser) -> None:
    """--out DIR of a command that prints its result: a new folder made in DIR keeps it
    (kept.py writes it: output.txt, or result.json with --json)."""
    p.add_argument("--out", metavar="DIR",
                   help="also keep what the command prints in a new folder made in DIR "
                        "(COMMAND-DATE-TIME/output.txt, or result.json with --json)")
    p.set_defaults(keeps_output=True)


def rate(text: str) -> str | float:
    """--bw: 'auto' or a rate in Mbit/s > 0 (argparse type)."""
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'auto' or Mbit/s, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a rate must be > 0 Mbit/s, got {text!r}")
    return value


def at_least(low: int) -> Callable[[str], int]:
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


POSITIVE, NON_NEGATIVE = at_least(1), at_least(0)


def loss(text: str) -> float:
    """--loss: a fraction of the packets or a percentage, 5% (topologies.loss)."""
    try:
        return loss_fraction(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("loss: ")) from None


def seconds(text: str) -> float:
    """An argparse type: a duration > 0 s."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0 s, got {text}")
    return value


def int_list(option: str, text: str) -> list[int]:
    """A comma-separated list of non-negative ints, or UsageError naming the option."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"{option} takes comma-separated whole numbers, got {text!r}") from None
    if any(v < 0 for v in values):
        raise UsageError(f"{option} takes non-negative numbers, got {text!r}")
    return values


def network_arguments(p: argparse.ArgumentParser, hosts_help: str, servers: bool = False,
                      hosts_type: Callable[[str], Any] | None = None) -> None:
    """--topo, --hosts (`hosts_type`, default a count), --bw, --loss, --link, --json, --out
    and --switch (and the servers' options) of a command that builds a network and measures
    on it."""
    p.add_argument("--topo", default="star", type=topology, help=TOPO_HELP)
    p.add_argument("--hosts", type=hosts_type or POSITIVE, help=hosts_help)
    p.add_argument("--bw", type=rate, help=BW_HELP)
    add_link_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_out(p)
    add_switch_choice(p)
    if servers:
        add_cluster_choice(p)


def host_counts(text: str) -> tuple[int, ...]:
    """--hosts of a command that sweeps host counts: N, or N,N,... (each a count >= 1)."""
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a count of hosts, or counts: N or N,N,...; got "
                                         f"{text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"every count must be >= 1, got {text!r}")
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"a count is given twice in {text!r}")
    return counts
