"""Run the controller in the foreground: ``python -m controller --topology FILE ...``
(the same as ``mcastlab controller``; the testbed starts it this way)."""

from __future__ import annotations

import argparse
import os
import socket
import ssl
import sys

from topologies import Topology

from .config import (
    ENV_API_SOCKET,
    ENV_CONFIG,
    ENV_TOPOLOGY,
    LOOPBACK,
    MODES,
    UNREGISTERED,
    ControllerConfig,
)
from .listener import Limits, install, tls_context
from .sockets import default_socket, private_dir
from .timers import IgmpTimers


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The controller's options (shared with `mcastlab controller`)."""
    d = IgmpTimers()
    ap.add_argument("--topo", "--topology", dest="topology", metavar="FILE",
                    help="topology JSON written by the testbed (mcastlab topo SPEC --save FILE "
                         "makes one; --topology is its older name); without it the controller "
                         "discovers the network (LLDP, ARP, IGMP)")
    ap.add_argument("--mode", choices=MODES, default="igmp",
                    help="igmp: deliver groups to the hosts that joined (default); contiguous: "
                         "hardware-multicast semantics, one contiguous node range per "
                         "multicast; contiguous-strict: also one range multicast at a time "
                         "through each switch (its range lane, ports 65002/65003, which the "
                         "testbed makes)")
    ap.add_argument("--port", "--ofp-port", dest="ofp_port", type=int, default=6653,
                    help="OpenFlow port on the --listen address (default 6653)")
    ap.add_argument("--listen", default=LOOPBACK, metavar="ADDR",
                    help="OpenFlow address: 127.0.0.1 (default), a Unix socket's path (only "
                         "root reaches it; the testbed's runs use one), or a private address "
                         "every server of a cluster reaches, never a public one")
    ap.add_argument("--allow", type=addresses, default=(), metavar="IP,...",
                    help="with --listen off loopback: the switches' addresses that may "
                         "connect (the cluster's servers); any other connection is closed")
    ap.add_argument("--tls-key", default="", metavar="FILE",
                    help="with --tls-cert and --tls-ca: OpenFlow over TLS on --port, this "
                         "controller's private key")
    ap.add_argument("--tls-cert", default="", metavar="FILE", help="its certificate")
    ap.add_argument("--tls-ca", default="", metavar="FILE",
                    help="the CA a switch's certificate must be signed by (mutual TLS)")
    lim = Limits()
    ap.add_argument("--handshake-timeout", type=float, default=lim.handshake_timeout,
                    metavar="S", help="on a TCP address: a switch's TLS handshake must end "
                    "this many seconds after it connected, or it is dropped (default %(default)g)")
    ap.add_argument("--max-handshakes", type=int, default=lim.max_handshakes, metavar="N",
                    help="TLS handshakes under way at once; one more drops the oldest "
                         "(default %(default)s)")
    ap.add_argument("--max-connections", type=int, default=lim.max_connections, metavar="N",
                    help="OpenFlow connections open at once on a TCP address; one more is "
                         "closed (default %(default)s)")
    ap.add_argument("--api-socket", default=None, metavar="PATH",
                    help="the JSON endpoint's Unix socket, for root and this user only "
                         f"(default {default_socket()})")
    ap.add_argument("--unregistered", choices=UNREGISTERED, default="drop",
                    help="multicast to groups nobody joined (default drop)")
    ap.add_argument("--fast-leave", action="store_true",
                    help="remove a member at its leave without group-specific queries")
    ap.add_argument("--no-querier", dest="querier", action="store_false",
                    help="do not send IGMP queries")
    ap.add_argument("--query-interval", type=float, default=d.query_interval,
                    help=f"seconds between general queries (default {d.query_interval:g})")
    ap.add_argument("--query-response", type=float, default=d.query_response_interval,
                    help="max response time in general queries "
                         f"(default {d.query_response_interval:g})")
    ap.add_argument("--last-member-interval", type=float, default=d.last_member_interval,
                    help=f"seconds between group queries after a leave "
                         f"(default {d.last_member_interval:g})")
    ap.add_argument("--robustness", type=int, default=d.robustness,
                    help="IGMP's robustness variable (default %(default)s)")
    ap.add_argument("--igmp-rate", type=float, default=ControllerConfig.igmp_rate,
                    help="IGMP messages per second per host processed (default %(default)g);"
                         " a flood beyond it is counted and ignored")
    ap.add_argument("--data-rate", type=float, default=ControllerConfig.data_rate,
                    help="multicast data packet-ins per second per host handled (default "
                         "%(default)g); beyond it they are dropped and counted")
    ap.add_argument("--max-groups", type=int, default=ControllerConfig.max_groups,
                    help="groups one host may join (default %(default)s); a report for one "
                         "more is ignored and counted")
    ap.add_argument("--max-sources", type=int, default=ControllerConfig.max_sources,
                    help="sources one host's state of a group may hold (default %(default)s)")
    ap.add_argument("--log-file", help="log here instead of standard error")
    ap.add_argument("--verbose", action="store_true")


def addresses(text: str) -> tuple[str, ...]:
    """--allow: comma-separated addresses (checked with --listen, in ControllerConfig)."""
    return tuple(a.strip() for a in text.split(",") if a.strip())


def config_from(args: argparse.Namespace) -> ControllerConfig:
    return ControllerConfig(
        mode=args.mode, unregistered=args.unregistered, fast_leave=args.fast_leave,
        querier=args.querier, igmp_rate=args.igmp_rate, data_rate=args.data_rate,
        max_groups=args.max_groups, max_sources=args.max_sources, listen=args.listen,
        allow=args.allow, tls_key=args.tls_key, tls_cert=args.tls_cert, tls_ca=args.tls_ca,
        handshake_timeout=args.handshake_timeout, max_handshakes=args.max_handshakes,
        max_connections=args.max_connections,
        timers=IgmpTimers(robustness=args.robustness, query_interval=args.query_interval,
                          query_response_interval=args.query_response,
                          last_member_interval=args.last_member_interval))


def port_free(port: int, host: str = LOOPBACK) -> bool:
    """Nothing listens on host:port (bound as the controller binds: reusing the address,
    so a connection in TIME_WAIT does not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def checked_config(args: argparse.Namespace) -> ControllerConfig:
    """The configuration, once the topology file loads and both ports are free; otherwise
    ValueError with a message for the user, before anything starts."""
    if args.topology:
        try:  # the app reads it so (Topology.load_json); a bad file failed inside os-ken
            Topology.load_json(args.topology)
        except (ValueError, OSError) as exc:
            raise ValueError(f"--topology: {exc}") from None
    config = config_from(args)  # ValueError for a bad --listen/--allow too
    args.api_socket = args.api_socket or str(default_socket())
    sockets = {"--api-socket": args.api_socket} | ({"--listen": config.listen}
                                                    if config.unix else {})
    if config.listen == args.api_socket:
        raise ValueError(f"--listen and --api-socket are both {args.api_socket}")
    for option, path in sockets.items():
        if not os.path.isabs(path):
            raise ValueError(f"{option} {path}: give an absolute path")
        private_dir(os.path.dirname(path))  # ValueError when another user could reach it
    if config.unix:
        return config
    for option in ("--tls-key", "--tls-cert", "--tls-ca"):
        path = getattr(args, option[2:].replace("-", "_"))
        if path and not os.path.isfile(path):
            raise ValueError(f"{option} {path}: no such file")
    if not 0 < args.ofp_port < 65536:
        raise ValueError(f"--port must be a port 1..65535, got {args.ofp_port}")
    if not port_free(args.ofp_port, config.listen):
        raise ValueError(f"--port {args.ofp_port}: {config.listen}:{args.ofp_port} is in use "
                         "(another controller?), or not an address of this machine; give "
                         "another")
    return config


def run(args: argparse.Namespace) -> int:
    """Configure through the environment (as ryu-manager would) and run the app."""
    try:
        config = checked_config(args)
    except ValueError as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 2
    return start(args, config)


def start(args: argparse.Namespace, config: ControllerConfig) -> int:
    """Run the app with a configuration checked_config accepted (blocks until it stops)."""
    if args.topology:
        os.environ[ENV_TOPOLOGY] = os.path.abspath(args.topology)
    else:
        os.environ.pop(ENV_TOPOLOGY, None)
    os.environ[ENV_API_SOCKET] = os.path.abspath(args.api_socket or default_socket())
    os.environ[ENV_CONFIG] = config.to_json()

    # os-ken loads when the controller starts, not where its options are (testbed.cli)
    from .compat import FRAMEWORK, end_switches_that_hang_up, serve_unix_switches

    if FRAMEWORK != "os-ken":  # pragma: no cover
        print("controller: os-ken is not installed; under Ryu run "
              f"'{ENV_TOPOLOGY}=... ryu-manager controller.app'", file=sys.stderr)
        return 2
    # os-ken loads when the controller starts, not where its options are (testbed.cli)
    from os_ken import cfg
    from os_ken import log as oslog

    os.umask(0o077)  # its sockets and files: this user's alone
    end_switches_that_hang_up()
    if config.unix:
        serve_unix_switches()
    else:  # a TCP address: accept loop, TLS handshakes and caps of the testbed's own
        try:
            ctx = tls_context(config.tls_key, config.tls_cert, config.tls_ca) \
                if config.tls else None
        except (ssl.SSLError, OSError) as exc:
            print(f"controller: the TLS key, certificate or CA will not load: {exc}",
                  file=sys.stderr)
            return 2
        install(config.listen, config.limits, ctx, config.admits)
    # os-ken loads when the controller starts, not where its options are (testbed.cli)
    from os_ken.base.app_manager import AppManager

    osargs = ["--ofp-listen-host", config.listen]
    if config.tls:  # os-ken then serves TLS only, and asks for the switch's certificate
        osargs += ["--ofp-ssl-listen-port", str(args.ofp_port), "--ctl-privkey",
                   config.tls_key, "--ctl-cert", config.tls_cert, "--ca-certs", config.tls_ca]
    else:
        osargs += ["--ofp-tcp-listen-port", str(args.ofp_port)]
    if args.log_file:
        osargs += ["--log-file", args.log_file]
    if args.verbose:
        osargs += ["--verbose"]
    cfg.CONF(args=osargs, project="os_ken")
    oslog.init_log()
    AppManager.run_apps(["controller.app"])
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller", description=__doc__)
    add_arguments(ap)
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
