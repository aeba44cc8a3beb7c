"""t_hold and t_end on the network that is up (Nupairoj's point-to-point parameters: Ping,
PingPong, the dummy loop), measured by collectives.programs.params, and read back as the
model's point-to-point figures (model_inputs). What the model makes of them for one
algorithm is testbed.measure.bcast_model's."""

from __future__ import annotations

from typing import Any

from collectives import measured
from collectives.algorithms import DEFAULT_SEND_ORDER, check_send_order
from collectives.programs import params as params_program
from collectives.trees import MeasuredPointToPoint

from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed, renamed_keyword
from . import model_inputs
from .job import last_json


def measure_params(emu: Emulation, sizes: list[int], *, repetitions: int = 5,
                   dummy_max: int = 65536, hosts: list[str] | None = None,
                   budget_bytes: int | None = None,
                   send_order: str = DEFAULT_SEND_ORDER,
                   repeats: int | None = None, partner: str | None = None,
                   dummy_fractions: tuple[float, ...] | None = None,
                   dummy_runs: int | None = None, pin_pair: bool = False,
                   hold_sends: int | None = None) -> dict[str, Any]:
    """Run collectives.programs.params on `hosts`, the broadcast's, its root first (default:
    every host, the topology's most distant pair first). t_hold: the first host sends one
    message to each other host in turn, back to back, in `send_order`, kept for every count
    of sends up to theirs (the model takes its busiest node's: model_inputs); t_end: the
    first host and `partner` (default: the host at the median hop count from the first,
    the distance the broadcast's messages travel; the second host when given none of the
    `hosts`' own) ping-pong while the others wait as a broadcast's ranks do.
    `budget_bytes`: bytes per timed run of a size (collectives.programs.params' default 8
    MiB takes a minute per size at 10 Mbit/s). `dummy_fractions`: the dummy loop's lengths in
    units of t_end, `dummy_runs` the runs of each (default the program's); `pin_pair`: the
    first host's rank and the partner's each on a core of their own meanwhile; `hold_sends`:
    t_hold's back-to-back sends (default one to each other host). The job's timeout grows
    with the bytes it puts on the first host's link (`params_timeout`). The record names
    both hosts and the partner's hop count, and checks t_hold against the wire time
    (`wire_check`, model_inputs.check)."""
    repetitions = renamed_keyword(repeats, "repeats", repetitions, "repetitions")
    check_send_order(send_order)
    if hosts is None:
        pair = [h.name for h in emu.topo.diameter_pair()]
        hosts = pair + [h.name for h in emu.topo.hosts if h.name not in pair]
        partner = partner or pair[1]
    partner = partner or median_hop_host(emu, hosts)
    if partner not in hosts[1:]:
        raise RunFailed(f"the t_end partner {partner} is not one of the hosts after the "
                        f"first ({', '.join(hosts)})")
    res = run_mpi(emu, params_program.argv(sizes=sizes, repeats=repetitions, dummy_max=dummy_max,
                                           send_order=send_order,
                                           budget_bytes=budget_bytes or None,
                                           partner=hosts.index(partner),
                                           dummy_fractions=dummy_fractions,
                                           dummy_runs=dummy_runs,
                                           pin_pair=pin_pair or None,
                                           hold_sends=hold_sends),
                  hosts=hosts,
                  timeout=params_timeout(sizes, repetitions, len(hosts), budget_bytes,
                                         hold_sends, dummy_max, emu.topo.host_rate(),
                                         dummy_fractions, dummy_runs))
    out = {**last_json(res), "hosts": hosts, "root": hosts[0], "partner_host": partner,
           "partner_hops": emu.topo.hops(hosts[0], partner)}
    out["wire_check"] = model_inputs.check(out, emu.topo.host_rate())
    return out


PARAMS_TIMEOUT_S = 900.0  # at least; more where the bytes to send take longer (below)


def params_timeout(sizes: list[int], repetitions: int, hosts: int, budget_bytes: int | None,
                   hold_sends: int | None, dummy_max: int, mbit: float | None,
                   dummy_fractions: tuple[float, ...] | None = None,
                   dummy_runs: int | None = None) -> float:
    """The t_hold/t_end job's timeout: PARAMS_TIMEOUT_S, or four times the time its bytes
    take on the first host's link where that is longer. Per size m: t_hold's rounds of
    `hold_sends` messages (collectives.measured.hold_rounds), 2 x `repetitions` timed
    ping-pong runs of reps(m) round trips, and the dummy loop's sweep up to `dummy_max`
    (`dummy_fractions` and `dummy_runs` as given to the program, else its defaults).
    64 hosts at 3 Mbit/s, 1 B to 1 MiB, took longer than 900 s (63 sends of 1 MiB are 176 s
    a round; 2026-12-07)."""
    if not mbit:
        return PARAMS_TIMEOUT_S
    sends = hold_sends or hosts - 1
    points = len(dummy_fractions or params_program.DUMMY_FRACTIONS) * \
        (dummy_runs or params_program.DUMMY_RUNS)
    total = 0
    for m in sizes:
        k = measured.reps(m, budget_bytes) if budget_bytes else measured.reps(m)
        trips = 2 * repetitions * k
        if m <= dummy_max:  # runs of k / 4 round trips, each with a dummy loop of 2 t_end
            trips += 2 * points * -(-k // 4)  # on average
        total += measured.hold_rounds(m, repetitions) * sends * m + trips * 2 * m
    return max(PARAMS_TIMEOUT_S, 4 * total * 8 / (mbit * 1e6))


def median_hop_host(emu: Emulation, hosts: list[str]) -> str:
    """Of `hosts` after the first (a broadcast's root), the one at the median hop count
    from the first (the lower median; ties: the first in order)."""
    others = hosts[1:]
    if not others:
        raise RunFailed("t_hold/t_end need at least two hosts")
    by = sorted(others, key=lambda h: emu.topo.hops(hosts[0], h))
    return by[(len(by) - 1) // 2]


def model_params(emu: Emulation, *sizes: int) -> dict[str, Any]:
    """t_hold/t_end at a broadcast's message size (or at each of several) for the model
    (Ping and PingPong only, 1 MiB per timed run: seconds, not a minute, at 10 Mbit/s)."""
    return measure_params(emu, sorted({max(size, 1) for size in sizes}), repetitions=3,
                          dummy_max=0, budget_bytes=1 << 20)


def point_to_point(params: dict[str, Any], sends: int | None = None) -> MeasuredPointToPoint:
    """t_hold(m) and t_end(m) from measure_params, t_hold at `sends` back-to-back sends
    (None: the most measured; testbed.measure.model_inputs)."""
    return model_inputs.point_to_point(params, sends)
