"""`mcastlab doctor --servers a,b`: can these servers run one network together? For every
server other than this one: ssh answers without a password (batch mode), it runs the same
checkout at the same path with the same versions (Python, Mininet, Open vSwitch, os-ken,
mpi4py, MPICH), it can emulate (its own capabilities: OVS running, AF_XDP, ...), and how far
its clock is from this one's (measured over ssh: the offset and its uncertainty, half the
round trip). Clocks need not agree: across servers the testbed times broadcasts without a
shared clock; the offset is reported, not judged."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from ..errors import RunFailed
from ..interpreter import code, module
from ..specs.cluster import ClusterSpec
from .facts import facts
from .server import RemoteServer, remote_command, servers

SAME = ("python", "mininet", "openvswitch", "os-ken", "mpi4py", "mpich", "mpich_wheel",
        "mcastlab")


@dataclass
class Report:
    server: str
    problems: list[str] = field(default_factory=list)
    facts: dict[str, Any] | None = None
    offset_s: float | None = None
    uncertainty_s: float | None = None


def differences(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """What must match between this server and another, and does not."""
    out = []
    if theirs["root"] != mine["root"] or theirs["python"] != mine["python"]:
        out.append(f"the checkout is at {theirs['root']} (python {theirs['python']}), here at "
                   f"{mine['root']} ({mine['python']}): MPI starts ranks by the same paths")
    if theirs["checkout"] != mine["checkout"]:
        out.append(f"checkout {theirs['checkout']}, here {mine['checkout']}")
    for key in SAME:
        a, b = mine["versions"].get(key), theirs["versions"].get(key)
        if a != b:
            out.append(f"{key} {b}, here {a}")
    return out + [f"can't emulate: {p}" for p in theirs["problems"]]


_ECHO_TIME = "import sys, time\nfor _ in sys.stdin:\n    print(repr(time.time()), flush=True)"


def clock(remote: RemoteServer, rounds: int = 20) -> tuple[float, float]:
    """(offset of its clock from this one's, uncertainty), in seconds, NTP-style: one ssh
    session answers each line with its time; the exchange with the smallest round trip
    counts, its remote reading taken to be at the middle of it (uncertainty: half of it)."""
    proc = subprocess.Popen([*remote.ssh(), remote_command(code(_ECHO_TIME, python="python3"))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    best: tuple[float, float] | None = None
    try:
        for _ in range(rounds):
            t0 = time.time()
            proc.stdin.write("\n")
            proc.stdin.flush()
            said = proc.stdout.readline()
            t1 = time.time()
            if not said:
                raise RunFailed(f"on {remote.name}: no time came back over ssh")
            if best is None or (t1 - t0) / 2 < best[1]:
                best = (float(said) - (t0 + t1) / 2, (t1 - t0) / 2)
    finally:
        proc.kill()
        proc.wait()
    assert best is not None
    return best


def check(spec: ClusterSpec) -> list[Report]:
    mine = facts()
    reports = [Report(spec.servers[0].host, list(mine["problems"]), mine, 0.0, 0.0)]
    for remote in servers(spec)[1:]:
        assert isinstance(remote, RemoteServer)
        rep = Report(remote.name)
        reports.append(rep)
        try:
            out = remote.run(module("testbed.cluster.facts"), timeout=120)
            rep.facts = json.loads(out.stdout.strip().splitlines()[-1])
            rep.offset_s, rep.uncertainty_s = clock(remote)
        except RunFailed as exc:
            rep.problems.append(str(exc))
            continue
        except (ValueError, IndexError):
            rep.problems.append(f"on {remote.name}: testbed.cluster.facts printed no facts")
            continue
        rep.problems += differences(mine, rep.facts)
    return reports


def text(reports: list[Report]) -> str:
    lines = []
    for r in reports:
        clock_text = ("" if r.offset_s is None or r.uncertainty_s is None else
                      f"; clock {r.offset_s * 1e3:+.2f} ms (+/- {r.uncertainty_s * 1e3:.2f})")
        if r.facts is not None:  # --tunnel auto takes gretap only if every server has it
            clock_text += f"; gretap: {'yes' if r.facts.get('gretap') else 'no (VXLAN)'}"
        lines.append(f"{r.server}: {'ok' if not r.problems else 'NOT READY'}{clock_text}")
        lines += [f"  - {p}" for p in r.problems]
    return "\n".join(lines)
