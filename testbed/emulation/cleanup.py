"""Remove every trace of runs that are no longer alive (``mcastlab cleanup``), and list what
is left (the teardown tests use `leftovers`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from collectives.ipmc import group_dir

from . import priority, run_records
from .linkshape import NFT_TABLE_PREFIX, nft_table
from .shell import ok, run

NFT_FAMILIES = ("netdev", "inet")  # loss on switch links; the tunnel guard (cluster.guard)

BRIDGE_MARK = "mcastlab-run"
SYS_NET = Path("/sys/class/net")


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


def kernel_bridges() -> dict[str, str]:
    """Linux kernel bridge name -> the run id in its alias ('' when not ours)."""
    bridges = {}
    for p in SYS_NET.iterdir():
        if (p / "bridge").is_dir():  # not there for OVS's internal ports
            try:
                alias = (p / "ifalias").read_text().strip()
            except OSError:
                alias = ""
            key, _, run_id = alias.partition("=")
            bridges[p.name] = run_id if key == BRIDGE_MARK else ""
    return bridges


def run_kernel_bridges(rec: run_records.RunRecord) -> list[str]:
    """The kernel bridges a run made: marked with its id, or recorded and not marked (a run
    killed between making a bridge and marking it); never another run's."""
    return sorted(b for b, r in kernel_bridges().items()
                  if r == rec.id or (not r and b in rec.bridges))


def interfaces() -> set[str]:
    return {p.name for p in SYS_NET.iterdir()}


def nft_tables() -> list[str]:
    """The runs' nftables tables present, as "FAMILY NAME": netdev ones (loss on switch
    links), inet ones (the tunnel guard across servers); [] without nft."""
    if shutil.which("nft") is None:
        return []
    try:
        out = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return sorted(f"{parts[1]} {parts[2]}" for line in out.splitlines()
                  if len(parts := line.split()) == 3 and parts[0] == "table"
                  and parts[1] in NFT_FAMILIES and parts[2].startswith(NFT_TABLE_PREFIX))


def tables_of(run_id: str) -> list[str]:
    """The nftables tables of one run, in every family."""
    return [t for t in nft_tables() if t.split()[1] == nft_table(run_id)]


def remove_nft_tables(tables: list[str]) -> None:
    if tables:
        run(["nft", "-f", "-"], input="".join(f"delete table {t}\n" for t in tables),
            check=False, timeout=30)


def live_runs() -> set[str]:
    """The ids of the runs whose testbed process is alive, read now. A run writes its record
    before it makes anything that carries its id (processes, bridges, folders, nftables
    tables), so what was found before this call and is of no run named here is no live
    run's. Read it after looking, never before: cleanup does not hold the run lock, and a
    run that started between the reading and the look would be taken for an ended one."""
    return {r.id for r in run_records.records() if r.alive()}


def remove_ended_nft_tables() -> int:
    """Delete the tables of runs that are no longer alive (an ended run's loss chain binds
    again to the next interface of its name: a later run's switch link would lose packets);
    returns how many."""
    tables = nft_tables()
    live = {nft_table(r) for r in live_runs()}
    stray = [t for t in tables if t.split()[1] not in live]
    remove_nft_tables(stray)
    return len(stray)


def killed_runs() -> list[run_records.RunRecord]:
    """Runs whose testbed process is gone (killed: no teardown) with a bridge or interface
    their record names still here: a new network would run into it (same names)."""
    present = set(ovs_bridges()) | set(kernel_bridges()) | interfaces()
    return [r for r in run_records.records()
            if not r.alive() and present & {*r.bridges, *r.interfaces}]


def leftovers(rec: run_records.RunRecord | None = None) -> dict[str, list]:
    """What a run (or any run) left behind: processes, bridges (OVS or kernel), interfaces,
    records, and nftables tables (key "nft_tables", present only when there are some)."""
    run_id = rec.id if rec else None
    existing = ovs_bridges()
    kernel = kernel_bridges()
    recs = [rec] if rec else run_records.records()
    marked = {b for b, r in (existing | kernel).items()
              if r and (run_id is None or r == run_id)}
    recorded = {b for r in recs for b in r.bridges}
    names = {i for r in recs for i in r.interfaces} | recorded
    left: dict[str, list[Any]] = {
        "processes": run_records.marked_processes(run_id),
        "bridges": sorted(marked | (recorded & set(existing))
                          | (recorded & {b for b, r in kernel.items() if not r})),
        "interfaces": sorted(names & interfaces()),
        "records": [r.id for r in run_records.records() if run_id is None or r.id == run_id],
    }
    tables = nft_tables() if run_id is None else tables_of(run_id)
    if tables:
        left["nft_tables"] = tables
    return left


def clear_ovs_ssl(run_id: str) -> None:
    """Delete Open vSwitch's SSL configuration if it is the run's (testbed.cluster.tls sets
    it for OpenFlow over TLS across servers; its files go with the run's sockets folder)."""
    try:
        current = subprocess.run(["ovs-vsctl", "--timeout=5", "get-ssl"], capture_output=True,
                                 text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return
    if str(run_records.sockets_dir(run_id)) in current:
        ok(["ovs-vsctl", "--timeout=5", "del-ssl"], timeout=10)


def remove_network(bridges: list[str], intfs: list[str]) -> None:
    """Delete bridges (OVS ones with ovs-vsctl, Linux kernel ones with ip; a name that is
    neither is skipped) and root-namespace interfaces (veth ends between switches)."""
    present = interfaces()
    kernel = kernel_bridges()
    gone = [i for i in intfs if i in present] + [b for b in bridges if b in kernel]
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


def cleanup_run(rec: run_records.RunRecord, by_name: bool = True) -> None:
    """Tear down what one run made. Processes first: that frees the host namespaces, and
    with them the veth pairs that end in a host. Bridges marked with another run's id are
    never touched; `by_name` False (another run is alive, and every run names its switches
    and veths alike: s1, s1-eth2) removes only what carries this run's mark, not what its
    record names."""
    for _ in range(3):  # a process forked while the first round ran is found by the next
        run_records.kill_marked(rec.id)  # the controller too: it carries the run's mark
        if not run_records.marked_processes(rec.id):
            break
    remove_nft_tables(tables_of(rec.id))
    bridges = ovs_bridges() | kernel_bridges()  # name -> the run id marked on it, or ''
    mine = {b for b, r in bridges.items() if r == rec.id}
    if by_name:  # and what the record names, unless it is another run's or not ours
        others = {b for b, r in bridges.items() if r and r != rec.id} | \
            (set(kernel_bridges()) - set(run_kernel_bridges(rec)))
        remove_network(sorted((set(rec.bridges) | mine) - others), rec.interfaces)
    else:
        remove_network(sorted(mine), [])
    for spec in rec.cgroups:  # CPU-limited hosts' cgroups, empty once the processes are gone
        run(["cgdelete", "-r", spec], check=False, timeout=30)
    if rec.run_dir and Path(rec.run_dir).parent == run_records.STATE_DIR:
        shutil.rmtree(rec.run_dir, ignore_errors=True)
    clear_ovs_ssl(rec.id)
    shutil.rmtree(run_records.sockets_dir(rec.id), ignore_errors=True)
    rec.remove()


def kill_orphans() -> int:
    """End the marked processes whose run is not alive (e.g. its record was never written
    before a SIGKILL); returns how many. Each is judged once pinned, against the records as
    they are then: a run that started meanwhile keeps its processes."""
    killed: list[int] = []

    def orphan(pid: int) -> bool:
        if run_records.run_of(pid) in live_runs():
            return False
        killed.append(pid)
        return True

    run_records.kill_marked(where=orphan)
    return len(killed)


def cleanup_stale() -> list[str]:
    """Clean every run whose testbed process is gone; returns a line per action. Whether a
    run is alive is read after what would be removed was found (live_runs): a run may start
    while this runs."""
    done = []
    for rec in run_records.records():
        live = live_runs()
        if rec.id in live:
            done.append(f"run {rec.id} is still active (pid {rec.pid}); left alone")
            continue
        cleanup_run(rec, by_name=not live)
        done.append(f"removed run {rec.id}" + (
            "; its unmarked interfaces are left while a run is active (they may be that "
            "run's, named alike): run cleanup again after it ends" if live else ""))
    orphans = kill_orphans()
    if orphans:
        done.append(f"killed {orphans} orphaned process(es)")

    leases = group_dir()  # shared by every run's jobs: kept while one is alive
    folders = [d for d in run_records.STATE_DIR.glob("*") if d.is_dir()]
    live = live_runs()
    for d in folders:
        if d.name not in live and not (live and d == leases):
            shutil.rmtree(d, ignore_errors=True)
            done.append(f"removed leftover folder {d}")
    folders = [d for d in run_records.OVS_RUNDIR.glob(f"{run_records.SOCKETS_PREFIX}*")
               if d.is_dir() and not d.is_symlink()]
    live = live_runs()
    for d in folders:
        if d.name.removeprefix(run_records.SOCKETS_PREFIX) not in live:
            shutil.rmtree(d, ignore_errors=True)
            done.append(f"removed leftover folder {d}")
    bridges = ovs_bridges() | kernel_bridges()
    live = live_runs()
    stray = [b for b, r in bridges.items() if r and r not in live]
    if stray:
        remove_network(stray, [])
        done.append(f"deleted {len(stray)} orphaned bridge(s)")
    tables = remove_ended_nft_tables()
    if tables:
        done.append(f"deleted {tables} nftables table(s) of ended runs (switch link loss)")
    if priority.note_exists() and not live_runs():  # a run raises it after its record
        priority.restore_switch()
        done.append("restored the switch's CPU priority")
    return done
