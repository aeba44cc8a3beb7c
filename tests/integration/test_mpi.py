"""MPI across emulated hosts: ranks on chosen hosts of a mesh with their own hostnames, and
jobs that time out or lose a rank end with a clear error and leave no process behind."""

from __future__ import annotations

import json

import pytest

from testbed.emulation import run_records
from testbed.emulation.mpi import run_mpi
from testbed.errors import RunFailed

from .shared import shared_network

HELLO = ("from mpi4py import MPI; import socket; c = MPI.COMM_WORLD; "
         "print(c.Get_rank(), c.Get_size(), socket.gethostname(), "
         "sum(c.allgather(c.Get_rank())))")

# both tests run jobs on one 3x3 mesh (tests/integration/shared.py)
mesh, mesh_network = shared_network("mesh", "mesh:rows=3,cols=3")


def test_mpi_job_on_four_hosts_of_a_mesh(mesh, tmp_path):
    chosen = ["h0", "h2", "h6", "h8"]  # the four corners: routes cross the mesh
    res = run_mpi(mesh, ["-c", HELLO], hosts=chosen, timeout=60)
    assert res.returncode == 0
    lines = {r: res.rank_output[r].split() for r in range(4)}
    # Rank i runs on the i-th chosen host, under that host's own hostname.
    assert [lines[r][2] for r in range(4)] == chosen
    assert all(lines[r][:2] == [str(r), "4"] for r in range(4))
    assert all(lines[r][3] == "6" for r in range(4))  # allgather went through

    out = tmp_path / "pp.jsonl"
    run_mpi(mesh, ["-m", "collectives.programs.pingpong", "--out", str(out), "--reps", "10",
                  "--bw-bytes", "200000", "--bw-reps", "2"], hosts=chosen, timeout=60)
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
