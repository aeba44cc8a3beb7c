"""Background traffic inside a running Emulation: one generator process per chosen host
(testbed.hostprogs.traffic_gen), all listening before any sends, stopped and measured as
one window.

    with Traffic(emu, TrafficSpec("uniform", load=0.2), members=["h0", "h1"]) as tr:
        ...  # the broadcast under test
    tr.result["accepted"]

`flows` lists the pairs of hosts a traffic table's generators send between on a topology
(what the live view draws), from the same plan the generators are configured with.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from topologies import Topology

from ..emulation import run_records
from ..emulation.shell import stop_processes
from ..errors import McastlabError, RunFailed, UsageError
from ..interpreter import module
from ..specs.cluster import LOCAL
from ..specs.traffic_model import TrafficSpec, accepted_load, destination_shares, plan

PORT = 29470  # below Linux's ephemeral range: no MPI socket in the host can hold it
DEFAULT_LINK_MBIT = 1000.0  # assumed (and reported) when host links are unshaped


def resolve_hosts(spec: TrafficSpec, topo: Topology, members: list[str]) -> list[str]:
    """The generator hosts, in topology order for the named sets, as listed otherwise."""
    names = [h.name for h in topo.hosts]
    for what, given in (("members", members),
                        ("traffic hosts", spec.hosts if isinstance(spec.hosts, list) else [])):
        unknown = [h for h in given if h not in names]
        if unknown:
            raise UsageError(f"{what}: unknown host(s) {', '.join(map(str, unknown))} "
                             f"({topo.name} has {names[0]}..{names[-1]})")
    if spec.hosts == "all":
        return names
    if spec.hosts == "members":
        return [h for h in names if h in members]
    if spec.hosts == "others":
        return [h for h in names if h not in members]
    return list(spec.hosts)


def neighbours(topo: Topology, group: list[str]) -> dict[str, list[str]]:
    """Each host's nearest other group hosts, by hop count along the routed path."""
    out: dict[str, list[str]] = {}
    for src in group:
        dist = {dst: len(topo.path(src, dst)) - 1 for dst in group if dst != src}
        near = min(dist.values(), default=0)
        out[src] = [d for d in group if d in dist and dist[d] == near]
    return out


def link_rate(topo: Topology, hosts: list[str]) -> float | None:
    """The slowest shaped link of these hosts (Mbit/s); None when none is shaped."""
    rates = [lk.params.bw_mbit for lk in topo.links
             if (lk.node1 in hosts or lk.node2 in hosts) and lk.params.bw_mbit is not None]
    return min(rates) if rates else None


def generator_plan(spec: TrafficSpec, topo: Topology, hosts: list[str], link_mbit: float,
                   seed: int) -> dict[str, dict[str, Any]]:
    """Each generator host's configuration (specs.traffic_model.plan) on `topo`: the local
    pattern's neighbours by routed hops. ValueError where the hosts cannot carry the
    pattern."""
    near = neighbours(topo, hosts) if spec.pattern == "local" else {}
    return plan(spec, hosts, near, link_mbit, seed)


def flows(spec: TrafficSpec, topo: Topology, members: list[str]
          ) -> list[tuple[str, str, float]]:
    """The pairs of hosts `spec`'s generators send between on `topo`, for a broadcast on
    `members`: (source, destination, the share of the source's messages that go there), as
    Traffic configures them; [] at load 0. UsageError for an unknown host, ValueError where
    the hosts cannot carry the pattern (as Traffic refuses them)."""
    if spec.load <= 0:
        return []
    hosts = resolve_hosts(spec, topo, members)
    planned = generator_plan(spec, topo, hosts, link_rate(topo, hosts) or DEFAULT_LINK_MBIT, 1)
    return [(src, dst, share) for src, mine in destination_shares(planned).items()
            for dst, share in mine.items()]


def _line(proc: subprocess.Popen[bytes], deadline: float) -> str | None:
    """The next line of a generator's stdout by `deadline`; None if none came (or it ended)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1)
        if not chunk:
            return None
        buf += chunk
    return buf.decode(errors="replace").strip()


def _final(proc: subprocess.Popen[bytes], deadline: float) -> str | None:
    """A stopping generator's last line, its counts: past any answer to a "count" that came
    too late to be read when asked."""
    while (line := _line(proc, deadline)) is not None and line.startswith('{"snapshot"'):
        pass
    return line


def _tail(path: Path, n: int = 6) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return "\n".join(lines[-n:])


class Traffic:
    """Generators on the hosts `spec.hosts` resolves to (relative to the broadcast's
    `members`); `result` holds the measurement once stopped (None if no host generated).
    While they run, `snapshot()` reads their counts so far, and `summary()` makes of them
    what `result` is of the whole run."""

    def __init__(self, emu: Any, spec: TrafficSpec, members: list[str], seed: int = 1, *,
                 ready_timeout: float = 20.0, stop_timeout: float = 5.0) -> None:
        self.emu = emu
        self.spec = spec
        self.seed = seed
        self.hosts = resolve_hosts(spec, emu.topo, members)
        self.members = list(members)
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        rate = link_rate(emu.topo, self.hosts)
        self.link_mbit = rate or DEFAULT_LINK_MBIT
        self.link_assumed = rate is None
        try:
            self.plan = generator_plan(spec, emu.topo, self.hosts, self.link_mbit, seed)
        except ValueError as e:
            raise UsageError(f"traffic: {e}") from None
        self.id = uuid.uuid4().hex[:8]
        self.dir: Path | None = None
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.result: dict[str, Any] | None = None
        self._asking = threading.Lock()  # one question at a time on the generators' streams
        self._asked = 0  # "count" questions asked so far

    def __enter__(self) -> Traffic:
        try:
            self.start()
        except BaseException:
            self._kill()
            raise
        return self

    def __exit__(self, exc_type: object, *_exc: object) -> None:
        try:
            self.stop()
        except McastlabError:
            if exc_type is None:  # never hide the error that ended the block
                raise

    # ---- start ------------------------------------------------------------------------------
    def start(self) -> None:
        if not self.hosts:
            return
        self.dir = self.emu.run_dir / f"traffic-{self.id}"
        self.dir.mkdir(parents=True)
        ips = {h.name: h.ip for h in self.emu.topo.hosts}
        # the job mark lets the emulation's teardown end us first, like an MPI job
        env = dict(os.environ, PYTHONUNBUFFERED="1", **{run_records.ENV_JOB: self.job})
        for host in self.hosts:
            cfg = {**self.plan[host], "ip": ips[host], "ips": ips, "port": PORT}
            (self.dir / f"{host}.config.json").write_text(json.dumps(cfg, indent=1))
            with (self.dir / f"{host}.err").open("wb") as err:
                proc = self.emu.host(host).popen(
                    module("testbed.hostprogs.traffic_gen"), env=env,
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
            self.procs[host] = proc
            self._say(proc, json.dumps(cfg))
        self._wait_ready()
        for proc in self.procs.values():  # all listen: now everyone sends
            self._say(proc, "start")

    @property
    def job(self) -> str:
        return f"traffic-{self.id}"

    @staticmethod
    def _say(proc: subprocess.Popen[bytes], line: str) -> None:
        """A line to a generator's stdin (through ssh for a host on another server)."""
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        for host, proc in self.procs.items():
            line = _line(proc, deadline)
            if line == "ready":
                continue
            if proc.poll() is not None or line is not None:
                raise RunFailed(self._failure(host, f"exited with code {proc.wait()}"))
            raise RunFailed(self._failure(host, f"not listening after "
                                                f"{self.ready_timeout:g} s"))

    def _failure(self, host: str, what: str) -> str:
        assert self.dir is not None
        tail = _tail(self.dir / f"{host}.err")
        return f"traffic generator on {host} {what}" + (f":\n{tail}" if tail else "")

    # ---- while running ----------------------------------------------------------------------
    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Every generator's counts since it began sending (sent and received bytes and
        messages, `elapsed_s`, errors, `t` its wall clock), asked now; RunFailed when one
        does not answer."""
        with self._asking:
            if not self.procs:
                raise RunFailed("the traffic generators are not running")
            self._asked += 1
            for proc in self.procs.values():
                self._say(proc, f"count {self._asked}")
            deadline = time.monotonic() + self.stop_timeout
            got = {}
            for host, proc in self.procs.items():
                while (line := _line(proc, deadline)) is not None:
                    with contextlib.suppress(ValueError):
                        answer = json.loads(line)
                        if isinstance(answer, dict) and answer.get("snapshot") == str(self._asked):
                            got[host] = answer
                            break
                    # an answer to an earlier question that came too late: passed over
                if host not in got:
                    raise RunFailed(self._failure(host, "gave no counts when asked"))
            return got

    def summary(self, now: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """What `result` says of the whole run, over what the generators had counted at
        snapshot `now` (from their start)."""
        keys = ("sent_bytes", "sent_msgs", "received_bytes", "received_msgs", "errors",
                "behind_resets")
        return self._summary({host: {**{k: c[k] for k in keys}, "send_window_s": c["elapsed_s"]}
                              for host, c in now.items()})

    # ---- stop -------------------------------------------------------------------------------
    def stop(self) -> dict[str, Any] | None:
        """Tell every generator to stop, wait for its counts, and compute `result`."""
        with self._asking:
            if not self.procs:
                return self.result
            procs, self.procs = self.procs, {}
            for proc in procs.values():
                self._say(proc, "stop")
            deadline = time.monotonic() + self.stop_timeout + 5.0  # + its drain and the ssh
            counts = {host: _final(proc, deadline) for host, proc in procs.items()}
        stop_processes(procs.values(), 1.0)
        self._kill_remote()
        per_host: dict[str, dict[str, Any]] = {}
        for host, proc in procs.items():
            try:
                per_host[host] = json.loads(counts[host] or "")
            except ValueError:
                raise RunFailed(self._failure(host, f"left no counts (exit code "
                                                    f"{proc.returncode})")) from None
        self.result = self._summary(per_host)
        return self.result

    def _kill_remote(self) -> None:
        """What is left of the generators on other servers (killing the local ssh client
        of a remote process does not end it)."""
        spread = self.emu.spread
        for server in spread.servers_of(self.hosts):
            if server != LOCAL:
                spread.runners[server].kill_job(self.job)

    def _kill(self) -> None:
        procs, self.procs = self.procs, {}
        for p in procs.values():
            p.kill()
            p.wait()
        self._kill_remote()

    def _summary(self, per_host: dict[str, dict[str, Any]]) -> dict[str, Any]:
        n = len(per_host)
        window = sum(r["send_window_s"] for r in per_host.values()) / n
        sent = sum(r["sent_bytes"] for r in per_host.values())
        received = sum(r["received_bytes"] for r in per_host.values())
        hot = next(iter(self.plan.values()))["hot"]
        return {
            "pattern": self.spec.pattern, "load": self.spec.load,
            "size": next(iter(self.plan.values()))["size"],
            "hot_fraction": self.spec.hot_fraction, "hot": hot,
            "transport": self.spec.transport_used, "hosts": list(self.hosts),
            "generators": n, "link_mbit": self.link_mbit,
            "link_mbit_assumed": self.link_assumed, "window_s": window,
            "offered": accepted_load(sent, window, n, self.link_mbit),
            "accepted": accepted_load(received, window, n, self.link_mbit),
            "hot_share": (per_host[hot]["received_bytes"] / received
                          if hot and received else None),
            "errors": sum(r["errors"] for r in per_host.values()),
            "behind_resets": sum(r["behind_resets"] for r in per_host.values()),
            "per_host": per_host,
        }
