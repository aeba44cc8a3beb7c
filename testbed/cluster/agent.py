"""The testbed's side of a run on another server of a cluster, started there over ssh:

    python -m testbed.cluster.agent hold           (a run's lifetime; JSON in on stdin, below)
    python -m testbed.cluster.agent kill-job JOB   (an MPI or traffic job's processes there)
    python -m testbed.cluster.agent sample JSON    (a fidelity reading: testbed.fidelity)
    python -m testbed.cluster.agent leftovers      (what any run left there, as JSON)

`hold` reads one JSON line: {"run": id, "topology": name, "bridges": [...], "interfaces":
[...], "files": {path: text}}. It waits for that server's run lock, records the run there
(the record that server's `mcastlab cleanup` reads), writes the files (the hosts' /etc/hosts,
tc batches), raises the switch's CPU priority and answers one JSON line: {"ready": true,
"gretap": bool, "afxdp": bool, "datapath": "user"|"kernel"}. It then holds until "stop" or
the end of its input, and tears down everything of the run on that server: marked
processes, bridges, interfaces, nftables tables, the run folder. The end of input is the
launching server going away (a crash, a SIGKILL, a lost connection): its ssh session ends,
and so nothing stays behind there either. It answers {"done": true} once all is gone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..emulation import priority, run_records
from ..emulation.cleanup import (
    cleanup_run,
    interfaces,
    leftovers,
    ovs_bridges,
    remove_ended_nft_tables,
)
from ..emulation.environment import detect
from ..emulation.runlock import RunLock
from ..fidelity.reading import reading

# testbed.emulation.cleanup (which brings in the topologies and networkx, a sixth of a second)
# is imported by the commands that tear down: kill-job and sample, run after every MPI job
# and around every measured window, start without it.

STOP = "stop"


def say(obj: dict[str, Any]) -> None:
    print(json.dumps(obj), flush=True)


def gretap_works() -> bool:
    """The kernel makes gretap devices (CONFIG_NET_IPGRE): tried in a namespace of its own,
    which goes with the command."""
    res = subprocess.run(["unshare", "--net", "ip", "link", "add", "mcl-gre", "type", "gretap",
                          "local", "127.0.0.1", "remote", "127.0.0.2"],
                         capture_output=True, timeout=10)
    return res.returncode == 0


def hold(order: dict[str, Any], lines: Any) -> None:
    run_id = order["run"]
    os.environ[run_records.ENV_RUN] = run_id
    lock = RunLock()
    lock.acquire(lambda msg: say({"progress": msg}))
    rec = None
    try:
        remove_ended_nft_tables()
        rec = run_records.RunRecord(id=run_id, pid=os.getpid(), started=time.time(),
                                 run_dir=str(run_records.STATE_DIR / run_id),
                                 topology=order.get("topology", ""),
                                 bridges=list(order.get("bridges", [])),
                                 interfaces=list(order.get("interfaces", [])))
        rec.save()
        for path, text in order.get("files", {}).items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text)
        priority.raise_switch()

        # this server's own: AF_XDP ports where it can open them. Only its ports and datapath
        # are asked, so mininet, mpi4py and the controller are looked up, not imported in
        # fresh interpreters (1.3 of the hold's 1.4 s on the 2-core VM): as a run here does
        # (testbed.emulation.environment.detected); `mcastlab doctor` imports them there.
        caps = detect(imports=False)
        say({"ready": True, "gretap": gretap_works(), "afxdp": caps.afxdp,
             "datapath": caps.datapath})
        for line in lines:
            if line.strip() == STOP:
                break
    finally:
        with _ignored():
            if rec is not None:
                priority.restore_switch()
                cleanup_run(rec)
            lock.release()
    say({"done": True})


class _ignored:
    """SIGINT, SIGTERM and SIGHUP ignored while tearing down (it always completes)."""

    def __enter__(self) -> None:
        self.old = {s: signal.signal(s, signal.SIG_IGN)
                    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def __exit__(self, *_exc: object) -> None:
        for s, h in self.old.items():
            signal.signal(s, h)


def main(argv: list[str]) -> int:
    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    if argv[:1] == ["hold"]:
        first = sys.stdin.readline()
        if not first:
            return 0
        hold(json.loads(first), sys.stdin)
        return 0
    if argv[:1] == ["kill-job"] and len(argv) == 2:
        run_records.kill_marked(job_id=argv[1])
        return 0
    if argv[:1] == ["sample"] and len(argv) == 2:
        asked = json.loads(argv[1])
        say(reading(asked["intfs"], asked["tunnels"]))
        return 0
    if argv == ["leftovers"]:
        say({**leftovers(), "ovs_bridges": sorted(ovs_bridges()),
             "links": sorted(i for i in interfaces() if "-eth" in i)})
        return 0
    print("usage: python -m testbed.cluster.agent hold | kill-job JOB | sample JSON | "
          "leftovers", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
