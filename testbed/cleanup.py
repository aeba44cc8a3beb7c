"""Remove every trace of runs that are no longer alive (``mcastlab cleanup``), and list what
is left (the teardown tests use `leftovers`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import registry
from .shell import ok, run

BRIDGE_MARK = "mcastlab-run"


def ovs_bridges() -> dict[str, str]:
    """OVS bridge name -> the run id in its external_ids ('' when not ours)."""
    try:
        out = subprocess.run(
            ["ovs-vsctl", "--timeout=5", "--format=csv", "--data=bare", "--no-headings",
             "--columns=name,external_ids", "list", "Bridge"],
            capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    bridges = {}
    for line in out.stdout.splitlines():
        name, _, ext = line.partition(",")
        run = ""
        for item in ext.strip('"').split():
            k, _, v = item.partition("=")
            if k == BRIDGE_MARK:
                run = v
        bridges[name] = run
    return bridges


def interfaces() -> set[str]:
    return {p.name for p in Path("/sys/class/net").iterdir()}


def leftovers(rec: registry.RunRecord | None = None) -> dict[str, list]:
    """What a run (or any run) left behind: processes, bridges, interfaces, records."""
    run_id = rec.id if rec else None
    existing = ovs_bridges()
    recs = [rec] if rec else registry.records()
    marked = {b for b, r in existing.items() if r and (run_id is None or r == run_id)}
    recorded = {b for r in recs for b in r.bridges}
    names = {i for r in recs for i in r.interfaces} | recorded
    return {
        "processes": registry.marked_processes(run_id),
        "bridges": sorted(marked | (recorded & set(existing))),
        "interfaces": sorted(names & interfaces()),
        "records": [r.id for r in registry.records() if run_id is None or r.id == run_id],
    }


def remove_network(bridges: list[str], intfs: list[str]) -> None:
    """Delete OVS bridges and root-namespace interfaces (veth ends between switches)."""
    present = interfaces()
    gone = [i for i in intfs if i in present]
    if gone:
        # Deleting one end of a veth deletes both: -force carries on past the peers.
        run(["ip", "-force", "-batch", "-"], input="".join(f"link del {i}\n" for i in gone),
            check=False, timeout=60)
    existing = ovs_bridges()
    cmd = ["ovs-vsctl", "--timeout=10"]
    for b in bridges:
        if b in existing:
            cmd += ["--", "--if-exists", "del-br", b]
    if len(cmd) > 2:
        ok(cmd, timeout=30)


def cleanup_run(rec: registry.RunRecord) -> None:
    """Tear down what one run made. Processes first: that frees the host namespaces, and
    with them the veth pairs that end in a host."""
    registry.kill_processes(registry.marked_processes(rec.id))
    if rec.controller_pid and registry.pid_alive(rec.controller_pid):
        registry.kill_processes([rec.controller_pid])
    marked = [b for b, r in ovs_bridges().items() if r == rec.id]
    remove_network(sorted(set(rec.bridges) | set(marked)), rec.interfaces)
    if rec.run_dir and Path(rec.run_dir).parent == registry.STATE_DIR:
        shutil.rmtree(rec.run_dir, ignore_errors=True)
    rec.remove()


def cleanup_stale() -> list[str]:
    """Clean every run whose testbed process is gone; returns a line per action."""
    done = []
    live = {r.id for r in registry.records() if r.alive()}
    for rec in registry.records():
        if rec.id in live:
            done.append(f"run {rec.id} is still active (pid {rec.pid}); left alone")
            continue
        cleanup_run(rec)
        done.append(f"removed run {rec.id}")
    # Marks whose record is gone (e.g. the record was never written before a SIGKILL).
    orphans = [p for p in registry.marked_processes()
               if registry.run_of(p) not in live]
    if orphans:
        registry.kill_processes(orphans)
        done.append(f"killed {len(orphans)} orphaned process(es)")
    for d in registry.STATE_DIR.glob("*"):
        if d.is_dir() and d.name not in live:
            shutil.rmtree(d, ignore_errors=True)
            done.append(f"removed leftover folder {d}")
    stray = [b for b, r in ovs_bridges().items() if r and r not in live]
    if stray:
        remove_network(stray, [])
        done.append(f"deleted {len(stray)} orphaned bridge(s)")
    return done
