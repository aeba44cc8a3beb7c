"""testbed.emulation.port_plan without a network: the port kind asked for (argument, else
$MCASTLAB_PORTS, else auto) checked once, and AF_XDP only where the machine has it."""

import pytest

from testbed.emulation.environment import AFXDP_PORT
from testbed.emulation.port_plan import PortPlan
from testbed.emulation.ports import LINUX_BRIDGE_PORT, PORTS_ENV, host_links
from testbed.emulation.servers import OneMachine
from testbed.errors import UsageError
from topologies import parse_spec

from .machines import caps


def plan(asked: str | None, *, kernel: bool = False, afxdp: bool = True) -> PortPlan:
    machine = caps(kernel_ovs_module=False, xdp_sockets=afxdp, ovs_afxdp=afxdp,
                   ingress_shaping=True)
    return PortPlan(asked, kernel_bridges=kernel, caps=machine, spread=OneMachine())


def test_the_kind_and_the_af_xdp_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PORTS_ENV, raising=False)
    topo = parse_spec("star:hosts=3")
    every = {end for end, _lk in host_links(topo).values()}
    assert plan(None).kind == AFXDP_PORT and plan(None).xdp_intfs(topo) == every
    assert plan(None, afxdp=False).kind == "af_packet"
    assert plan(None, afxdp=False).xdp_intfs(topo) == set()
    assert plan("af_packet").xdp_intfs(topo) == set()
    assert plan(None, kernel=True).kind == LINUX_BRIDGE_PORT
    monkeypatch.setenv(PORTS_ENV, "af_packet")
    assert plan(None).asked == "af_packet" and plan("afxdp").asked == "afxdp"


@pytest.mark.parametrize(("asked", "env", "kernel", "message"), [
    ("xdp", None, False, r"'xdp' \(from --ports\) is not one of auto, afxdp, af_packet"),
    (None, "fast", False, rf"'fast' \(from {PORTS_ENV}\) is not one of"),
    ("afxdp", None, True, "Linux bridges have none"),
])
def test_a_wrong_kind_is_refused(monkeypatch: pytest.MonkeyPatch, asked: str | None,
                                 env: str | None, kernel: bool, message: str) -> None:
    if env is None:
        monkeypatch.delenv(PORTS_ENV, raising=False)
    else:
        monkeypatch.setenv(PORTS_ENV, env)
    with pytest.raises(UsageError, match=message):
        plan(asked, kernel=kernel)
