"""The interactive network (`mcastlab net`): Mininet's CLI with commands in this project's
terms: groups and members, what a send reaches, the controller's trees, a measured broadcast
per rank, loss on host and switch links, failed nodes, packet capture. Every command prints
one `*** error: ...` line on bad input and the prompt stays; leaving the CLI tears the
network down (the Emulation's context)."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import select
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mininet.cli import CLI
from mininet.log import output, setLogLevel

from collectives.call import BcastCall
from topologies import HOST_PORT
from topologies.loss import loss_fraction

from ..emulation.controller_proc import api_get, wait_members
from ..emulation.group_probe import Member, send_counted
from ..emulation.network import Emulation
from ..emulation.ports import intf_name
from ..emulation.shell import stop_processes
from ..errors import McastlabError, UsageError
from ..live.bcast_tree import bcast_tree
from ..live.publish import picture
from ..live.snapshot import bcast_part
from ..measure.bcast import ranked_call, run_bcast
from ..measure.bcast_model import uses_params
from ..measure.options import RunOptions
from ..measure.params import model_params
from ..results import text_table
from ..safepath import open_output, output_file, write_file
from .lines import bcast_lines, group_lines

BCAST_ITERS = 5  # measured broadcasts per `bcast` (after programs.bcast_bench's warm-up)
BCAST_TIMEOUT = 300.0
FOLLOW_TIMEOUT = 30.0  # s: a join or leave the controller has not followed by then
BCAST_WAIT = "sleep"  # ranks nap while they wait: a lab's 4 to 8 ranks share 2 cores


def open_prompt(emu: Emulation, script: Path | None = None,
                after: Callable[[dict[str, Any]], object] | None = None) -> None:
    """The prompt on a network that is up, until 'exit' (or the end of `script`'s commands).
    The labs are handed this (testbed.labs.runner.open_lab): they stand below the CLI.
    `after` is called after every command with what the prompt knows (``bcast``: its last
    broadcast, testbed.live.snapshot.bcast_part): the live view publishes it."""
    setLogLevel("output")  # the prompt's own output; Mininet's chatter stays off
    McastCLI(emu, after=after, script=str(script) if script else None)


class McastCLI(CLI):
    """Mininet's prompt plus: join, leave, wait, send, groups, tree, picture, bcast, loss,
    fail, restore, capture."""

    prompt = "mcastlab> "

    def __init__(self, emu: Emulation, after: Callable[[dict[str, Any]], object] | None = None,
                 **kwargs: Any) -> None:
        self.emu = emu
        self.after = after
        self.known: dict[str, Any] = {"bcast": None}  # what `after` is handed
        self.members: dict[tuple[str, str], Member] = {}
        self.captures: dict[str, tuple[subprocess.Popen, Path]] = {}
        self.params: dict[int, dict[str, Any]] = {}  # measured t_hold/t_end by message size
        self.dir = emu.run_dir / "net"
        self.dir.mkdir(parents=True, exist_ok=True)
        try:
            super().__init__(emu.net, **kwargs)
        finally:
            self.close()

    # ------------------------------------------------------------------ plumbing
    def onecmd(self, line: str) -> bool:
        try:
            return super().onecmd(line)
        except (McastlabError, ValueError) as exc:
            output(f"*** error: {exc}\n")
            return False
        except Exception as exc:  # the prompt survives a failed command; the run is torn
            output(f"*** error: {type(exc).__name__}: {exc}\n")  # down on exit either way
            return False
        finally:  # (a script's commands come here too, not through cmd's postcmd)
            if self.after is not None:
                with contextlib.suppress(McastlabError, OSError):  # the view's next tick
                    self.after(self.known)                          # tries again

    def close(self) -> None:
        """Stop every member and capture this CLI started (members leave their groups)."""
        stop_processes([m.proc for m in self.members.values()]
                       + [p for p, _ in self.captures.values()])
        self.members.clear()
        self.captures.clear()

    def _args(self, line: str, usage: str, low: int, high: int) -> list[str]:
        args = shlex.split(line)
        if not low <= len(args) <= high:
            raise UsageError(f"usage: {usage}")
        return args

    def _host(self, name: str) -> Any:
        try:
            topo_host = self.emu.topo.host(name)
        except (KeyError, ValueError):
            names = ", ".join(h.name for h in self.emu.topo.hosts)
            raise UsageError(f"no host {name!r} (hosts: {names})") from None
        return self.emu.net.get(topo_host.name)

    @staticmethod
    def _group(text: str) -> str:
        try:
            addr = ipaddress.IPv4Address(text)
        except ValueError:
            raise UsageError(f"{text!r} is not an IPv4 address") from None
        if not addr.is_multicast or addr in ipaddress.IPv4Network("224.0.0.0/24"):
            raise UsageError(f"{text} is not a routable multicast group (224.0.1.0 to "
                             "239.255.255.255)")
        return str(addr)

    def _api(self, path: str) -> Any:
        if self.emu.controller is None:
            raise UsageError("no controller in this network (standalone switches)")
        return api_get(self.emu.controller.api, path)

    # ------------------------------------------------------------------ commands
    def do_join(self, line: str) -> None:
        """join HOST GROUP: HOST joins GROUP (a process on the host holds the membership and
        logs what it receives; the kernel sends the IGMP report); the prompt returns once
        the controller lists it and the switches confirmed the flows that follow."""
        name, group = self._args(line, "join HOST GROUP", 2, 2)
        host, group = self._host(name), self._group(group)
        if (host.name, group) in self.members:
            raise UsageError(f"{host.name} is already a member of {group}")
        self.members[(host.name, group)] = Member(host, group, self.dir)
        output(f"{host.name} joined {group}\n")
        # the next command meets the forwarding the join asked for (a few ms here)
        if self.emu.controller is not None and \
                self._follow(host, group, True, FOLLOW_TIMEOUT) is None:
            output(f"*** the controller does not list {host.name} in {group} after "
                   f"{FOLLOW_TIMEOUT:g} s\n")

    def do_leave(self, line: str) -> None:
        """leave HOST GROUP: HOST leaves GROUP (the kernel sends an IGMP leave); the switch
        forwards to it until the controller's group-specific queries go unanswered
        (`wait HOST left GROUP` waits for that)."""
        name, group = self._args(line, "leave HOST GROUP", 2, 2)
        host, group = self._host(name), self._group(group)
        member = self.members.pop((host.name, group), None)
        if member is None:
            raise UsageError(f"{host.name} is not a member of {group} (join it first)")
        member.stop()
        output(f"{host.name} left {group}\n")

    def do_wait(self, line: str) -> None:
        """wait HOST joined|left GROUP [SECONDS]: wait until the controller lists HOST in
        GROUP (joined) or no longer does (left), and every switch has confirmed the flows
        that follow, at most SECONDS (default 30); prints how long that took. A leave is
        followed only after the group-specific queries the controller sends first go
        unanswered: a script that sends after a leave waits for it here."""
        args = self._args(line, "wait HOST joined|left GROUP [SECONDS]", 3, 4)
        host, group = self._host(args[0]), self._group(args[2])
        if args[1] not in ("joined", "left"):
            raise UsageError(f"wait: {args[1]!r} is neither 'joined' nor 'left'")
        seconds = float(args[3]) if len(args) > 3 else FOLLOW_TIMEOUT
        if not 0 < seconds <= 3600:
            raise UsageError("SECONDS must be more than 0 and at most 3600")
        if self.emu.controller is None:
            raise UsageError("no controller in this network (standalone switches)")
        joined = args[1] == "joined"
        took = self._follow(host, group, joined, seconds)
        if took is None:
            raise McastlabError(f"the controller {'does not list' if joined else 'still lists'}"
                                f" {host.name} in {group} after {seconds:g} s")
        output(f"the controller {'lists' if joined else 'stopped listing'} {host.name} in "
               f"{group} after {took:.2f} s\n")

    def _follow(self, host: Any, group: str, joined: bool, seconds: float) -> float | None:
        names = {host.name, host.IP()}
        assert self.emu.controller is not None  # (the callers' check)
        return wait_members(self.emu.controller.api, group,
                            lambda m: bool(m & names) == joined, seconds)

    def do_send(self, line: str) -> None:
        """send HOST GROUP [COUNT]: HOST sends COUNT (default 3) datagrams to GROUP; prints,
        for every host, the frames of the group its wire delivered and the datagrams its
        member process received (members only)."""
        args = self._args(line, "send HOST GROUP [COUNT]", 2, 3)
        host, group = self._host(args[0]), self._group(args[1])
        count = int(args[2]) if len(args) > 2 else 3
        if not 1 <= count <= 1000:
            raise UsageError("COUNT must be 1 to 1000")
        before = {k: m.received() for k, m in self.members.items()}
        wires = send_counted(self.emu.hosts, host, group, count, self.dir)
        rows = []
        for name, wire in wires.items():
            member = self.members.get((name, group))
            got = member.received() - before[(name, group)] if member else "-"
            rows.append((name, "sender" if name == host.name else "member" if member else "-",
                         "?" if wire is None else wire, got))

        output(f"{host.name} sent {count} datagrams to {group}\n")
        output(text_table(["host", "role", "frames on its wire", "datagrams received"],
                          [list(r) for r in rows]) + "\n")

    def do_groups(self, line: str) -> None:
        """groups: the controller's groups, their members and the tree from each source."""
        self._args(line, "groups", 0, 0)
        output("\n".join(group_lines(self._api("/groups"))) + "\n")

    def do_tree(self, line: str) -> None:
        """tree GROUP [FILE.png]: the links the controller forwards GROUP on, from each
        source seen; with FILE also a picture of them on the network."""
        args = self._args(line, "tree GROUP [FILE.png]", 1, 2)
        group = self._group(args[0])
        info = self._api("/groups").get(group)
        if info is None:
            raise UsageError(f"the controller knows no group {group} (join it first)")
        topo = self.emu.topo
        edges: set[tuple[str, str]] = set()
        for src, d in info["sources"].items():
            if d["kind"] != "tree":
                output(f"from {src}: {d['kind']} ({d['reason']})\n")
                continue
            links = [(sw, topo.neighbour(sw, int(p))) for sw, ports in d["tree"].items()
                     for p in ports]
            edges.update(links)
            output(f"from {src}: " + ", ".join(f"{a}->{b}" for a, b in sorted(links)) + "\n")
        if not info["sources"]:
            output(f"{group}: members {', '.join(info['members']) or 'none'}; no source has "
                   "sent yet, so no tree is installed\n")
        if len(args) > 1:
            # loaded when the command runs: keeps the start of `mcastlab` quick
            from ..report.tree_picture import draw_tree

            draw_tree(topo, edges, set(info["members"]), Path(args[1]), title=group)
            output(f"picture written to {args[1]}\n")

    def do_picture(self, line: str) -> None:
        """picture FILE.svg: the network now as the live view draws it (mcastlab net --web:
        hosts and switches, each group's members and trees, failed nodes, loss, the last
        broadcast's ranks, times and tree), saved as SVG for a report; without --web too."""
        (name,) = self._args(line, "picture FILE.svg", 1, 1)
        path = output_file("picture", os.path.abspath(name))
        api = self.emu.controller.api if self.emu.controller else None
        write_file("picture", path, picture(self.emu.topo, api, self.emu.loss.current,
                                            self.emu.controller_config.contiguous,
                                            self.known["bcast"]))
        output(f"picture written to {path}\n")

    def do_bcast(self, line: str) -> None:
        """bcast ALGO SIZE [N | HOST ...]: broadcast SIZE bytes with ALGO over every host,
        the first N, or these hosts (the first is the root), a few times; prints per rank
        the median time from the root's start until that rank held the whole message and
        until its broadcast returned, t_mcast (the last return) and the model's prediction.
        The model's t_hold/t_end are measured once per size in a session (a few seconds),
        for an algorithm they matter to (the model's trees, OPT-Tree's schedule; not
        MPI_Bcast, the multicast or range-multicast broadcasts, which the model does not
        predict). Ranks nap while they wait (MCASTLAB_WAIT=sleep), as the labs measure.
        The live view (and `picture`) gets its ranks, times and tree (the sends of the
        schedule its ranks ran: testbed.live.bcast_tree; no frame is counted)."""

        args = self._args(line, "bcast ALGO SIZE [N | HOST ...]", 2, 10_000)
        size = _count(args[1], "SIZE", 0, 1 << 30)
        try:  # the call, made here: its name looked up once (the registry's words)
            call = BcastCall(args[0], size)
        except ValueError as e:
            raise UsageError(str(e)) from None
        total = len(self.emu.topo.hosts)
        hosts: int | list[str] = total
        if len(args) == 3 and args[2].isdigit():
            hosts = _count(args[2], "N", 1, total)
        elif len(args) > 2:
            hosts = [self._host(a).name for a in args[2:]]
            if len(set(hosts)) != len(hosts):
                raise UsageError("a host is named twice")
        if uses_params(call.record) and size not in self.params:
            output(f"measuring t_hold/t_end at {size} B for the model (once per size)\n")
            self.params[size] = model_params(self.emu, size)
        res = run_bcast(self.emu, call, RunOptions(
            hosts=hosts, repetitions=BCAST_ITERS, flow=False, params=self.params.get(size),
            wait=BCAST_WAIT, timeout=BCAST_TIMEOUT))
        output("\n".join(bcast_lines(res)) + "\n")
        # the tree the ranks ran, from the call as they got it (its t_hold/t_end, placement)
        ranked, _ = ranked_call(self.emu, res.call, list(res.rank_hosts), self.params.get(size))
        tree = bcast_tree(ranked, self.emu.topo, res.rank_hosts,
                          (res.dyn_tree or {}).get("parents"))
        self.known["bcast"] = bcast_part(res.algorithm, res.size, list(res.rank_hosts),
                                         res.median_s, res.predicted_s,
                                         list(res.rank_done_s or ()),
                                         list(res.rank_return_s or ()), res.link_bytes, tree)

    def do_loss(self, line: str) -> None:
        """loss P [HOST ...] | loss P SWITCH SWITCH: drop the fraction P (or a percentage:
        5%) of the packets each way on these hosts' links (default every host's), or on the
        link between two switches; 100% cuts them off, loss 0 restores (a bare 'loss 0' the
        host links only)."""
        args = self._args(line, "loss P [HOST ...] | loss P SWITCH SWITCH", 1, 10_000)
        try:
            p = loss_fraction(args[0], "P")
        except ValueError as e:
            raise UsageError(str(e)) from None
        topo, names = self.emu.topo, args[1:]
        switches = {sw.name for sw in topo.switches}
        if len(names) == 2 and not any(map(topo.is_host, names)) and set(names) & switches:
            self.emu.set_link_loss(names[0], names[1], p)
            output(f"loss {p * 100:g}% on the link {names[0]}-{names[1]} (each way)\n")
            return
        for n in names:
            if n in switches:
                raise UsageError(f"{n} is a switch: a switch-to-switch link is named by its "
                                 "two switches (loss P SWITCH SWITCH)")
        hosts = [self._host(h).name for h in names] or None
        self.emu.set_loss(p, hosts)
        output(f"loss {p * 100:g}% on {', '.join(hosts) if hosts else 'every host link'}\n")

    def _nodes(self, line: str, usage: str) -> list[int]:
        args = self._args(line, usage, 1, 10_000)
        return [self.emu.topo.host(self._host(a).name).node_id for a in args]

    def do_fail(self, line: str) -> None:
        """fail HOST ...: mark nodes failed in the controller, each by name or node id (h3
        or 3; contiguous mode then refuses every range that holds one)."""
        failed = self.emu.fail_nodes(self._nodes(line, "fail HOST ..."))
        output(f"failed nodes: {', '.join(map(str, failed)) or 'none'}\n")

    def do_restore(self, line: str) -> None:
        """restore HOST ...: clear the failed mark."""
        failed = self.emu.fail_nodes(self._nodes(line, "restore HOST ..."), failed=False)
        output(f"failed nodes: {', '.join(map(str, failed)) or 'none'}\n")

    def do_capture(self, line: str) -> None:
        """capture HOST FILE.pcap | capture HOST stop: record HOST's packets with tcpdump
        until stopped (or the CLI ends)."""
        name, what = self._args(line, "capture HOST FILE.pcap | capture HOST stop", 2, 2)
        host = self._host(name)
        if what == "stop":
            cap = self.captures.pop(host.name, None)
            if cap is None:
                raise UsageError(f"no capture runs on {host.name}")
            cap[0].terminate()
            cap[0].wait(timeout=10)
            output(f"capture on {host.name} written to {cap[1]}\n")
            return
        if host.name in self.captures:
            raise UsageError(f"a capture already runs on {host.name} (capture {host.name} stop)")
        path = Path(os.path.abspath(what))
        # tcpdump writes to its stdout, which reaches this file from any server: a regular
        # file opened through checked folders, never a link or a device (safepath)
        with open_output("capture", path) as out:
            # --immediate-mode: each packet on arrival (libpcap would hold them up to its 1 s
            # buffer timeout, and a capture stopped before then would miss them)
            proc = host.popen(["tcpdump", "-n", "-U", "--immediate-mode", "-i",
                               intf_name(host.name, HOST_PORT), "-w", "-"], stdout=out,
                              stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        if not select.select([proc.stderr], [], [], 5.0)[0] or proc.poll() is not None:
            proc.kill()
            raise McastlabError(f"tcpdump on {host.name} stopped: {proc.communicate()[1]}")
        proc.stderr.readline()  # "listening on ...": it captures from now on
        self.captures[host.name] = (proc, path)
        output(f"capturing {intf_name(host.name, HOST_PORT)} into {path} "
               f"('capture {host.name} stop' ends it)\n")


def _count(text: str, what: str, low: int, high: int) -> int:
    try:
        n = int(text)
    except ValueError:
        raise UsageError(f"{what} must be a whole number, got {text!r}") from None
    if not low <= n <= high:
        raise UsageError(f"{what} must be {low} to {high}, got {n}")
    return n
