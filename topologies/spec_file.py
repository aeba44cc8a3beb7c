"""Hand-written topology files in TOML or JSON (same keys), for networks no builder makes.

    name = "two-switches"      # optional, default: the file name without extension
    routing = "shortest"       # optional; "shortest" is the only rule files support

    [defaults]                 # optional link parameters for every link
    bw = 100                   # Mbit/s (JSON null = unlimited)
    delay_ms = 0
    loss = 0                   # a fraction of the packets, or "5%" (topologies.loss); the
                               # old loss_pct (percent) is still read
    max_queue = 1000           # packets; absent = Mininet's default

    [[switches]]
    name = "s1"                # s<positive integer>; the number is the datapath id

    [[hosts]]
    name = "h0"                # h<integer>; the ids must be exactly 0..N-1 (the MPI ranks)

    [[links]]
    a = "h0"
    b = "s1"
    b_port = 1                 # optional (also a_port): default is the switch's lowest free
                               # port; a host's end is always port 0
    bw = 10                    # optional per-link override, likewise delay_ms, loss,
                               # max_queue

Every mistake is a TopologyError naming the file and the offending entry; links are counted
from 1 in file order. A JSON file written by Topology.save (it carries a "format" key) is
accepted too and loaded as saved.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from topologies.errors import TopologyError
from topologies.loss import loss_fraction
from topologies.model import FORMAT, Host, Link, LinkParams, Switch, Topology

SUFFIXES = (".toml", ".json")
TOP_KEYS = ("name", "routing", "defaults", "switches", "hosts", "links")
PARAM_KEYS = {"bw": "bw_mbit", "delay_ms": "delay_ms", "loss": "loss_pct",
              "loss_pct": "loss_pct", "max_queue": "max_queue"}
LOSS_KEYS = {"loss", "loss_pct"}  # loss_pct: the old spelling, in percent
LINK_KEYS = ("a", "b", "a_port", "b_port", *PARAM_KEYS)
_HOST_NAME = re.compile(r"h(0|[1-9][0-9]*)")
_SWITCH_NAME = re.compile(r"s[1-9][0-9]*")


def is_topology_file(spec: str) -> bool:
    return spec.lower().endswith(SUFFIXES)


def load_topology_file(path: str | os.PathLike[str]) -> Topology:
    path = Path(path)
    data = _read(path)
    if path.suffix.lower() == ".json" and "format" in data:
        if data["format"] != FORMAT:
            raise TopologyError(f"{path}: unknown format {data['format']!r}; expected {FORMAT!r}")
        try:
            return Topology.from_dict(data)
        except TopologyError as err:
            raise TopologyError(f"{path}: {err}") from None
    return _FileReader(path, data).topology()


def _read(path: Path) -> dict[str, Any]:
    if path.suffix.lower() not in SUFFIXES:
        raise TopologyError(f"topology file {path} must end in .toml or .json")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TopologyError(f"topology file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise TopologyError(f"cannot read topology file {path}: {err}") from None
    if path.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise TopologyError(f"{path}: invalid TOML: {err}") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise TopologyError(f"{path}: invalid JSON at line {err.lineno}, column {err.colno}: "
                                f"{err.msg}") from None
    if not isinstance(data, dict):
        raise TopologyError(f"{path}: the top level must be a table/object of keys")
    return data


class _FileReader:
    """Turns the parsed file into a Topology, prefixing every error with the file name."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    def topology(self) -> Topology:
        try:
            return self._build()
        except TopologyError as err:
            raise TopologyError(f"{self.path}: {err}") from None

    def _build(self) -> Topology:
        self._check_keys(self.data, TOP_KEYS, "top-level key")
        name = self.data.get("name", self.path.stem)
        if not isinstance(name, str) or not name:
            raise TopologyError(f"name must be a non-empty string, got {name!r}")
        routing = self.data.get("routing", "shortest")
        if routing != "shortest":
            raise TopologyError(f"unknown routing {routing!r}; topology files support only "
                            "'shortest' (xy and updown need the grid and tree builders)")
        defaults = self._table(self.data.get("defaults", {}), "[defaults]")
        self._check_keys(defaults, tuple(PARAM_KEYS), "key in [defaults]")
        self._link_params(defaults, "[defaults]")

        switches = [Switch(name, int(name[1:]))
                    for name in self._names("switches", _SWITCH_NAME, "s<positive integer>")]
        hosts = [Host(name, int(name[1:])) for name in self._names("hosts", _HOST_NAME, "h<id>")]
        self._check_ids(hosts)
        links = self._links(defaults, {h.name for h in hosts}, {s.name for s in switches})
        return Topology(name=name, shape="file", routing=routing, params={"path": str(self.path)},
                        hosts=hosts, switches=switches, links=links)

    def _table(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise TopologyError(f"{where} must be a table of keys, got {value!r}")
        return value

    def _entries(self, key: str) -> list[dict[str, Any]]:
        entries = self.data.get(key, [])
        if not isinstance(entries, list):
            raise TopologyError(f"{key} must be a list of tables ([[{key}]]), got {entries!r}")
        return [self._table(entry, f"{key} entry {i + 1}") for i, entry in enumerate(entries)]

    def _check_keys(self, table: dict[str, Any], valid: tuple[str, ...], what: str) -> None:
        for key in table:
            if key not in valid:
                raise TopologyError(f"unknown {what} {key!r}; valid keys are {', '.join(valid)}")

    def _names(self, key: str, pattern: re.Pattern[str], form: str) -> list[str]:
        names = []
        for i, entry in enumerate(self._entries(key)):
            where = f"{key} entry {i + 1}"
            self._check_keys(entry, ("name",), f"key in {where}")
            name = entry.get("name")
            if not isinstance(name, str) or not pattern.fullmatch(name):
                raise TopologyError(f"{where} has bad name {name!r}; names there look like {form}")
            if name in names:
                raise TopologyError(f"duplicate node name {name!r} ({where})")
            names.append(name)
        return names

    def _check_ids(self, hosts: list[Host]) -> None:
        ids = {h.node_id for h in hosts}
        for expected in range(len(hosts)):
            if expected not in ids:
                highest = max(ids)
                raise TopologyError(f"host ids must be exactly 0..{len(hosts) - 1}, but "
                                    f"h{expected} is missing (highest is h{highest})")

    def _link_params(self, table: dict[str, Any], where: str) -> dict[str, Any]:
        if table.keys() >= LOSS_KEYS:
            raise TopologyError(f"{where}: give loss (a fraction or \"5%\") or the old "
                                "loss_pct, not both")
        kwargs = {PARAM_KEYS[key]: value for key, value in table.items() if key in PARAM_KEYS}
        try:
            if "loss" in table:
                if not isinstance(table["loss"], int | float | str):
                    raise TopologyError(f"loss: a fraction or \"5%\", got {table['loss']!r}")
                kwargs["loss_pct"] = loss_fraction(table["loss"]) * 100
            LinkParams(**kwargs)
        except TopologyError as err:
            raise TopologyError(f"{where}: {err}") from None
        except ValueError as err:  # loss_fraction's
            raise TopologyError(f"{where}: {err}") from None
        return kwargs

    def _links(self, defaults: dict[str, Any], hosts: set[str],
               switches: set[str]) -> list[Link]:
        entries = self._entries("links")
        ends: list[list[tuple[str, int | None]]] = []
        used: dict[str, set[int]] = {s: set() for s in switches}
        for i, entry in enumerate(entries):
            where = f"link {i + 1}"
            self._check_keys(entry, LINK_KEYS, f"key in {where}")
            pair = []
            for side in ("a", "b"):
                node = entry.get(side)
                if not isinstance(node, str):
                    raise TopologyError(f"{where} needs {side} = a node name, got {node!r}")
                if node not in hosts and node not in switches:
                    raise TopologyError(f"{where} ({entry.get('a')}-{entry.get('b')}) names "
                                        f"unknown node {node!r}")
                port = entry.get(f"{side}_port")
                if port is not None and (isinstance(port, bool) or not isinstance(port, int)):
                    raise TopologyError(f"{where}: {side}_port must be an integer, got {port!r}")
                if node in hosts:
                    port = 0 if port is None else port
                elif port is not None:
                    used[node].add(port)
                pair.append((node, port))
            ends.append(pair)

        links = []
        for i, (entry, pair) in enumerate(zip(entries, ends, strict=True)):
            numbered = []
            for node, port in pair:
                if port is None:  # lowest port no explicit or earlier link claimed
                    port = next(p for p in range(1, len(used[node]) + 2) if p not in used[node])
                    used[node].add(port)
                numbered.append((node, port))
            own = {k: v for k, v in entry.items() if k in PARAM_KEYS}
            base = {k: v for k, v in defaults.items()
                    if not (k in LOSS_KEYS and own.keys() & LOSS_KEYS)}  # a link's own loss
            params = {**base, **own}
            kwargs = self._link_params(params, f"link {i + 1} ({pair[0][0]}-{pair[1][0]})")
            (a, a_port), (b, b_port) = numbered
            links.append(Link(a, a_port, b, b_port, LinkParams(**kwargs)))
        return links
