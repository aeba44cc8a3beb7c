"""What this machine offers, and what the testbed will use (``mcastlab doctor``).

Kernel features are probed by trying them in a throw-away network namespace
(``unshare --net``), which is the only reliable answer and leaves nothing behind.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CapabilityError
from ..interpreter import code
from .shell import ok

VENV_BIN = Path(sys.executable).parent


def _probe_netns(script: str) -> bool:
    """Run a shell snippet as root in a fresh, anonymous network namespace."""
    return ok(["unshare", "--net", "sh", "-c", f"ip link set lo up && {script}"], timeout=10)


def ovs_running() -> bool:
    return ok(["ovs-vsctl", "--timeout=3", "show"], timeout=5)


def _ovs_list(column: str) -> list[str]:
    try:
        out = subprocess.run(["ovs-vsctl", "--timeout=3", "get", "Open_vSwitch", ".", column],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [t.strip() for t in out.stdout.strip().strip("[]").split(",") if t.strip()]


def ovs_datapath_types() -> list[str]:
    return _ovs_list("datapath_types")


def kernel_ovs_module() -> bool:
    """The openvswitch kernel module is loaded, or loads now."""
    if Path("/sys/module/openvswitch").exists():
        return True
    if os.geteuid() == 0 and shutil.which("modprobe"):
        ok(["modprobe", "-q", "openvswitch"])
    return Path("/sys/module/openvswitch").exists()


AF_XDP = 44  # socket family of XDP sockets (linux/socket.h); Python names no constant
AFXDP_PORT = "afxdp-nonpmd"  # served by the switch's main thread: no core spent polling


def xdp_sockets() -> bool:
    """The kernel makes XDP sockets (CONFIG_XDP_SOCKETS; needs CAP_NET_RAW)."""
    try:
        socket.socket(AF_XDP, socket.SOCK_RAW, 0).close()
        return True
    except OSError:
        return False


def ovs_iface_types() -> list[str]:
    return _ovs_list("iface_types")


@dataclass
class Capabilities:
    root: bool
    ovs_installed: bool
    ovs_running: bool
    ovs_datapaths: list[str]
    kernel_ovs_module: bool
    sch_htb: bool
    sch_netem: bool
    netfilter_statistic: bool
    mininet: bool
    mpi: bool
    controller_importable: bool
    tools: dict[str, bool] = field(default_factory=dict)
    xdp_sockets: bool = False       # the kernel makes AF_XDP sockets
    ovs_afxdp: bool = False         # OVS offers AFXDP_PORT interfaces
    ingress_shaping: bool = False   # IFB + ingress qdisc + u32 + mirred (linkshape)

    @property
    def afxdp(self) -> bool:
        """Host ports can be AF_XDP ports: the userspace datapath, XDP sockets, OVS's port
        type, and a way to shape the switch-to-host direction without the switch's qdisc."""
        return (self.datapath == "user" and self.xdp_sockets and self.ovs_afxdp
                and self.ingress_shaping)

    # ---- what the testbed will use ------------------------------------------------------
    @property
    def datapath(self) -> str:
        """Mininet OVSSwitch datapath: kernel where the module exists, else userspace."""
        return "kernel" if self.kernel_ovs_module and "system" in self.ovs_datapaths else "user"

    @property
    def loss_mechanism(self) -> str | None:
        if self.sch_netem:
            return "netem"
        return "netfilter" if self.netfilter_statistic else None

    def problems(self) -> list[str]:
        """Missing requirements, each with what to do about it (empty: ready to run)."""
        p = []
        if not self.root:
            p.append("not root: the testbed creates namespaces and switches (use sudo)")
        if not self.mininet:
            p.append("Mininet is missing (run 'sudo make install')")
        if not self.ovs_installed:
            p.append("Open vSwitch is not installed (run 'sudo make install')")
        elif not self.ovs_running:
            p.append("Open vSwitch is not running (run 'sudo make install', which starts it)")
        elif self.datapath == "user" and "netdev" not in self.ovs_datapaths:
            p.append("no usable OVS datapath: no kernel module and no userspace (netdev)")
        if self.root and not self.sch_htb:
            p.append("the kernel lacks sch_htb: link bandwidth cannot be emulated")
        if not self.mpi:
            p.append("MPI (mpiexec from the mpich wheel, mpi4py) not found in the venv")
        if not self.controller_importable:
            p.append("the controller cannot be imported (os-ken missing? run 'make install')")
        for tool in ("ethtool", "tc", "nsenter", "unshare", "mnexec"):
            if not self.tools.get(tool, False):
                p.append(f"command '{tool}' not found (run 'sudo make install')")
        return p

    def require(self) -> None:
        problems = self.problems()
        if problems:
            raise CapabilityError("cannot start the testbed: " + "; ".join(problems))

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(datapath=self.datapath, loss_mechanism=self.loss_mechanism,
                 afxdp=self.afxdp)
        return d


def _ovs_state() -> tuple[bool, list[str], bool]:
    """OVS running, its datapath types, and whether it offers AF_XDP ports."""
    running = ovs_running()
    if not running:
        return False, [], False
    return True, ovs_datapath_types(), AFXDP_PORT in ovs_iface_types()


_DETECTED: list[Capabilities] = []


def detected() -> Capabilities:
    """What a command that runs a network needs to know, once per process: it asks at
    several steps (its checks before it starts, a calibration's network, the run's network),
    and the machine does not change in between. Mininet, mpi4py and the controller are
    found installed, not imported in fresh interpreters (`detect(imports=False)`): a
    package that is there but broken shows when the run starts it (its traceback, the
    controller's log). `mcastlab doctor` probes afresh, imports included."""
    if not _DETECTED:
        _DETECTED.append(detect(imports=False))
    return _DETECTED[0]


def _installed(*modules: str) -> bool:
    """Every module is installed (found, not imported: a submodule's package is)."""
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):
        return False


def detect(imports: bool = True) -> Capabilities:
    """Probe the machine. The probes are separate processes that wait on one another for
    nothing (three of them import a package in a fresh interpreter), so they run at once:
    the answer is that of running them one by one, in about half the time. With `imports`
    False those three only look the packages up (see `detected`)."""
    root = os.geteuid() == 0
    mpiexec = (VENV_BIN / "mpiexec").exists()
    probes: dict[str, Callable[[], Any]] = {
        "ovs": _ovs_state,
        "kernel_ovs_module": kernel_ovs_module,
        "sch_htb": lambda: root and _probe_netns(
            "tc qdisc add dev lo root handle 1: htb default 1 && "
            "tc class add dev lo parent 1: classid 1:1 htb rate 10mbit"),
        "sch_netem": lambda: root and _probe_netns("tc qdisc add dev lo root netem delay 1ms"),
        "netfilter_statistic": lambda: root and _probe_netns(
            "iptables -w -A INPUT -m statistic --mode random --probability 0.5 -j DROP"),
        "mininet": lambda: ok(code("import mininet.net")) if imports
        else _installed("mininet.net"),
        "mpi": lambda: mpiexec and (ok(code("import mpi4py")) if imports
                                    else _installed("mpi4py")),
        # A subprocess: importing os-ken monkey-patches this process with eventlet.
        "controller_importable": lambda: ok(code("import controller.app"),
                                            timeout=30) if imports
        else _installed("controller.app") and (_installed("os_ken") or _installed("ryu")),
        "ingress_shaping": lambda: root and _probe_netns(
            "ip link add ifb0 type ifb && ip link set ifb0 up && "
            "tc qdisc add dev lo handle ffff: ingress && "
            "tc filter add dev lo parent ffff: protocol all u32 match u32 0 0 "
            "action mirred egress redirect dev ifb0"),
    }
    with ThreadPoolExecutor(max_workers=len(probes)) as pool:
        futures = {name: pool.submit(probe) for name, probe in probes.items()}
        found = {name: f.result() for name, f in futures.items()}
    running, datapaths, afxdp_ports = found.pop("ovs")
    return Capabilities(
        root=root,
        ovs_installed=shutil.which("ovs-vsctl") is not None,
        ovs_running=running,
        ovs_datapaths=datapaths,
        tools={t: shutil.which(t) is not None
               for t in ("ethtool", "tc", "iptables", "nsenter", "unshare", "mnexec",
                         "iperf3", "tcpdump", "ovs-ofctl")},
        xdp_sockets=root and xdp_sockets(),
        ovs_afxdp=afxdp_ports,
        **found,
    )


def report(c: Capabilities) -> str:
    """The doctor's text: what the machine offers, then what the testbed will use."""
    def yn(v: bool) -> str:
        return "yes" if v else "NO"

    lines = [
        "This machine offers:",
        f"  root                        {yn(c.root)}",
        f"  Open vSwitch installed      {yn(c.ovs_installed)}",
        f"  Open vSwitch running        {yn(c.ovs_running)}"
        + (f"  (datapaths: {', '.join(c.ovs_datapaths)})" if c.ovs_datapaths else ""),
        f"  kernel openvswitch module   {yn(c.kernel_ovs_module)}",
        f"  sch_htb (bandwidth)         {yn(c.sch_htb)}",
        f"  sch_netem (delay, loss)     {yn(c.sch_netem)}",
        f"  netfilter statistic match   {yn(c.netfilter_statistic)}",
        f"  XDP sockets (AF_XDP)        {yn(c.xdp_sockets)}",
        f"  {'OVS ' + AFXDP_PORT + ' ports':<28}{yn(c.ovs_afxdp)}",
        f"  IFB + ingress redirect      {yn(c.ingress_shaping)}",
        f"  Mininet                     {yn(c.mininet)}",
        f"  MPI (mpich + mpi4py)        {yn(c.mpi)}",
        f"  controller importable       {yn(c.controller_importable)}",
        "  tools                       "
        + " ".join(f"{t}{'' if v else '(missing)'}" for t, v in c.tools.items()),
        "The testbed will use:",
        f"  OVS datapath                {c.datapath}"
        + ("" if c.datapath == "kernel" else " (userspace; checksum offload off on hosts)"),
        "  switch ports to hosts       "
        + (f"{AFXDP_PORT} (AF_XDP; switch-to-host direction shaped on the host's "
           "ingress through an IFB)" if c.afxdp else
           "default (AF_PACKET)" + ("" if c.datapath == "kernel" else
                                    "; AF_XDP needs XDP sockets, OVS's afxdp ports and IFB")),
        f"  link bandwidth              {'HTB' if c.sch_htb else 'unavailable'}",
        f"  link delay                  {'netem' if c.sch_netem else 'unavailable (no netem)'}",
        "  packet loss                 "
        + {"netem": "netem", "netfilter": "netfilter statistic on host links",
           None: "unavailable"}[c.loss_mechanism],
    ]
    problems = c.problems()
    lines.append("Status: " + ("ready" if not problems else "NOT READY"))
    lines += [f"  - {p}" for p in problems]
    return "\n".join(lines)
