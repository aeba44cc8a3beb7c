"""One emulated network for several tests of a module, proved clean between them.

Bringing a network up and down costs 2-5 s; tests that only read a network, or change it
and put it back, can share one. Each test then runs inside `left_as_found`, which takes
the network's state before the test and checks after it that the test left nothing behind:
no process in a host's network namespace but its shell, no MPI or traffic job of the run,
no rule that drops packets, the links shaped as before, no group joined on a host, each
host's IGMP version as it was, no failed node and no member at the controller but those leaving, no
multicast group lease. A test that leaves something fails, naming it, and the next one
does not start on a dirty network: the network is brought up again for it.

    star, star_network = shared_network("star", "star:hosts=4,bw=100")

    def test_x(star):
        ...                       # star is the Emulation, checked clean after the test
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from collectives.ipmc.groups import leases
from testbed.emulation import run_records
from testbed.emulation.controller_proc import api_get
from testbed.emulation.linkshape import LOSS_SINK
from testbed.emulation.network import Emulation
from topologies import HOST_PORT, parse_spec

from .conftest import assert_clean, net_namespaces

# A host's leave reaches the controller a moment after its socket closes; the controller
# then queries the group for the last-member time (RFC 3376 6.4: 2 s at the defaults),
# during which the member shows as "leaving". A member that is neither gone nor leaving
# this long after the test is one the test left joined.
LEAVES_ARRIVE_S = 2.0


def _host_state(emu: Emulation, host: Any) -> dict[str, Any]:
    intf = f"{host.name}-eth{HOST_PORT}"
    shell = host.pid
    ns = os.stat(f"/proc/{shell}/ns/net").st_ino
    procs = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit() or int(p.name) == shell:
            continue
        try:
            if os.stat(p / "ns/net").st_ino == ns:
                procs.append((p / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                             .strip())
        except OSError:
            continue
    out = host.cmd(f"iptables-save 2>/dev/null; echo @@; nft list ruleset 2>/dev/null; "
                   f"echo @@; ip -4 maddr show dev {intf}; echo @@; "
                   f"tc -s -d class show dev {intf} | grep -v -E 'Sent|backlog|lended|tokens'; "
                   f"tc qdisc show dev {intf}; echo @@; "
                   f"cat /proc/sys/net/ipv4/conf/{intf}/force_igmp_version")
    rules, ruleset, maddr, tc, igmp = out.split("@@")
    return {
        "processes": sorted(c for c in procs if c),
        "dropping rules": sorted(ln.strip() for ln in (rules + ruleset).splitlines()
                                 if re.search(rf"\bdrop\b|DROP|{LOSS_SINK}", ln)
                                 and ":INPUT" not in ln
                                 and "policy" not in ln),
        "groups joined": sorted(re.findall(r"inet (\d+\.\d+\.\d+\.\d+)", maddr)),
        "shaping": re.sub(r"\s+", " ", tc).strip(),
        "IGMP version": igmp.strip(),
    }


def _controller_state(emu: Emulation) -> dict[str, Any]:
    if emu.controller is None:
        return {}
    port = emu.controller.api
    deadline = time.monotonic() + LEAVES_ARRIVE_S
    while True:
        joined = {g: sorted(m for m, state in v.get("members", {}).items()
                            if not state.get("leaving"))
                  for g, v in api_get(port, "/groups").items()}
        joined = {g: m for g, m in joined.items() if m}
        if not joined or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return {"failed nodes": api_get(port, "/state")["failed"], "members joined": joined}


def snapshot(emu: Emulation) -> dict[str, Any]:
    """What a test could leave behind on a running network."""
    assert emu.record is not None
    return {"hosts": {h.name: _host_state(emu, h) for h in emu.hosts},
            "controller": _controller_state(emu),
            "jobs": [p for p in run_records.marked_processes(emu.record.id)
                     if run_records.job_of(p)],
            "leases": leases()}


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for name, was in before["hosts"].items():
        now = after["hosts"][name]
        out += [f"{name}: {k} {was[k]!r} -> {now[k]!r}" for k in was if now[k] != was[k]]
    for key in ("controller", "jobs", "leases"):
        if after[key] != before[key]:
            out.append(f"{key}: {before[key]!r} -> {after[key]!r}")
    return out


class SharedNetwork:
    """A running Emulation kept for the module's tests that ask for it (brought up by the
    first, again after one that left it dirty or a test that needed the machine)."""

    live: dict[str, SharedNetwork] = {}  # by fixture name: the networks up now

    def __init__(self, name: str, spec: str, caps: Any, kwargs: dict[str, Any]) -> None:
        self.name, self.spec, self.caps, self.kwargs = name, spec, caps, kwargs
        self.emu: Emulation | None = None
        self.clean: dict[str, Any] | None = None

    def up(self) -> Emulation:
        if self.emu is None:
            self.emu = Emulation(parse_spec(self.spec), caps=self.caps, **self.kwargs)
            self.emu.__enter__()
            SharedNetwork.live[self.name] = self
            self.clean = snapshot(self.emu)
        return self.emu

    def down(self) -> None:
        SharedNetwork.live.pop(self.name, None)
        if self.emu is not None:
            emu, self.emu = self.emu, None
            emu.__exit__(None, None, None)

    def check(self) -> None:
        """After a test: the network as it was, or down (and the test fails)."""
        assert self.emu is not None and self.clean is not None
        left = _differences(self.clean, snapshot(self.emu))
        if left:
            self.down()
            pytest.fail("the test left the shared network changed:\n  " + "\n  ".join(left))


def shared_network(name: str, spec: str, **kwargs: Any) -> tuple[Any, Any]:
    """Two fixtures to bind in a test module: `name`, the running Emulation of `spec` for a
    test, checked clean after it (see the module's docstring), and `name`_network, which
    holds it for the module and at the end tears it down and checks it gone.

        star, star_network = shared_network("star", "star:hosts=4,bw=100")
    """

    @pytest.fixture(scope="module", name=f"{name}_network")
    def network(caps: Any) -> Iterator[SharedNetwork]:
        before = net_namespaces()
        shared = SharedNetwork(name, spec, caps, kwargs)
        try:
            yield shared
        finally:
            shared.down()
        assert_clean(before)

    @pytest.fixture(name=name)
    def emulation(request: pytest.FixtureRequest) -> Iterator[Emulation]:
        shared: SharedNetwork = request.getfixturevalue(f"{name}_network")
        emu = shared.up()
        yield emu
        shared.check()

    return emulation, network


def make_way(fixturenames: list[str]) -> None:
    """Before a test: take down the shared networks it does not use. One network runs at a
    time (testbed.emulation.runlock), so a test that makes its own, or uses another shared
    one, would wait forever for one still up."""
    for name, shared in list(SharedNetwork.live.items()):
        if name not in fixturenames:
            shared.down()
