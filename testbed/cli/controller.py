"""Commands that talk to a running controller (groups, ports, fail, restore) or run one
(controller)."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable, Iterator

from ..errors import McastlabError, UsageError
from .arguments import (
    POSITIVE,
)


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
    from ..emulation.registry import active_run

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

    from ..emulation.controller_proc import api_get, api_post

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
    from .interactive import group_lines

    return "\n".join(group_lines(groups))


def _ports_text(ports: dict) -> str:
    from ..experiments.results import text_table

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
