"""Run an mpi4py program across emulated hosts with MPICH's hydra.

``mpiexec`` runs inside the first chosen host, so its control connections cross the emulated
network; hydra starts its proxies in the other hosts through `hydra_launcher.sh`, which
enters each host's namespaces. Rank i runs on the i-th chosen host (default: host i of the
topology order). A job that exceeds its timeout, or a rank that dies, ends the whole job with
a clear error (a rank killed by a signal is named, with where the others were); every
process of the job is killed either way. A job also ends as soon as the network's
controller has died (`Emulation.check_alive`): ComponentDied, not RunFailed.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from topologies import HOST_PORT

from ..errors import RunFailed, UsageError, signal_text
from ..interpreter import module
from ..specs.cluster import LOCAL
from . import rank_stacks, run_records
from .ports import intf_name

LAUNCHER = Path(__file__).with_name("hydra_launcher.sh")
VENV_BIN = Path(sys.executable).parent


@dataclass
class MpiResult:
    returncode: int
    elapsed_s: float
    stdout: str
    stderr: str
    rank_output: dict[int, str] = field(default_factory=dict)
    job_dir: Path | None = None


def _tail(text: str, n: int = 8) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-n:])


def _whole_traceback(text: str) -> bool:
    """Whether the last traceback in `text` reached its exception line (the first line after
    it that is not indented)."""
    after = text.rpartition("Traceback (most recent call last):")[2]
    return any(ln and not ln[0].isspace() for ln in after.splitlines()[1:])


def _settle(proc: subprocess.Popen, job_dir: Path, np: int) -> None:
    """A rank failed: wait (ABORT_GRACE_S at most) until mpiexec ended or every rank that
    began a traceback has finished it or exited, so that hydra has handed on what it printed
    before the job is killed."""
    deadline = time.monotonic() + ABORT_GRACE_S
    while proc.poll() is None and time.monotonic() < deadline:
        if not any("Traceback" in text and not _whole_traceback(text)
                   and _exit_code(job_dir, r) is None
                   for r, text in _rank_outputs(job_dir, np).items()):
            return
        time.sleep(0.05)


def _exit_code(job_dir: Path, rank: int) -> int | None:
    """The code rank `rank` exited with (said by _RANK_WRAPPER), None if not said."""
    try:
        with (job_dir / f"rank-{rank}.err").open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - 64))
            tail = f.read().decode(errors="replace")
    except OSError:
        return None
    said = tail.rstrip("\n").rpartition("\n")[2]
    if not said.startswith(EXIT_SAID):
        return None
    try:
        return int(said[len(EXIT_SAID):])
    except ValueError:
        return None


def script_of_caller(argv: list[str]) -> list[str]:
    """python's first argument is its script unless it is an option (-m, -c, ...): a relative
    path to a script names the caller's file, so it is made absolute (the ranks start in
    their host's working directory, not the caller's)."""
    if argv and not argv[0].startswith("-"):
        script = Path(argv[0])
        if not script.is_absolute() and script.is_file():
            return [str(script.resolve()), *argv[1:]]
    return argv


def run_mpi(emu: Any, argv: list[str], *, hosts: Sequence[str | int] | None = None,
            np: int | None = None, ppn: int = 1, timeout: float = 120.0,
            env: dict[str, str] | None = None, check: bool = True,
            stall: tuple[Path, float] | None = None, stdin: int | None = None,
            follow: Callable[[str], None] | None = None, together: bool = False) -> MpiResult:
    """Run `argv` (e.g. ``["-m", "collectives.programs.pingpong"]``, given to the venv's python) on
    `np` ranks, `ppn` per host, over `hosts` (names or node ids; default all). Ranks run
    under ``python -m mpi4py``, so an uncaught exception aborts the job at once instead of
    leaving the rank stuck in MPI_Finalize. `stall` = (file, seconds): the job also ends
    when the file (which the job touches as it makes progress) has not changed for that
    long: a hung step is cut off without waiting for the whole job's timeout. `stdin`: a
    file descriptor mpiexec reads and hands to rank 0, wherever it runs; `follow` is called
    with each line rank 0 prints, as it arrives (also the last ones of a job cut off): a
    job's way to talk to the launching server without a file system both share.
    `together`: every rank works until the job's end (a collective's benchmark), so a few
    ranks still running long after all the others exited 0 hang (`laggards`): the job ends
    then, with their stacks, not at its timeout. Not for a job whose idle ranks may leave
    early (collectives.programs.params: only its pair measures to the end)."""
    argv = script_of_caller(argv)
    names = [emu.topo.host(h).name for h in hosts] if hosts else [h.name for h in emu.topo.hosts]
    np = np or len(names) * ppn
    if np < 1 or np > len(names) * ppn:
        raise UsageError(f"{np} ranks do not fit on {len(names)} host(s) at {ppn} per host")
    names = names[: -(-np // ppn)]
    job_id = uuid.uuid4().hex[:12]
    job_dir = emu.run_dir / f"mpi-{job_id}"
    job_dir.mkdir(parents=True)
    hostmap = job_dir / "hostmap"
    spread = emu.spread
    # name, shell pid, cgroup (CPU-limited hosts), server (user@host, on another server),
    # the server's part of the multicast group pool (across servers)
    hostmap.write_text("".join(
        f"{n} {emu.net.get(n).pid} {emu.net.get(n).cgroup_spec() or '-'} "
        f"{'-' if spread.local(n) else spread.runner(n).destination} "
        f"{spread.group_slice(n) or '-'}\n" for n in names))
    # mpiexec runs on this server (the rank outputs it writes land here): in the first rank's
    # host, or else in this server's first host
    first = emu.net.get(next((n for n in [*names, *(h.name for h in emu.topo.hosts)]
                              if spread.local(n)), names[0]))
    servers = [s for s in spread.servers_of(names) if s != LOCAL]
    # hydra's proxies reach mpiexec at -localhost: the first host's control address
    # (testbed.emulation.ctlnet), so the PMI exchange of every rank's business card with
    # every proxy stays off its shaped data link; across servers, its data address
    cmd = [str(VENV_BIN / "mpiexec"), "-launcher", "ssh", "-launcher-exec", str(LAUNCHER),
           "-localhost", emu.control_address(first.name) or first.IP(),
           "-hosts", ",".join(f"{n}:{ppn}" for n in names),
           "-n", str(np), "-genv", "UCX_TLS", "tcp,self",
           "-outfile-pattern", str(job_dir / "rank-%r.out"),
           "-errfile-pattern", str(job_dir / "rank-%r.err"),
           "sh", "-c", _RANK_WRAPPER, "sh", *module("mpi4py", *argv)]
    rate = emu.topo.host_rate()
    if rate is not None:  # multicast senders pace to it (collectives.ipmc.bcast.default_rate)
        env = {"MCASTLAB_LINK_MBIT": f"{rate:g}", **(env or {})}
    if servers:  # the launcher's ssh to them (the cluster's config and master connections)
        env = {"MCASTLAB_SSH": shlex.join(spread.runners[servers[0]].ssh()[:-1]), **(env or {})}
    if spread.cluster:  # ranks that hydra starts without the launcher run where mpiexec does
        env = {"MCASTLAB_GROUP_SLICE": spread.group_slice(first.name), **(env or {})}
    # the ranks keep their bytecode (a caller's PYTHONDONTWRITEBYTECODE, as this machine's
    # environment sets, made each of 16 ranks compile every module of ours it imports at every
    # start: a 16-host binomial job 2.86 s against 2.20 s with the bytecode kept, 2026-12-06)
    job_env = dict({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
                   MCASTLAB_HOSTMAP=str(hostmap), MCASTLAB_JOB_DIR=str(job_dir),
                   MCASTLAB_ROOT_PID=str(os.getpid()),
                   **{run_records.ENV_JOB: job_id},
                   PYTHONUNBUFFERED="1", **rank_stacks.ENV, **(env or {}))
    t0 = time.perf_counter()
    with (job_dir / "mpiexec.out").open("w+") as fout, \
            (job_dir / "mpiexec.err").open("w+") as ferr:
        given = {} if stdin is None else {"stdin": stdin}
        proc = first.popen(cmd, env=job_env, stdout=fout, stderr=ferr, start_new_session=True,
                           **given)
        lines = _Follower(job_dir / "rank-0.out", follow) if follow else None
        # the network's own processes (its controller) are watched as the job runs
        alive = getattr(emu, "check_alive", None)  # (a stand-in network may have none)
        try:
            failed = _watch(proc, job_dir, timeout, stall, lines, np, alive, together)
            # the laggards before their stacks are asked for (asking ends them)
            late = laggards(np, {r: _exit_code(job_dir, r) for r in range(np)}) \
                if failed == LAGGING else []
            killed = _killed_first(failed, job_dir, np)
            if failed is None or failed in (STALLED, LAGGING) or killed:
                rank_stacks.ask(job_id, job_dir)  # where the ranks (the others) were
            elif failed and failed != RANKS_DONE:
                _settle(proc, job_dir, np)
        finally:
            run_records.kill_marked(job_id=job_id)
            for server in servers:
                spread.runners[server].kill_job(job_id)
            proc.kill()
            proc.wait()
            if lines is not None:
                lines.poll()
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
    rank_output = _rank_outputs(job_dir, np)
    if failed is None or failed in (STALLED, LAGGING):
        stuck = _still_waiting(rank_output)
        where = rank_stacks.innermost(rank_output)
        what = (f"had rank(s) {', '.join(f'{r} ({names[r // ppn]})' for r in late)} still "
                f"running long after the other {np - len(late)} had exited 0 (hung)"
                if late else
                f"exceeded its {timeout:g} s timeout" if failed is None or stall is None
                else f"made no progress for {stall[1]:g} s")  # only a job with a stall file
        timed_out = RunFailed(
            f"MPI job '{' '.join(argv)}' on {np} ranks {what}; all its processes were killed"
            + (f"; ranks still waiting:\n{stuck}" if stuck else "")
            + (f"\nwhere the ranks were (innermost call first):\n{where}" if where else ""))
        timed_out.output = rank_output.get(0, "")
        raise timed_out
    res = MpiResult(job_returncode(failed, proc.returncode), time.perf_counter() - t0, out,
                    err, job_dir=job_dir)
    res.rank_output = rank_output
    if check and res.returncode != 0:
        # an uncaught exception in a rank aborts the whole job (python -m mpi4py), and the
        # rank noticed first may be one the abort killed: name the rank that raised it
        raised = [r for r in range(np) if "Traceback" in res.rank_output.get(r, "")]
        # ranks that raise together (a collective's error) kill one another mid-traceback
        # with their aborts: name one whose traceback came out whole, if one did
        raised.sort(key=lambda r: not _whole_traceback(res.rank_output[r]))
        if killed:  # the others may raise after it (their peer gone): it is the cause
            assert failed is not None  # (killed: a rank's failure)
            rank, code = failed
            who = f"rank {rank} ({names[rank // ppn]}) was {signal_text(code - 128)}"
            where = rank_stacks.innermost(res.rank_output)
            detail = f"where the other ranks were (innermost call first):\n{where}" \
                if where else ""
        elif raised:
            who = f"rank {raised[0]} ({names[raised[0] // ppn]}) raised an exception"
            detail = _tail(res.rank_output[raised[0]])
            stuck = _still_waiting(res.rank_output, but=raised[0])
            if stuck:
                detail += f"\nmeanwhile:\n{stuck}"
        elif failed:
            rank, code = failed
            who = f"rank {rank} ({names[rank // ppn]}) exited with code {code}"
            detail = _tail(res.rank_output.get(rank, ""))
        else:
            who, detail = f"mpiexec exited with code {res.returncode}", _tail(err or out)
            # or stopped with a message of its own (python -m mpi4py turns a non-zero exit
            # into MPI_Abort, so no exit code is recorded)
            said = [r for r in range(np) if _exit_code(job_dir, r) != 0
                    and res.rank_output.get(r, "").strip()]
            if said:
                who = f"rank {said[0]} ({names[said[0] // ppn]}) failed"
                detail = _tail(res.rank_output[said[0]])
        broke = RunFailed(f"MPI job '{' '.join(argv)}' on {np} ranks: {who}"
                          + (f":\n{detail}" if detail else ""))
        broke.output = res.rank_output.get(0, "")
        raise broke
    return res


def _said_at(job_dir: Path, rank: int) -> int:
    """When rank `rank`'s error output was last written (its exit code is its last line)."""
    try:
        return (job_dir / f"rank-{rank}.err").stat().st_mtime_ns
    except OSError:
        return 0


def _killed_first(failed: tuple[int, ...] | None, job_dir: Path, np: int) -> bool:
    """The job's first failure is a rank killed by a signal (its exit code, as the wrapper's
    shell says it, 128 + the signal's number: a kill, a crash; not SIGABRT, which
    rank_stacks asks with), before any rank printed a traceback: the kill is the cause,
    whatever the others raise once their peer is gone."""
    if not failed or failed in (STALLED, RANKS_DONE) or len(failed) != 2:
        return False
    code = failed[1]
    return code > 128 and code != 128 + signal.SIGABRT and not any(
        "Traceback" in text for text in _rank_outputs(job_dir, np).values())


def _rank_outputs(job_dir: Path, np: int) -> dict[int, str]:
    """Each rank's stdout and stderr (hydra's -outfile/-errfile patterns), as far as written."""
    return {r: "".join(_without_exit(p.read_text(errors="replace")) for p in
                       (job_dir / f"rank-{r}.out", job_dir / f"rank-{r}.err") if p.exists())
            for r in range(np)}


def _without_exit(text: str) -> str:
    return "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith(EXIT_SAID))


def _still_waiting(rank_output: dict[int, str], but: int | None = None) -> str:
    """What the ranks (all `but` one) said they were waiting for: collectives.ipmc.deadline.Clock
    warns once a wait has lasted a sixth of its deadline. The last 8 such lines."""
    stuck = [f"rank {r}: {ln.strip()}" for r, text in rank_output.items() if r != but
             for ln in text.splitlines() if "still waiting" in ln]
    return "\n".join(stuck[-8:])


# Each rank runs under this wrapper, which says the rank's exit code as the last line of its
# error output: hydra brings that to this server (rank-N.err) wherever the rank ran. Hydra
# does not end a job when a rank on another host dies (only ranks under the same proxy are
# cleaned up), so `_watch` ends it as soon as any rank has failed. Across servers it also
# gives the rank its server's part of the multicast group pool (hydra_launcher.sh). No core
# files: a rank asked for its stack (rank_stacks) dies of SIGABRT. The rank's UCX uses its
# host's data interface alone (UCX_NET_DEVICES, named from the host's hostname, which is the
# host's name: testbed.emulation.hosts), whatever the caller set: never the control network.
EXIT_SAID = "MCASTLAB-EXIT "
_RANK_WRAPPER = ('ulimit -c 0; [ -z "$MCASTLAB_SERVER_SLICE" ] || '
                 'export MCASTLAB_GROUP_SLICE="$MCASTLAB_SERVER_SLICE"; '
                 'read -r host < /proc/sys/kernel/hostname; '
                 f'export UCX_NET_DEVICES="{intf_name("$host", HOST_PORT)}"; '
                 '"$@"; rc=$?; echo "MCASTLAB-EXIT $rc" >&2; exit $rc')


STALLED = (-1,)
# Every rank exited 0 and mpiexec did not follow within RANKS_DONE_GRACE_S: the job is done.
# Under loss of every packet hydra's mpiexec can wait on for good after its proxies have gone
# (a CI run of 2026-12-06: 4 ranks exited 0 in a test of loss on every host link, mpiexec
# still waiting 10 min later).
RANKS_DONE = (-2,)
RANKS_DONE_GRACE_S = 5.0
# A few ranks still ran long after all the others had exited 0: the job's work is over and
# they hang (on the 8 x 8 mesh at 64 ranks, whose saturated switch made TCP retransmit tens
# of thousands of segments, one rank of two jobs in seven spun after every other had exited,
# until the job's 900 s timeout, 2026-12-07). At most LAGGARDS_SHARE of the ranks (one at
# least), LAGGARD_S or half the job's time until the others were done, whichever is longer.
LAGGING = (-3,)
LAGGARD_S = 60.0
LAGGARDS_SHARE = 1 / 8
# A rank failed: how long `_settle` waits for the ranks' tracebacks before the job is killed.
ABORT_GRACE_S = 3.0


def laggards(np: int, codes: dict[int, int | None]) -> list[int]:
    """The ranks of `np` still running (no exit code said) where every other one exited 0
    and they are at most LAGGARDS_SHARE of the job (one at least); else none."""
    running = [r for r in range(np) if codes.get(r) is None]
    if not running or len(running) == np or any(codes.get(r) for r in range(np)):
        return []
    return running if len(running) <= max(1, int(np * LAGGARDS_SHARE)) else []


def job_returncode(failed: tuple[int, ...], returncode: int | None) -> int:
    """A finished job's code from what `_watch` saw: 0 when every rank exited 0 (RANKS_DONE,
    mpiexec still waiting: it once read as a failure and run_mpi raised a ValueError
    unpacking it as a rank's), mpiexec's code, and at least 1 when a rank failed."""
    if failed == RANKS_DONE:
        return 0
    code = returncode or 0
    return (code or 1) if failed else code


class _Follower:
    """Hands each complete line written to `path` (hydra's copy of rank 0's output) to
    `follow`, from where the last poll left off."""

    def __init__(self, path: Path, follow: Callable[[str], None]) -> None:
        self.path, self.follow, self.offset, self.rest = path, follow, 0, b""

    def poll(self) -> None:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        self.offset += len(data)
        *lines, self.rest = (self.rest + data).split(b"\n")
        for line in lines:
            self.follow(line.decode(errors="replace"))


def _watch(proc: subprocess.Popen, job_dir: Path, timeout: float,
           stall: tuple[Path, float] | None = None,
           lines: _Follower | None = None, np: int = 0,
           alive: Callable[[], None] | None = None,
           together: bool = False) -> tuple[int, ...] | None:
    """Wait for mpiexec. Returns () when it ended, (rank, code) as soon as a rank failed,
    STALLED when the stall file stopped changing, RANKS_DONE when all `np` ranks exited 0
    and mpiexec had not ended RANKS_DONE_GRACE_S later, LAGGING (only `together`) when the
    ranks still running were `laggards` for longer than their grace, None on timeout.
    `alive` is called at every poll: what it raises (a dead controller) ends the wait."""
    begun = time.monotonic()
    deadline = begun + timeout
    started = time.time()
    done_at: float | None = None
    lagging_at: float | None = None
    while time.monotonic() < deadline:
        if lines is not None:
            lines.poll()
        if alive is not None:
            alive()
        if stall is not None:
            last = started  # a job that has not touched the file yet counts from its start
            with contextlib.suppress(OSError):
                last = max(started, stall[0].stat().st_mtime)
            if time.time() - last > stall[1]:
                return STALLED
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.1)
        codes = {rank: _exit_code(job_dir, rank)
                 for rank in (int(f.name[5:-4]) for f in job_dir.glob("rank-*.err"))}
        failed = [(rank, code) for rank, code in codes.items() if code]
        if failed:  # several seen in one poll (a kill, then what it took down): the first
            return min(failed, key=lambda rc: _said_at(job_dir, rc[0]))
        if proc.returncode is not None:
            return ()
        if np and done_at is None and all(codes.get(r) == 0 for r in range(np)):
            done_at = time.monotonic()
        now = time.monotonic()
        if not together or not laggards(np, codes):
            lagging_at = None
        elif lagging_at is None:
            lagging_at = now
        elif now - lagging_at > max(LAGGARD_S, (lagging_at - begun) / 2):
            return LAGGING
        if done_at is not None and time.monotonic() - done_at > RANKS_DONE_GRACE_S:
            return RANKS_DONE
    return None
