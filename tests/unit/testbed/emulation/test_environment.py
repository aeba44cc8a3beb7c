"""testbed.emulation.environment: what the testbed makes of a machine's capabilities (no
probing): the problems it names, the report, and the choices derived from them."""

import dataclasses

import pytest

from testbed.emulation.environment import Capabilities, report
from testbed.errors import CapabilityError

REQUIRED_TOOLS = ("ethtool", "tc", "nsenter", "unshare", "mnexec")
OPTIONAL_TOOLS = ("iptables", "iperf3", "tcpdump", "ovs-ofctl")


def caps(**overrides: object) -> Capabilities:
    """A machine that offers everything, with the given fields changed."""
    base = Capabilities(
        root=True, ovs_installed=True, ovs_running=True, ovs_datapaths=["netdev", "system"],
        kernel_ovs_module=True, sch_htb=True, sch_netem=True, netfilter_statistic=True,
        mininet=True, mpi=True, controller_importable=True,
        tools={t: True for t in REQUIRED_TOOLS + OPTIONAL_TOOLS})
    return dataclasses.replace(base, **overrides)


def test_capable_machine_has_no_problems() -> None:
    c = caps()
    assert c.problems() == []
    c.require()
    text = report(c)
    assert "Status: ready" in text
    assert "NOT READY" not in text


def test_not_root() -> None:
    problems = caps(root=False).problems()
    assert len(problems) == 1
    assert problems[0].startswith("not root")


def test_not_root_hides_the_htb_probe_result() -> None:
    # Kernel features are only probed as root, so without root sch_htb=False means "unknown".
    assert caps(root=False, sch_htb=False).problems() == caps(root=False).problems()
    assert any("sch_htb" in p for p in caps(sch_htb=False).problems())


def test_ovs_not_running() -> None:
    problems = caps(ovs_running=False, ovs_datapaths=[]).problems()
    assert problems == ["Open vSwitch is not running (run 'sudo make install', which starts it)"]


def test_ovs_not_installed_is_reported_once() -> None:
    problems = caps(ovs_installed=False, ovs_running=False, ovs_datapaths=[]).problems()
    assert len(problems) == 1
    assert "not installed" in problems[0]


@pytest.mark.parametrize("tool", REQUIRED_TOOLS)
def test_missing_required_tool(tool: str) -> None:
    c = caps()
    c.tools[tool] = False
    assert c.problems() == [f"command '{tool}' not found (run 'sudo make install')"]
    del c.tools[tool]
    assert c.problems() == [f"command '{tool}' not found (run 'sudo make install')"]


@pytest.mark.parametrize("tool", OPTIONAL_TOOLS)
def test_missing_optional_tool_is_no_problem(tool: str) -> None:
    c = caps()
    c.tools[tool] = False
    assert c.problems() == []
    assert f"{tool}(missing)" in report(c)


def test_empty_tool_table_lists_every_required_tool() -> None:
    problems = caps(tools={}).problems()
    assert [p.split("'")[1] for p in problems] == list(REQUIRED_TOOLS)


@pytest.mark.parametrize(("field", "word"), [("mininet", "Mininet"), ("mpi", "MPI"),
                                             ("controller_importable", "controller")])
def test_missing_software(field: str, word: str) -> None:
    problems = caps(**{field: False}).problems()
    assert len(problems) == 1 and word in problems[0]


@pytest.mark.parametrize(("module", "datapaths", "expected"), [
    (True, ["netdev", "system"], "kernel"),
    (True, ["system"], "kernel"),
    (True, ["netdev"], "user"),
    (True, [], "user"),
    (False, ["netdev", "system"], "user"),
    (False, ["system"], "user"),
])
def test_datapath(module: bool, datapaths: list[str], expected: str) -> None:
    assert caps(kernel_ovs_module=module, ovs_datapaths=datapaths).datapath == expected


def test_userspace_datapath_alone_is_fine() -> None:
    c = caps(kernel_ovs_module=False, ovs_datapaths=["netdev"])
    assert c.datapath == "user"
    assert c.problems() == []
    assert "userspace" in report(c)


def test_no_usable_datapath() -> None:
    problems = caps(kernel_ovs_module=False, ovs_datapaths=["system"]).problems()
    assert len(problems) == 1 and "no usable OVS datapath" in problems[0]


@pytest.mark.parametrize(("netem", "netfilter", "mechanism", "text"), [
    (True, True, "netem", "packet loss                 netem"),
    (True, False, "netem", "packet loss                 netem"),
    (False, True, "netfilter", "netfilter statistic on host links"),
    (False, False, None, "packet loss                 unavailable"),
])
def test_loss_mechanism(netem: bool, netfilter: bool, mechanism: str | None, text: str) -> None:
    c = caps(sch_netem=netem, netfilter_statistic=netfilter)
    assert c.loss_mechanism == mechanism
    assert text in report(c)
    # Neither is required: loss is refused per link by linkshape.check when asked for.
    assert c.problems() == []


def test_report_lists_each_problem_when_not_ready() -> None:
    c = caps(root=False, ovs_running=False, ovs_datapaths=[], mpi=False)
    text = report(c)
    assert "Status: NOT READY" in text
    problems = c.problems()
    assert len(problems) == 3
    for p in problems:
        assert f"  - {p}" in text.splitlines()
    assert text.splitlines()[-4] == "Status: NOT READY"


def test_report_shows_what_the_machine_offers() -> None:
    text = report(caps(sch_netem=False, ovs_datapaths=["system"]))
    assert "sch_netem (delay, loss)     NO" in text
    assert "sch_htb (bandwidth)         yes" in text
    assert "(datapaths: system)" in text
    assert "link delay                  unavailable (no netem)" in text
    assert "OVS datapath                kernel" in text


def test_require_raises_with_every_problem() -> None:
    c = caps(root=False, mininet=False)
    with pytest.raises(CapabilityError) as err:
        c.require()
    for p in c.problems():
        assert p in str(err.value)
    assert str(err.value).startswith("cannot start the testbed: ")


def test_to_dict_adds_the_derived_choices() -> None:
    d = caps(kernel_ovs_module=False, sch_netem=False).to_dict()
    assert d["datapath"] == "user"
    assert d["loss_mechanism"] == "netfilter"
    assert d["root"] is True and d["tools"]["tc"] is True
