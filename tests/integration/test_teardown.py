"""Teardown leaves nothing behind: not on SIGTERM, not on Ctrl-C, and after a SIGKILL
`mcastlab cleanup` removes namespaces, bridges, veths and every process (hydra proxies and
ranks included)."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from testbed.emulation import run_records
from testbed.emulation.cleanup import leftovers

from .conftest import MCASTLAB, assert_clean, net_namespaces

SLEEPER = "import time; from mpi4py import MPI; MPI.COMM_WORLD.Barrier(); time.sleep(120)"


def _start_job_and_wait(spec: str, ranks: int) -> subprocess.Popen:
    """`mcastlab run` with ranks that sleep; returns once every rank is running."""
    proc = subprocess.Popen([*MCASTLAB, "mpirun", "--topo", spec, "--timeout", "200", "--",
                             "-c", SLEEPER], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        job = [p for p in run_records.marked_processes() if run_records.job_of(p)]
        pythons = [p for p in job if _cmdline(p).startswith(("python", "/"))
                   and "-c" in _cmdline(p) and "hydra" not in _cmdline(p)]
        if len(pythons) >= ranks:
            return proc
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("the MPI ranks did not all start")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_sigkill_then_cleanup_leaves_nothing(caps):
    before = net_namespaces()
    proc = _start_job_and_wait("mesh:rows=2,cols=2,bw=100", ranks=4)
    proc.kill()
    proc.wait()
    left = leftovers()
    # The kill really left things behind: the test below is not vacuous.
    assert left["bridges"] and left["processes"] and left["records"]
    assert net_namespaces() - before
    assert any("hydra_pmi_proxy" in _cmdline(p) for p in left["processes"])

    out = subprocess.run([*MCASTLAB, "cleanup"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "removed run" in out.stdout
    assert_clean(before)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_tears_everything_down(caps, sig, code):
    before = net_namespaces()
    proc = _start_job_and_wait("star:hosts=3,bw=100", ranks=3)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert_clean(before)
