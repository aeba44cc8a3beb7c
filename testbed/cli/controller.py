"""Commands that talk to a running controller (groups, ports, fail, restore) or run one
(controller)."""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
from collections.abc import Callable, Iterator

from controller.__main__ import add_arguments, checked_config, start
from controller.sockets import default_socket

from ..emulation.controller_proc import ApiError, api_get, api_post
from ..emulation.run_records import active_run
from ..errors import McastlabError, UsageError
from ..results import text_table
from .lines import group_lines
from .values import node


def cmd_controller(args: argparse.Namespace) -> int:
    try:
        config = checked_config(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    code = start(args, config)
    if code:
        raise UsageError("the controller did not start (see the message above)")
    return 0


def _api_socket(args: argparse.Namespace) -> str:
    """The controller to talk to: --api-socket, else the active run's, else one started
    with 'mcastlab controller' at its default socket."""

    if args.api_socket:
        return args.api_socket
    run = active_run()
    if run is not None and run.api_socket:
        return run.api_socket
    if default_socket().exists():
        return str(default_socket())
    raise McastlabError("no mcastlab run is active and no controller started with "
                        "'mcastlab controller' (start one, or give --api-socket)")


def _not_controller(args: argparse.Namespace, api: str, why: str) -> McastlabError:
    """Nothing, or something else, at the socket: bad input (exit 2) when --api-socket named
    it, otherwise the active run's controller is gone (exit 1)."""
    error = UsageError if args.api_socket else McastlabError
    return error(f"no mcastlab controller answers at {api} ({why})")


def _api(args: argparse.Namespace, path: str, body: dict | None = None) -> dict:
    """The controller's JSON answer, an object; anything else at the socket is one error
    line."""

    api = _api_socket(args)
    try:
        answer = api_post(api, path, body) if body is not None else api_get(api, path)
    except ApiError as exc:
        raise McastlabError(f"controller: {exc.message}") from None
    except PermissionError:
        raise _not_controller(args, api, "only root may talk to a run's controller: run "
                                         "this with sudo") from None
    except OSError as exc:  # refused, reset, timed out, no such socket
        why = " ".join(str(exc.strerror or exc).split()) or type(exc).__name__
        raise _not_controller(args, api, why) from None
    except http.client.HTTPException:
        raise _not_controller(args, api, "the answer is not HTTP") from None
    except ValueError:
        raise _not_controller(args, api, f"{path} is not JSON") from None
    if not isinstance(answer, dict):
        raise _not_controller(args, api, f"{path} is not a JSON object")
    return answer


@contextlib.contextmanager
def _controller_answer(args: argparse.Namespace, path: str) -> Iterator[None]:
    """Reading an answer of `path`: another service's JSON is one error line, not a KeyError."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError):
        raise _not_controller(args, _api_socket(args), f"{path} is not the controller's") from None


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
    return "\n".join(group_lines(groups))


def _ports_text(ports: dict) -> str:
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


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("controller", help="run the OpenFlow controller in the foreground")
    add_arguments(p)
    p.set_defaults(func=cmd_controller)

    api_help = "the JSON endpoint (Unix socket) of a controller (default: the active run's)"
    for name, helptext, func in [("groups", "multicast groups, members, trees, refusals",
                                  cmd_groups),
                                 ("ports", "per-port packet and byte counters of every switch",
                                  cmd_ports)]:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--json", action="store_true")
        p.add_argument("--api-socket", metavar="PATH", help=api_help)
        p.set_defaults(func=func)
    for name, helptext in [("fail", "mark nodes failed/excluded (contiguous mode refuses "
                                    "ranges holding them)"),
                           ("restore", "clear the failed mark of nodes")]:
        p = sub.add_parser(name, help=helptext)
        p.add_argument("nodes", type=node, nargs="+", metavar="NODE",
                       help="a host's name or node id (h3 or 3)")
        p.add_argument("--api-socket", metavar="PATH", help=api_help)
        p.set_defaults(func=cmd_nodes)
