"""What the emulated switches are: a choice table, as Mininet's `bin/mn` drives `--switch`
from a dictionary of switch classes. One word names a kind everywhere: `--switch` on every
command that builds a network, `network.switching` in specs, `Emulation(switch=...)`.

- controller: Open vSwitch bridges programmed by the project's controller (the default);
- ovs-snooping: standalone OVS bridges doing their own MAC learning and IGMP snooping, no
  controller (the anchor the benchmarks compare the controller with);
- flooding: standalone OVS bridges without snooping: every multicast frame to every port
  (unicast still switched);
- hub: every switch a hub, one shared medium flooding every frame (Chen2000's hub;
  testbed.emulation.hub);
- linux-bridge: Linux kernel bridges doing their own IGMP snooping, one of them the querier
  (testbed.emulation.hosts.KernelBridge).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class SwitchKind:
    name: str
    help: str
    controller: bool = False     # the project's controller programs them
    kernel: bool = False         # Linux kernel bridges (else Open vSwitch)
    snooping: bool = False       # OVS's own IGMP snooping
    hub: bool = False            # one shared medium per switch
    one_machine: bool = False    # cannot span servers

    @property
    def standalone(self) -> bool:
        """No controller: the bridges forward on their own (loop-free topologies only)."""
        return not self.controller

    @property
    def fail_mode(self) -> str:
        """Open vSwitch's fail mode: secure (only the controller's flows, or the hub's) or
        standalone (a learning switch)."""
        return "secure" if self.controller or self.hub else "standalone"


SWITCHES: dict[str, SwitchKind] = {k.name: k for k in (
    SwitchKind("controller", "Open vSwitch programmed by the project's controller (default)",
               controller=True),
    SwitchKind("ovs-snooping", "standalone Open vSwitch with its own IGMP snooping",
               snooping=True),
    SwitchKind("flooding", "standalone Open vSwitch flooding every multicast frame"),
    SwitchKind("hub", "every switch a hub: one shared medium floods every frame",
               hub=True, one_machine=True),
    SwitchKind("linux-bridge", "Linux kernel bridges with their own IGMP snooping",
               kernel=True, one_machine=True),
)}
DEFAULT = "controller"


def switch_kind(name: str | SwitchKind) -> SwitchKind:
    """The kind a word names (UsageError naming the choices for any other word)."""
    if isinstance(name, SwitchKind):
        return name
    try:
        return SWITCHES[name]
    except KeyError:
        raise UsageError(f"unknown switch kind {name!r}; choose from "
                         f"{', '.join(SWITCHES)}") from None


def choices_help() -> str:
    """One line per kind, for --switch's help."""
    return "; ".join(f"{k.name}: {k.help}" for k in SWITCHES.values())
