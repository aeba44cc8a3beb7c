"""Run the controller process: ``python -m controller --topology FILE [--ofp-port P] ...``."""

from __future__ import annotations

import argparse
import os
import sys

from .app import ENV_API_PORT, ENV_TOPOLOGY


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller", description=__doc__)
    ap.add_argument("--topology", required=True, help="topology JSON written by the testbed")
    ap.add_argument("--ofp-port", type=int, default=6653, help="OpenFlow port on 127.0.0.1")
    ap.add_argument("--api-port", type=int, default=8080, help="JSON endpoint port on 127.0.0.1")
    ap.add_argument("--log-file", help="log here instead of standard error")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.exists(args.topology):
        print(f"controller: no topology file {args.topology}", file=sys.stderr)
        return 2
    os.environ[ENV_TOPOLOGY] = os.path.abspath(args.topology)
    os.environ[ENV_API_PORT] = str(args.api_port)

    from .compat import FRAMEWORK

    if FRAMEWORK != "os-ken":  # pragma: no cover
        print("controller: os-ken is not installed; under Ryu run "
              f"'{ENV_TOPOLOGY}=... ryu-manager controller.app'", file=sys.stderr)
        return 2
    from os_ken import cfg
    from os_ken import log as oslog
    from os_ken.base.app_manager import AppManager

    osargs = ["--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port", str(args.ofp_port)]
    if args.log_file:
        osargs += ["--log-file", args.log_file]
    if args.verbose:
        osargs += ["--verbose"]
    cfg.CONF(args=osargs, project="os_ken")
    oslog.init_log()
    AppManager.run_apps(["controller.app"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
