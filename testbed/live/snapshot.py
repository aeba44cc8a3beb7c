"""The live view's snapshot: what the page shows, as one JSON-able dict (pure: no network,
no files). The publisher (publish.py) hands it what it read from the controller; the server
(server.py) and the drawing (svg.py) read it. Its shape (``VERSION``):

- ``topology``: ``name``, ``hosts`` (name, id, ip), ``switches`` (names), ``links`` (``a``,
  ``b``, ``mbit``: the link's rate, None for unlimited);
- ``groups``: group -> ``members`` (host names), ``range`` (contiguous mode's range
  address: the hosts of its node range) and ``sources``: source host -> ``kind``
  (``tree``, or the refusal's kind with its ``reason``) and ``links``: the tree's directed
  links ``[from, to]``, the source's own link first;
- ``failed``: the failed hosts' names;
- ``loss``: ``[a, b, fraction, scope]`` per link that drops packets: set at run time (scope
  ``all`` or ``multicast``: what is dropped, each way) or by the topology (scope ``link``);
- ``load``: ``[from, to, Mbit/s]`` per direction of a link that carried anything since the
  last reading (from the switches' port counters);
- ``bcast``: the last broadcast measured at the prompt, or None: ``algorithm``, ``size``
  (bytes), ``hosts`` (rank by rank, the root first), ``t_mcast_s`` (median),
  ``predicted_s``, ``done_s`` and ``return_s`` (per rank: the median time from the root's
  start until it held the message, and until its broadcast returned), ``links``: ``[from,
  to, bytes]`` that one broadcast put on each link it used (counted on the switch ports;
  the prompt does not count them), ``tree``: the tree it used (bcast_tree.py), or None:
  ``kind``, ``note`` (what the tree is) and ``sends``: ``from`` and ``to`` (the parent's
  and the child's host), ``order`` (the parent's 1st, 2nd ... send, None where not known),
  ``path`` (its route over the topology, node names);
- ``run``: a spec run's progress (``mcastlab experiment --web``), or None (the prompt):
  ``spec``, ``done`` and ``total`` points, ``status`` (the run's last progress line: which
  condition runs, a probe, between networks), ``network`` (whether one is up), ``point``
  (the point being measured: ``algorithm``, ``size``, ``hosts``, ``condition``, and
  ``traffic``: ``name``, ``pattern``, ``load`` and ``flows`` where background traffic
  is set: ``from``, ``to`` (hosts), ``share`` (of the source's messages), ``path`` (the
  route), as its generators are configured, testbed.conditions.traffic.flows) and
  ``records`` (each point written: ``key``, ``algorithm``, ``size``, ``hosts``,
  ``status``, ``flags``: its fidelity flags, [] where none were raised) and ``probes``
  (the operating point's probe, each rung it measured: ``mbit``, ``points``: each probed
  point said as the run's lines say it, ``verdict``: None while the rung runs, then
  ``keeps up`` or ``no: `` and why each point fell short);
- ``seq`` (one more per snapshot), ``time`` (Unix seconds), ``error`` (why a reading
  failed, or None)."""

from __future__ import annotations

from typing import Any

from controller.ranges import parse_range_group
from topologies.model import Topology

VERSION = 1


def topology_part(topo: Topology) -> dict[str, Any]:
    """The topology as the page draws it (fixed for a run)."""
    return {"name": topo.name,
            "hosts": [{"name": h.name, "id": h.node_id, "ip": h.ip} for h in topo.hosts],
            "switches": [sw.name for sw in topo.switches],
            "links": [{"a": lk.node1, "b": lk.node2, "mbit": lk.params.bw_mbit}
                      for lk in topo.links]}


def groups_part(topo: Topology, groups: dict[str, Any], ranges: bool = False
                ) -> dict[str, Any]:
    """The controller's /groups (members by host name, trees by switch and port) in the
    page's terms: member names, and each source's tree as directed links between nodes.
    `ranges` (contiguous mode): a range address's group names its node range (``range``:
    the hosts lo..hi, which no join lists)."""
    by_ip = {h.ip: h.name for h in topo.hosts}
    out: dict[str, Any] = {}
    for g, info in sorted(groups.items()):
        span = parse_range_group(g) if ranges else None
        sources: dict[str, Any] = {}
        for src, d in sorted(info.get("sources", {}).items()):
            entry: dict[str, Any] = {"kind": d.get("kind", "?")}
            name = by_ip.get(src, src)
            if d.get("kind") == "tree":
                links = sorted([sw, topo.neighbour(sw, int(p))]
                               for sw, ports in d.get("tree", {}).items() for p in ports)
                if topo.is_host(name):  # the source's own link, which the tree starts from
                    links.insert(0, [name, topo.host_attachment(name)[0]])
                entry["links"] = links
            else:
                entry["reason"] = d.get("reason", "")
            sources[name] = entry
        out[g] = {"members": sorted(info.get("members", {})), "sources": sources}
        if span is not None and span[1] < len(topo.hosts):
            out[g]["range"] = [topo.host(i).name for i in range(span[0], span[1] + 1)]
    return out


def link_load(before: dict[str, Any], after: dict[str, Any], seconds: float
              ) -> list[list[Any]]:
    """Mbit/s each way of every link a switch port counts, between two /ports readings
    `seconds` apart: a port's tx is its switch to the neighbour, its rx the neighbour to the
    switch (a link between two switches is counted by both ends' tx)."""
    if seconds <= 0:
        return []
    rates: dict[tuple[str, str], float] = {}
    for sw, ports in after.items():
        for port, now in ports.items():
            then = before.get(sw, {}).get(port)
            peer = now.get("neighbour", "?")
            if then is None or peer == "?":
                continue
            for key, frm, to in (("tx_bytes", sw, peer), ("rx_bytes", peer, sw)):
                delta = now.get(key, 0) - then.get(key, 0)
                if delta > 0:
                    rate = delta * 8 / seconds / 1e6
                    rates[(frm, to)] = max(rates.get((frm, to), 0.0), rate)
    return [[a, b, round(r, 3)] for (a, b), r in sorted(rates.items())]


Loss = dict[tuple[str, str], tuple[float, str]]  # link -> (fraction, scope): LossControl's


def loss_part(topo: Topology, loss: Loss) -> list[list[Any]]:
    """The topology's own lossy links, then the loss set at run time."""
    fixed = [[min(lk.node1, lk.node2), max(lk.node1, lk.node2), lk.params.loss_pct / 100,
              "link"] for lk in topo.links if lk.params.loss_pct]
    return sorted(fixed) + [[a, b, f, scope] for (a, b), (f, scope) in sorted(loss.items())]


def snapshot(topo: Topology, groups: dict[str, Any], failed: list[int],
             load: list[list[Any]], seq: int, now: float, error: str | None = None,
             loss: Loss | None = None, ranges: bool = False,
             bcast: dict[str, Any] | None = None, run: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """One snapshot (the module docstring says its shape); `ranges`: contiguous mode."""
    names = {h.node_id: h.name for h in topo.hosts}
    return {"version": VERSION, "seq": seq, "time": now, "error": error,
            "topology": topology_part(topo), "groups": groups_part(topo, groups, ranges),
            "failed": sorted(names.get(n, str(n)) for n in failed), "load": load,
            "loss": loss_part(topo, loss or {}), "bcast": bcast,
            "run": run}


def bcast_part(algorithm: str, size: int, hosts: list[str], t_mcast_s: float,
               predicted_s: float | None, done_s: list[float], return_s: list[float],
               link_bytes: dict[str, int] | None = None,
               tree: dict[str, Any] | None = None) -> dict[str, Any]:
    """A broadcast measured at the prompt, as the snapshot's ``bcast``; `link_bytes`: the
    bytes one broadcast put on each directed link ("a>b", testbed.measure.bcast); `tree`:
    the tree it used (bcast_tree.bcast_tree)."""
    links = sorted([*k.split(">", 1), v] for k, v in (link_bytes or {}).items() if ">" in k)
    return {"algorithm": algorithm, "size": size, "hosts": hosts, "t_mcast_s": t_mcast_s,
            "predicted_s": predicted_s, "done_s": done_s, "return_s": return_s,
            "links": links, "tree": tree}


def flows_part(topo: Topology, pairs: list[tuple[str, str, float]]) -> list[dict[str, Any]]:
    """Background traffic's pairs of hosts (source, destination, share of the source's
    messages: testbed.conditions.traffic.flows), each with its route over the topology."""
    return [{"from": a, "to": b, "share": round(share, 4), "path": topo.path(a, b)}
            for a, b, share in pairs]


def point_part(config: dict[str, Any], condition: str,
               flows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A spec run's point as the snapshot's ``run.point``: from its configuration
    (testbed.experiments.run.point_config) and its condition said as the run says it;
    `flows`: its background traffic's (flows_part)."""
    traffic = None
    if config.get("traffic") not in (None, "none"):
        traffic = {"name": config["traffic"], "pattern": config.get("pattern"),
                   "load": config.get("load"), "flows": flows or []}
    return {"algorithm": config["algorithm"], "size": config["size"],
            "hosts": config["hosts"], "condition": condition, "traffic": traffic}


def record_part(rec: dict[str, Any]) -> dict[str, Any]:
    """A point's record as the snapshot's ``run.records`` lists it: its fidelity flags, []
    where none were raised (or the point has no fidelity verdict: a failed one)."""
    config = rec.get("config", {})
    return {"key": rec.get("key"), "algorithm": config.get("algorithm"),
            "size": config.get("size"), "hosts": config.get("hosts"),
            "status": rec.get("status"),
            "flags": list((rec.get("fidelity") or {}).get("flags") or [])}


def run_part(spec: str, total: int, done: int, status: str, network: bool,
             point: dict[str, Any] | None, records: list[dict[str, Any]],
             probes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A spec run's progress, as the snapshot's ``run``."""
    return {"spec": spec, "done": done, "total": total, "status": status,
            "network": network, "point": point, "records": records,
            "probes": probes or []}
