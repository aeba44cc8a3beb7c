"""One typed broadcast call (collectives.call.BcastCall): checked once against the registry,
carried to the rank programs as one JSON line, read back as itself; the rank program's
argument list is built beside its own parser."""

from __future__ import annotations

import pytest

from collectives.call import BcastCall
from collectives.programs import bcast_bench


def test_the_registry_fills_and_refuses_send_order_and_completion() -> None:
    assert BcastCall("binomial", 1024).send_order == "fifo"
    assert BcastCall("scout-linear", 1).completion == "report"
    nack = BcastCall("nack", 1)
    assert (nack.send_order, nack.completion) == (None, None)
    assert BcastCall("binomial", 1, send_order="overlapped").send_order == "overlapped"
    for kwargs, message in [
            ({"algorithm": "fastest"}, "unknown algorithm 'fastest'; choose from mpich"),
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
