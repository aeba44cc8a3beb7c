"""Integration tests: real Mininet, real Open vSwitch, the real controller process, MPICH.

They need root and a running OVS (CI has both; `sudo make test` installs and starts it).
Missing requirements make the tests fail with the reason, never skip.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from testbed.emulation import ctlnet, run_records
from testbed.emulation.cleanup import cleanup_stale, kernel_bridges, leftovers
from testbed.emulation.environment import Capabilities, detect

MCASTLAB = [sys.executable, "-m", "testbed.cli"]
# Kernel bridges forward without snooping for a query response interval after their querier
# appears, and Emulation waits that out: 10 s at the kernel's default. Tests of what the
# bridges do (not of that default) give them 1 s (ip-link counts centiseconds).
QUICK_BRIDGE = {"mcast_query_response_interval": "100"}


def pytest_runtest_setup(item: pytest.Item) -> None:
    from .shared import make_way

    make_way(getattr(item, "fixturenames", []))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def caps() -> Capabilities:
    c = detect()
    problems = c.problems()
    assert not problems, "integration tests need: " + "; ".join(problems)
    # What a run killed before the session left (SIGKILL leaves its record) is not any
    # test's leftover: clean it first, as `mcastlab cleanup` would. A live run would
    # share the machine with the tests and make their timings meaningless: refuse.
    other = run_records.active_run()
    assert other is None, f"another mcastlab run is active (pid {other.pid}); stop it first"
    for line in cleanup_stale():
        print("before the tests:", line)
    return c


def net_namespaces() -> set[int]:
    """Inodes of every network namespace some process is in, but our own."""
    init = os.stat("/proc/self/ns/net").st_ino  # the tests run in the root namespace
    found = set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ino = os.stat(p / "ns/net").st_ino
            except OSError:
                continue
            if ino != init:
                found.add(ino)
    return found


def assert_clean(before_ns: set[int] | None = None) -> None:
    """Nothing of any run is left: processes, bridges, interfaces, records, namespaces."""
    left = leftovers()
    assert left == {"processes": [], "bridges": [], "interfaces": [], "records": []}, left
    if before_ns is not None:
        assert net_namespaces() <= before_ns, "a network namespace was left behind"
    bridges = subprocess.run(["ovs-vsctl", "list-br"], capture_output=True, text=True).stdout
    assert not bridges.strip(), f"OVS bridges left: {bridges}"
    # Kernel bridges of a run (switch="linux-bridge"): marked in their alias, named as switches.
    kernel = {b: r for b, r in kernel_bridges().items() if r or re.fullmatch(r"s\d+", b)}
    assert not kernel, f"kernel bridges left: {kernel}"
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert "-eth" not in links, f"veths left: {links}"
    # the control network's bridge and veth ends (testbed.emulation.ctlnet)
    assert not re.search(rf"^({ctlnet.BRIDGE}|{ctlnet.ROOT_PREFIX})", links, re.M), links


@pytest.fixture
def clean_after(caps: Capabilities):
    """Yield the namespaces present before the test; afterwards assert nothing was left."""
    before = net_namespaces()
    yield before
    try:
        assert_clean(before)
    except AssertionError:
        # This test fails; the next ones must not fail for its leftovers (a run killed at a
        # test's timeout leaves its network, and every later run would refuse to start).
        for line in cleanup_stale():
            print("after the test:", line)
        raise


@pytest.fixture
def no_run_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    """The experiments this test runs write their reports without plots or trees
    ($MCASTLAB_FIGURE_FORMATS=none, testbed.report.figures): for tests that read a run's
    records and text, never its figures (matplotlib's import and the drawing were 1-4 s of
    each report). A run's plots are drawn and looked at end to end by
    test_experiment.test_small_spec_with_traffic_and_loss and test_calibration (every
    format), and in tests/unit/testbed/test_report.py."""
    from testbed.report.figures import FORMATS_ENV, NO_RUN_PLOTS

    monkeypatch.setenv(FORMATS_ENV, NO_RUN_PLOTS)
