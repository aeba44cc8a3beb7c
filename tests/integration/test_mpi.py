"""MPI across emulated hosts: ranks on chosen hosts of a mesh with their own hostnames, jobs
that time out or lose a rank end with a clear error and leave no process behind, the
order in which MPICH's binomial MPI_Bcast sends, read off the wire, is binomial_tree's, and
the dummy loop of Algorithm 2.3.3 run by both ranks of its pair."""

from __future__ import annotations

import json
import re
import select
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from collectives.trees.schedules import build
from testbed.emulation import ctlnet, run_records
from testbed.emulation.mpi import run_mpi
from testbed.emulation.ports import switch_side
from testbed.errors import RunFailed
from testbed.measure.mpich import mpich_env
from testbed.measure.params import measure_params
from topologies import HOST_PORT

from .netutil import tcp_segments
from .shared import shared_network

HELLO = ("from mpi4py import MPI; import socket, sys; c = MPI.COMM_WORLD; "
         "print(c.Get_rank(), c.Get_size(), socket.gethostname(), "
         "sum(c.allgather(c.Get_rank())), sys.dont_write_bytecode)")

# every test runs jobs on one 3x3 mesh (tests/integration/shared.py)
mesh, mesh_network = shared_network("mesh", "mesh:rows=3,cols=3")


def test_mpi_job_on_four_hosts_of_a_mesh(mesh, tmp_path, monkeypatch):
    chosen = ["h0", "h2", "h6", "h8"]  # the four corners: routes cross the mesh
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # as this machine's environment
    out = tmp_path / "pp.jsonl"
    # the hello, then the ping-pong benchmark, in one job (a job's start-up once)
    then_pingpong = "; from collectives.programs.pingpong import main; sys.exit(main(sys.argv[1:]))"
    res = run_mpi(mesh, ["-c", HELLO + then_pingpong, "--out", str(out), "--reps", "10",
                         "--bw-bytes", "200000", "--bw-reps", "2"], hosts=chosen, timeout=60)
    assert res.returncode == 0
    lines = {r: res.rank_output[r].split() for r in range(4)}
    # Rank i runs on the i-th chosen host, under that host's own hostname.
    assert [lines[r][2] for r in range(4)] == chosen
    assert all(lines[r][:2] == [str(r), "4"] for r in range(4))
    assert all(lines[r][3] == "6" for r in range(4))  # allgather went through
    assert all(lines[r][4] == "False" for r in range(4))  # the ranks keep their bytecode
    recs = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [r["dst_host"] for r in recs] == chosen[1:]
    assert all(r["latency_us"]["median"] > 0 for r in recs)
    assert all(0 < r["bandwidth_mbit"]["median"] < 105 for r in recs)


def test_timeout_and_dead_rank_end_the_job_cleanly(mesh):
    three = ["h0", "h1", "h2"]  # jobs of three ranks, rank i on hi
    with pytest.raises(RunFailed, match="exceeded its 3 s timeout") as timed_out:
        run_mpi(mesh, ["-c", "import time; from mpi4py import MPI; time.sleep(60)"],
                hosts=three, timeout=3)
    for rank in range(3):  # each rank's Python stack when the time ran out (rank_stacks)
        assert f'rank {rank}: File "<string>", line 1 in <module>' in str(timed_out.value)
    assert not [p for p in run_records.marked_processes(mesh.record.id)
                if run_records.job_of(p)], "processes of the timed-out job survived"

    die = ("from mpi4py import MPI; import os, time; c = MPI.COMM_WORLD\n"
           "if c.Get_rank() == 1: os._exit(7)\n"
           "time.sleep(60)")
    with pytest.raises(RunFailed, match=r"rank 1 \(h1\) exited with code 7"):
        run_mpi(mesh, ["-c", die], hosts=three, timeout=40)
    assert not [p for p in run_records.marked_processes(mesh.record.id)
                if run_records.job_of(p)], "processes of the failed job survived"

    # The network still works for the next job.
    res = run_mpi(mesh, ["-c", HELLO], hosts=three, timeout=60)
    assert sorted(ln.split()[2] for ln in res.rank_output.values()) == ["h0", "h1", "h2"]


# Each broadcast's payload is its own 16-byte tag repeated: a TCP segment that carries it
# says which broadcast it belongs to. alltoall first connects every pair, so that no send
# waits for its connection (which could reorder the first sends on the wire).
ORDER_ROOTS = (0, 5)
ORDER_PROGRAM = """
from mpi4py import MPI
c = MPI.COMM_WORLD
c.alltoall([0] * c.Get_size())
for call in ("Bcast", "Ibcast"):
    for root in ROOTS:
        tag = f"{call:-<6}-root{root}-".encode().ljust(16, b"=")
        buf = bytearray(tag * 16 if c.Get_rank() == root else 256)
        c.Barrier()
        if call == "Bcast":
            c.Bcast(buf, root=root)
        else:
            c.Ibcast(buf, root=root).Wait()
        assert buf == tag * 16
print("done")
"""


def _tags() -> dict[bytes, tuple[str, int]]:
    return {f"{call:-<6}-root{root}-".encode().ljust(16, b"="): (call, root)
            for call in ("Bcast", "Ibcast") for root in ORDER_ROOTS}


def _capture(host, into):
    """tcpdump of the TCP segments `host` sends, written to the open file `into`; returns
    once it captures."""
    proc = host.popen(["tcpdump", "-n", "-U", "--immediate-mode", "-i",
                       f"{host.name}-eth{HOST_PORT}", "-w", "-", "tcp and src host " + host.IP()],
                      stdout=into, stderr=subprocess.PIPE, text=True)
    ready = select.select([proc.stderr], [], [], 10.0)[0]
    assert ready and proc.poll() is None, proc.communicate()[1]
    assert "listening on" in proc.stderr.readline()
    return proc


def test_mpich_binomial_bcast_sends_in_binomial_trees_order(mesh, tmp_path):
    """MPICH's MPI_Bcast forced to its binomial algorithm (and MPI_Ibcast to sched_binomial,
    what ranks that wait asleep run), 9 ranks, roots 0 and 5: every host's capture gives,
    per broadcast, the ranks it sent the payload to in the order its first segment to each
    left; each rank's order is the one collectives' binomial schedule gives it (the root of
    0 sends to 8, 4, 2, 1: the range-halving builder sent to 5, 3, 2, 1)."""
    names = [f"h{i}" for i in range(9)]
    rank_of = {mesh.host(n).IP(): r for r, n in enumerate(names)}
    dumps = {}
    try:
        for n in names:
            out = (tmp_path / f"{n}.pcap").open("wb")
            dumps[n] = (_capture(mesh.host(n), out), out)
        program = ORDER_PROGRAM.replace("ROOTS", repr(ORDER_ROOTS))
        res = run_mpi(mesh, ["-c", program], hosts=names, timeout=60,
                      env=mpich_env("binomial"))
        assert all("done" in res.rank_output[r] for r in range(9))
    finally:
        for proc, out in dumps.values():
            proc.terminate()
            proc.wait(timeout=10)
            out.close()
    sent: dict[tuple[str, int], dict[int, list[int]]] = {}
    for sender, n in enumerate(names):
        for to, data in tcp_segments(tmp_path / f"{n}.pcap"):
            for tag, key in _tags().items():
                order = sent.setdefault(key, {}).setdefault(sender, [])
                dst = rank_of.get(to)
                if tag in data and dst is not None and dst not in order:
                    order.append(dst)
    for (call, root), by_sender in sent.items():
        want: dict[int, list[int]] = {r: [] for r in range(9)}
        for src, dst, _lo, _hi in build("binomial", 9, root, 256).transfers():
            want[src].append(dst)
        assert by_sender == want, (call, root)
    assert sent[("Bcast", 0)][0] == [8, 4, 2, 1]


def test_the_dummy_loop_sweeps_t_dummy_with_both_ranks_taking_part(mesh):
    """Both ranks of the pair loop through the sweep (rank 1 once sat out, and the job
    waited for it until its timeout): every fraction of t_end measured, t_est past the
    knee longer than with no loop."""
    fractions = (0.0, 1.0, 3.0, 6.0)
    got = measure_params(mesh, [1], repetitions=1, dummy_max=1, hosts=["h0", "h1"],
                         budget_bytes=1 << 12, dummy_fractions=fractions)
    (sweep,) = got["dummy"]
    t_end = got["t_end_s"][0]
    assert [round(d / t_end, 6) for d, _ in sweep["points"]] == list(fractions)
    assert sweep["points"][-1][1] > 2 * sweep["points"][0][1]  # 6 t_end of loop: t_est >= 3.5



def _bytes(intf: str) -> tuple[int, int]:
    """(rx, tx) bytes of a root-namespace interface."""
    stats = Path("/sys/class/net", intf, "statistics")
    return int((stats / "rx_bytes").read_text()), int((stats / "tx_bytes").read_text())


BCAST_MIB = ("from mpi4py import MPI; c = MPI.COMM_WORLD; "
             "b = bytearray(1 << 20) if c.Get_rank() else bytearray(b'x' * (1 << 20)); "
             "c.Bcast(b); assert b == b'x' * (1 << 20)")


def test_mpi_data_crosses_the_data_links_and_start_up_the_control_network(mesh):
    """A 1 MiB MPI_Bcast from h0 to h8: its bytes on both hosts' data links (switch ends),
    only start-up's on their control veths (testbed.emulation.ctlnet), and some there (the
    proxies reach mpiexec over it). Every host: no default route, multicast routed on the
    data interface, a group joined there and not on the control interface."""
    ends = switch_side(mesh.topo)
    data0, data8 = ends["h0"][0], ends["h8"][0]
    before = {i: _bytes(i) for i in (data0, data8, ctlnet.root_intf("h0"), ctlnet.root_intf("h8"))}
    run_mpi(mesh, ["-c", BCAST_MIB], hosts=["h0", "h8"], timeout=60)
    moved = {i: [a - b for a, b in zip(_bytes(i), before[i], strict=True)] for i in before}
    mib = 1 << 20
    # switch end rx: what the host sent; tx: what it was sent
    assert moved[data0][0] >= mib and moved[data8][1] >= mib, moved
    ctl0, ctl8 = moved[ctlnet.root_intf("h0")], moved[ctlnet.root_intf("h8")]
    assert 0 < ctl8[1] < mib // 8 and 0 < ctl0[0] < mib // 8, moved
    join = ("import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
            "s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, "
            "socket.inet_aton('239.1.2.3') + socket.inet_aton('0.0.0.0')); "
            "print(open('/proc/net/igmp').read())")
    for h in mesh.hosts:
        routes = h.cmd("ip -o route show").split("\n")
        assert sorted(r.split()[:3] for r in routes if r.strip()) == [
            ["10.0.0.0/16", "dev", f"{h.name}-eth{HOST_PORT}"],
            ["198.18.128.0/17", "dev", ctlnet.host_intf(h.name)],
            ["224.0.0.0/4", "dev", f"{h.name}-eth{HOST_PORT}"]], routes
        igmp = h.cmd(f"{sys.executable} -c {shlex.quote(join)}")
        joined = [block.split()[1].rstrip(":") for block in re.split(r"\n(?=\d)", igmp)
                  if "030201EF" in block]
        assert joined == [f"{h.name}-eth{HOST_PORT}"], igmp
