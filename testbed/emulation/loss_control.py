"""Loss set on a running network: on hosts' links with the netfilter statistic match (in
each host), on switch-to-switch links with an nftables chain on both veth ends' egress
(the run's table, which goes with the run). linkshape writes the rules; this applies them
where the network lies, one server or several."""

from __future__ import annotations

import shutil
from typing import Any

from topologies import HOST_PORT, Topology
from topologies.loss import loss_fraction

from ..errors import CapabilityError, UsageError
from . import linkshape
from .host_shell import run_in_host
from .ports import intf_name
from .wiring import Started, Wiring


class LossControl:
    """The loss settings of one emulation (Emulation.set_loss and set_link_loss), handed
    its facts as values (testbed.emulation.wiring), not the emulation; `run` None: the
    emulation is not started, and only the checks of what was asked run."""

    def __init__(self, wiring: Wiring) -> None:
        self.wiring = wiring
        # the loss set at run time, where it is not 0: a link (its two ends, sorted) -> the
        # fraction dropped each way and of what ("all", "multicast"): the live view shows it
        self.current: dict[tuple[str, str], tuple[float, str]] = {}

    def _set(self, a: str, b: str, pct: float, scope: str = "all") -> None:
        key = (min(a, b), max(a, b))
        if pct:
            self.current[key] = (pct / 100, scope)
        else:
            self.current.pop(key, None)

    def on_hosts(self, topo: Topology, run: Started | None, loss: float | str,
                 hosts: list[str | int] | None = None, scope: str = "all") -> None:
        """From now on drop the fraction `loss` (or "5%": topologies.loss) of the packets
        each way on these hosts' links (default all); 1.0 cuts the hosts off, 0 restores.
        `scope` "multicast" drops only multicast datagrams (see linkshape)."""
        pct = _percent(loss)
        if not self.wiring.caps.netfilter_statistic:
            raise CapabilityError("changing loss at run time needs the netfilter statistic "
                                  "match (xt_statistic), which this kernel lacks")
        chosen = [topo.host(x) for x in hosts] if hosts else topo.hosts
        try:  # every host's commands first: bad input changes nothing
            cmds = {h.name: linkshape.netfilter_set_loss(intf_name(h.name, HOST_PORT), pct,
                                                         scope) for h in chosen}
        except ValueError as e:
            raise UsageError(str(e)) from e
        if run is None:
            raise UsageError("the emulation is not started")
        for name, host_cmds in cmds.items():
            run_in_host(run.host(name), host_cmds, f"setting loss on {name}")
            self._set(name, topo.host_attachment(name)[0], pct, scope)

    @staticmethod
    def switch_links(topo: Topology, node1: str, node2: str) -> list[Any]:
        """The links (topologies.Link) between two switches; UsageError naming what is
        wrong when a name is not a switch or the two are not linked."""
        names = {s.name for s in topo.switches}
        for n in (node1, node2):
            if topo.is_host(n):
                raise UsageError(f"{n} is a host: name a switch-to-switch link by its two "
                                 "switches (a host's link has its own loss setting)")
            if n not in names:
                raise UsageError(f"no switch {n!r} (switches: "
                                 f"{', '.join(s.name for s in topo.switches)})")
        if node1 == node2:
            raise UsageError(f"a link joins two different switches, not {node1} and itself")
        links = [lk for lk in topo.links if {lk.node1, lk.node2} == {node1, node2}]
        if not links:
            near = sorted({nb for nb in topo.ports(node1).values() if nb in names})
            raise UsageError(f"no link between {node1} and {node2} ({node1} links to "
                             f"{', '.join(near) or 'no switch'})")
        return links

    def on_link(self, topo: Topology, run: Started | None, node1: str, node2: str,
                loss: float | str) -> None:
        """From now on drop the fraction `loss` (or "5%") of the frames each way on the link
        between two switches (every link, if there are parallel ones); 1.0 cuts the link,
        0 restores it."""
        links = self.switch_links(topo, node1, node2)
        pct = _percent(loss)
        spread = self.wiring.spread
        if run is None:
            raise UsageError("the emulation is not started")
        if shutil.which("nft") is None:
            raise CapabilityError("loss on a switch-to-switch link needs nft (Debian package "
                                  "nftables; run 'sudo make install')")
        ends = [(n, intf_name(n, p)) for lk in links
                for n, p in ((lk.node1, lk.port1), (lk.node2, lk.port2))]
        for server, here in spread.by_server(ends, lambda e: e[0]).items():
            names = [i for _n, i in here]
            script = linkshape.nft_link_loss(linkshape.nft_table(run.run_id), names, pct)
            res = spread.runners[server].run(["nft", "-f", "-"], input=script,
                                                 check=False)
            if res.returncode != 0:
                msg = (res.stderr or res.stdout).strip().splitlines()
                raise CapabilityError(
                    f"nftables refused the loss chains on {', '.join(names)} (they need the "
                    "netdev family's egress hook and numgen: CONFIG_NF_TABLES_NETDEV, "
                    "CONFIG_NETFILTER_EGRESS, CONFIG_NFT_NUMGEN): "
                    f"{msg[0] if msg else res.returncode}")
        self._set(node1, node2, pct)


def _percent(loss: float | str) -> float:
    """linkshape's rules count in percent; users write fractions (topologies.loss)."""
    try:
        return loss_fraction(loss) * 100
    except ValueError as e:
        raise UsageError(str(e)) from None
