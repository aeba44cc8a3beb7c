"""A fully capable machine, as the emulation's tests (and experiments/test_run.py) hand it to
Emulation and the link checks."""

from __future__ import annotations

import dataclasses

from testbed.emulation.environment import Capabilities

ALL_TOOLS = {t: True for t in ("ethtool", "tc", "iptables", "nsenter", "unshare", "mnexec")}


def caps(**overrides: object) -> Capabilities:
    """A fully capable machine, with the given fields changed."""
    base = Capabilities(
        root=True, ovs_installed=True, ovs_running=True, ovs_datapaths=["netdev", "system"],
        kernel_ovs_module=True, sch_htb=True, sch_netem=True, netfilter_statistic=True,
        mininet=True, mpi=True, controller_importable=True, tools=dict(ALL_TOOLS))
    return dataclasses.replace(base, **overrides)
