"""testbed.emulation.lane: strict contiguous mode gives every switch a range lane (a veth
loop) with one class per port at that port's rate, picked by the copy's VLAN id, recorded
for teardown and retuned with the links; across servers, without the ingress mirror, or
with ports no VLAN id can name, it is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import lane
from controller.config import ControllerConfig
from testbed.cluster.spread import Spread
from testbed.emulation import lane as emu_lane
from testbed.emulation.environment import Capabilities
from testbed.emulation.network import Emulation
from testbed.errors import CapabilityError, UsageError
from testbed.specs.cluster import LOCAL, from_servers
from topologies import parse_spec

from .machines import caps as all_caps

STRICT = ControllerConfig(mode="contiguous-strict")


def caps(**overrides: object) -> Capabilities:
    """A fully capable machine, with the ingress mirror the range lanes are made with."""
    return all_caps(**{"ingress_shaping": True, **overrides})


# ---- the emulation's side ----------------------------------------------------------------
def test_strict_mode_gives_every_switch_a_shaped_lane_recorded_for_teardown() -> None:
    topo = parse_spec("fattree:k=4,n=2,bw=20")
    emu = Emulation(topo, caps=caps(), controller_config=STRICT)
    assert emu.lanes and not emu.standalone
    intfs = set(emu.network_on(LOCAL)[1])
    assert all(set(emu_lane.lane_intfs(sw.name)) <= intfs for sw in topo.switches)
    cmds, tc = emu_lane.setup(topo, "s1")
    assert cmds[0] == ["ip", "link", "add", "s1-rl0", "type", "veth", "peer", "name", "s1-rl1"]
    assert f"ofport_request={lane.LANE_IN}" in cmds[-1]
    assert f"ofport_request={lane.LANE_OUT}" in cmds[-1]
    assert cmds[1] == ["ip", "link", "add", "s1-rl2", "type", "veth", "peer", "name", "s1-rl3"]
    assert {"s1-rl0", "s1-rl3"} <= set(cmds[-1])
    # OVS sends into rl0; a mirror (a clone no socket owns) at rl1's ingress is queued on rl2
    assert emu_lane.shaped_intf("s1") == "s1-rl2"
    assert "dev s1-rl1 parent ffff:" in tc and "mirred egress mirror dev s1-rl2" in tc
    assert "qdisc add dev s1-rl2 root handle 1: htb\n" in tc
    assert f'bpf bytecode "{emu_lane.CLASSIFIER}"' in tc
    _, unshaped = emu_lane.setup(parse_spec("star:hosts=4,bw=none"), "s1")
    assert "htb" not in unshaped and "bpf" not in unshaped and "mirror dev s1-rl2" in unshaped
    plain = Emulation(topo, caps=caps(), controller_config=ControllerConfig(mode="contiguous"))
    assert not plain.lanes
    assert not intfs - set(plain.network_on(LOCAL)[1]) - {
        i for sw in topo.switches for i in emu_lane.lane_intfs(sw.name)}


def test_strict_mode_across_servers_is_refused() -> None:
    topo = parse_spec("star:hosts=4")
    with pytest.raises(UsageError, match="range lanes"):
        Emulation(topo, caps=caps(), controller_config=STRICT,
                  cluster=Spread(topo, from_servers("node2")))


def test_strict_mode_without_the_ingress_mirror_is_refused() -> None:
    with pytest.raises(CapabilityError, match="act_mirred"):
        Emulation(parse_spec("star:hosts=4"), caps=caps(ingress_shaping=False),
                  controller_config=STRICT)


def _classes(tc: str) -> dict[str, str]:
    """classid -> rate of every lane class in a `tc -batch`."""
    return {w[w.index("classid") + 1]: w[w.index("rate") + 1]
            for line in tc.splitlines() if line.startswith("class ") and (w := line.split())}


def test_a_class_per_port_at_its_links_rate_named_by_the_ports_tag() -> None:
    topo = parse_spec("fattree:k=4,n=2,bw=20,core_bw=50")
    _, tc = emu_lane.setup(topo, "s1")  # hosts on ports 1-4, spines on 5-8
    assert _classes(tc) == {**{f"1:{p}": "20mbit" for p in (1, 2, 3, 4)},
                            **{f"1:{p}": "50mbit" for p in (5, 6, 7, 8)}}
    assert _classes(emu_lane.setup(topo, "s5")[1]) == {f"1:{p}": "50mbit" for p in (1, 2, 3, 4)}
    # tc reads a minor in hex: port 10's tag is 10, its class 1:a
    star = parse_spec("star:hosts=16,bw=20")
    assert set(_classes(emu_lane.setup(star, "s1")[1])) == {
        f"1:{lane.lane_tag(p):x}" for p in range(1, 17)}
    assert emu_lane.port_rates(topo, "s1") == {**dict.fromkeys((1, 2, 3, 4), 20.0),
                                               **dict.fromkeys((5, 6, 7, 8), 50.0)}
    # only shaped ports get a class; the others pass unshaped
    mixed = parse_spec("fattree:k=4,n=2,bw=20,core_bw=inf")
    assert set(_classes(emu_lane.setup(mixed, "s1")[1])) == {"1:1", "1:2", "1:3", "1:4"}


def test_retune_changes_every_ports_class() -> None:
    topo = parse_spec("fattree:k=4,n=2,bw=20,core_bw=50")
    change = emu_lane.classes(topo.scaled(0.5), "s1", "change")
    assert change.count("class change dev s1-rl2 ") == 8
    assert _classes(change) == {**{f"1:{p}": "10mbit" for p in (1, 2, 3, 4)},
                                **{f"1:{p}": "25mbit" for p in (5, 6, 7, 8)}}


def _run_classifier(bytecode: str, vlan_tci: int) -> int:
    """What tc's classic-BPF bytecode returns for a frame whose VLAN tag (held beside it,
    as the kernel keeps a received tag) is `vlan_tci`: the four opcodes it may use."""
    count, *insns = bytecode.split(",")
    assert int(count) == len(insns)
    a = 0
    for insn in insns:
        code, _jt, _jf, k = map(int, insn.split())
        if code == 0x20:  # ld [k], here only the ancillary VLAN tag (-0x1000 + 44)
            assert k == (1 << 32) - 0x1000 + 44
            a = vlan_tci
        elif code == 0x54:  # and #k
            a &= k
        elif code == 0x44:  # or #k
            a |= k
        elif code == 0x16:  # ret a
            return a
        else:
            raise AssertionError(f"opcode {code:#x}")
    raise AssertionError("no return")


@pytest.mark.parametrize("port", [1, 2, 8, 10, 16, 4094])
def test_the_classifier_sends_a_tagged_copy_to_its_ports_class(port: int) -> None:
    tag = lane.lane_tag(port)
    for pcp in (0, 5):  # the priority bits never change the class
        assert _run_classifier(emu_lane.CLASSIFIER, pcp << 13 | tag) == 0x10000 | port


def test_ports_no_vlan_id_can_name_are_refused(tmp_path: Path) -> None:
    spec = tmp_path / "far.toml"
    spec.write_text('[[switches]]\nname = "s1"\n[[hosts]]\nname = "h0"\n[[hosts]]\n'
                    'name = "h1"\n[[links]]\na = "h0"\nb = "s1"\n[[links]]\na = "h1"\n'
                    'b = "s1"\nb_port = 4095\n')
    with pytest.raises(UsageError, match="s1: port 4095: .* VLAN id in 1..4094"):
        Emulation(parse_spec(str(spec)), caps=caps(), controller_config=STRICT)
