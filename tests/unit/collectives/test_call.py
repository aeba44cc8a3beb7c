"""One typed call per collective (collectives.call: BcastCall, BarrierCall, AllgatherCall):
checked once against the registry (one wording for an unknown name, the registry's), its
record kept on the call and never looked up again, carried to the rank programs as one
JSON line, read back as itself; the rank program's argument list is built beside its own
parser."""

from __future__ import annotations

import pytest

from collectives import algorithms
from collectives import call as call_module
from collectives.algorithms import ALLGATHERS, Algorithm, lookup
from collectives.call import AllgatherCall, BarrierCall, BcastCall
from collectives.executor import check_allgather, check_barrier, check_bcast
from collectives.programs import bcast_bench
from collectives.trees.dyn_bcast import chain
from collectives.trees.run import schedule_for


def test_the_registry_fills_and_refuses_send_order_and_completion() -> None:
    assert BcastCall("binomial", 1024).send_order == "fifo"
    assert BcastCall("scout-linear", 1).completion == "report"
    nack = BcastCall("nack", 1)
    assert (nack.send_order, nack.completion) == (None, None)
    assert BcastCall("binomial", 1, send_order="overlapped").send_order == "overlapped"
    for kwargs, message in [
            ({"algorithm": "fastest"}, "unknown broadcast 'fastest'; choose from mpich"),
            ({"algorithm": "nack", "send_order": "fifo"}, "nack has no send order"),
            ({"algorithm": "binomial", "completion": "none"}, "binomial has no completion"),
            ({"algorithm": "binomial", "send_order": "lifo"}, "send_order must be one of"),
            ({"algorithm": "binomial", "size": -1}, "size is a whole number >= 0"),
            ({"algorithm": "binomial", "size": True}, "size is a whole number >= 0"),
            ({"algorithm": "binomial", "root": 1.5}, "root is a whole number >= 0"),
            ({"algorithm": "binomial", "options": {"send_order": "fifo"}},
             "send_order: a field of the call"),
            ({"algorithm": "nack", "options": {"fragment": object()}},
             "the options must be JSON values")]:
        with pytest.raises(ValueError, match=message):
            BcastCall(**{"size": 1, **kwargs})


def test_one_json_line_there_and_back() -> None:
    call = BcastCall("opt-mesh", 65536, root=2,
                     options={"t_hold": 2.5e-5, "t_end": 6.125e-5, "mesh": (4, 4)})
    line = call.to_json()
    assert "\n" not in line and BcastCall.from_json(line) == call
    assert call.options["mesh"] == [4, 4]  # as the ranks read it: a JSON list
    assert hash(BcastCall.from_json(line)) == hash(call)
    assert call.kwargs() == {"algorithm": "opt-mesh", "t_hold": 2.5e-5, "t_end": 6.125e-5,
                             "mesh": [4, 4], "send_order": "fifo"}
    with pytest.raises(TypeError):
        call.options["mesh"] = [2, 2]  # frozen, options too
    with pytest.raises(ValueError, match="has no speed"):
        BcastCall.from_dict({"algorithm": "nack", "size": 1, "speed": 9})
    with pytest.raises(ValueError, match="a JSON object"):
        BcastCall.from_json("[1, 2]")
    assert call.with_options(nodes=[0, 1]).options["nodes"] == [0, 1]


def test_a_call_is_checked_for_its_communicator_before_any_message() -> None:
    with pytest.raises(ValueError, match="opt-tree needs t_hold and t_end"):
        BcastCall("opt-tree", 1024).check(4)
    BcastCall("opt-tree", 1024, options={"t_hold": 2e-5, "t_end": 5e-5}).check(4)
    with pytest.raises(ValueError, match="root 4 is not one of the 4 ranks"):
        BcastCall("binomial", 1, root=4).check(4)
    with pytest.raises(ValueError, match="nack: "):
        BcastCall("nack", 1, options={"speed": 9}).check(4)


def test_the_rank_programs_arguments_are_built_beside_its_parser() -> None:
    call = BcastCall("scout-linear", 4096, completion="none", options={"fragment": 1400})
    argv = bcast_bench.argv(call, iters=7, flow=False, mark_dir="/tmp/m", frame_iters=3,
                            naive_loop=4, late=("root", 2.5))
    assert argv[:2] == ["-m", "collectives.programs.bcast_bench"]
    args = bcast_bench.parser().parse_args(argv[2:])
    assert args.call == call and args.iters == 7 and not args.flow
    assert (args.mark_dir, args.frame_iters, args.naive_loop) == ("/tmp/m", 3, 4)
    assert (args.late, args.late_ms) == ("root", 2.5)
    plain = bcast_bench.parser().parse_args(bcast_bench.argv(BcastCall("nack", 1))[2:])
    assert plain.flow and plain.mark_dir is None and plain.late is None


# ---- one call per collective, its record looked up once ----------------------------------
def test_every_call_refuses_an_unknown_name_in_the_registrys_one_wording() -> None:
    for make, message in [
            (lambda: BcastCall("fast", 1), "unknown broadcast 'fast'; choose from mpich, "),
            (lambda: BarrierCall("fast"), "unknown barrier 'fast'; choose from mpich, tree, "),
            (lambda: AllgatherCall("fast"), "unknown allgather 'fast'; choose from mpich, ring")]:
        with pytest.raises(ValueError) as err:
            make()
        assert str(err.value).startswith(message)
        # the same words as the registry's own look-up, wherever a name is checked
        collective = {"broadcast": "bcast"}.get(message.split()[1], message.split()[1])
        with pytest.raises(ValueError) as again:
            lookup(collective, "fast")
        assert str(again.value) == str(err.value)


def test_barrier_and_allgather_calls_take_only_their_options() -> None:
    assert BarrierCall("mcast", {"release": "multicast"}).record.release
    for make, message in [
            (lambda: BarrierCall("tree", {"release": "both"}), "tree takes no option release"),
            (lambda: BarrierCall("mcast", {"release": "lost"}), "release must be one of"),
            (lambda: AllgatherCall("ring", {"timeout": 1.0}), "ring takes no options"),
            (lambda: AllgatherCall("mcast-concurrent", {"speed": 9}),
             "mcast-concurrent takes only fragment, rate, timeout, rcvbuf, got speed"),
            (lambda: AllgatherCall("bruck", {"x": object()}), "bruck takes no options")]:
        with pytest.raises(ValueError, match=message):
            make()
    call = AllgatherCall("mcast-concurrent", {"timeout": 5.0, "fragment": 1400})
    assert AllgatherCall.from_json(call.to_json()) == call and hash(call) == hash(
        AllgatherCall.from_json(call.to_json()))
    assert call.run_kwargs() == {"algorithm": ALLGATHERS["mcast-concurrent"], "timeout": 5.0,
                                 "fragment": 1400}
    assert call.with_options(rate=1e6).options["rate"] == 1e6
    with pytest.raises(ValueError, match="an allgather call has no size"):
        AllgatherCall.from_dict({"algorithm": "ring", "size": 4})
    with pytest.raises(ValueError, match="a barrier call is a JSON object"):
        BarrierCall.from_json('"mcast"')


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every registry look-up of a name from here on, as (collective, name): the one
    function every look-up goes through (algorithms.lookup), wrapped."""
    seen: list[tuple[str, str]] = []
    real = algorithms.lookup

    def counted(collective: str, name: str) -> Algorithm:
        seen.append((collective, name))
        return real(collective, name)

    for module in (algorithms, call_module):
        monkeypatch.setattr(module, "lookup", counted)
    return seen


def test_a_call_looks_its_name_up_once_and_never_again(lookups) -> None:
    """Made, checked for its communicator, turned into the executor's arguments, sent as
    JSON: one look-up; read back by a rank: one more (a new process reads it); the record it
    hands the executor and the checks passes through without another."""
    bcast = BcastCall("opt-mesh", 1024, options={"t_hold": 2e-5, "t_end": 5e-5,
                                                  "mesh": [2, 2]})
    barrier = BarrierCall("range-tree", {"nodes": [0, 1, 2, 3], "fattree": [4, 4]})
    allgather = AllgatherCall("mcast-concurrent", {"timeout": 2.0})
    assert lookups == [("bcast", "opt-mesh"), ("barrier", "range-tree"),
                       ("allgather", "mcast-concurrent")]
    for call in (bcast, barrier, allgather):
        call.check(4)
        assert call.record is algorithms.COLLECTIVES[call.collective][call.algorithm]
        call.kwargs(), call.to_json()
        kwargs = call.run_kwargs()
        assert kwargs["algorithm"] is call.record
        assert algorithms.resolve(call.collective, kwargs["algorithm"]) is call.record
    check_bcast(bcast.record, 4, bcast.params())
    check_barrier(barrier.record, dict(barrier.options))
    check_allgather(allgather.record, dict(allgather.options))
    assert len(lookups) == 3  # nothing looked up again
    BcastCall.from_json(bcast.to_json())  # a rank reads the call: its own one look-up
    assert lookups[3:] == [("bcast", "opt-mesh")]
    # the trees built from the record (the contention trees, DYN-Mesh's chain, the model's
    # inputs) look nothing up either
    dyn = BcastCall("dyn-mesh", 1024, options={"t_hold": 2e-5, "t_end": 5e-5,
                                                "mesh": [2, 2]})
    dyn.check(4)
    schedule_for(bcast.record, 4, 1, 1024, **bcast.params())
    assert chain(dyn.record, 4, 0, dyn.params()) == (0, 2, 1, 3)  # the 2 x 2 mesh's order
    assert lookups[4:] == [("bcast", "dyn-mesh")]
