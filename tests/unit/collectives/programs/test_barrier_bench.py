"""collectives.programs.barrier_bench.parse_row: a row names a barrier and its options, as
testbed.measure.barrier writes and labels it; bad rows are refused."""

from __future__ import annotations

import json

import pytest

from collectives.call import BarrierCall
from collectives.programs.barrier_bench import parse_row, parser
from testbed.measure.barrier import label, row_spec


def test_barrier_bench_rows_name_a_barrier_and_its_options() -> None:
    assert parse_row("pairwise") == BarrierCall("pairwise")
    assert parse_row("mcast:release=multicast:timeout=5") == BarrierCall(
        "mcast", {"release": "multicast", "timeout": 5})
    for bad, needle in (("mcast:release=lost", "release must be one of"),
                        ("tree:release=both", "tree takes no option release"),
                        ("pairwise:timeout=1", "pairwise takes no option timeout"),
                        ("mcast:release", "NAME=VALUE"), ("fast", "unknown barrier 'fast'")):
        with pytest.raises(ValueError, match=needle):
            parse_row(bad)
    spec = row_spec("mcast", {"release": "multicast", "timeout": 5.0})
    assert spec == "mcast:release=multicast:timeout=5.0"
    assert parse_row(spec) == BarrierCall("mcast", {"release": "multicast", "timeout": 5.0})
    line = json.dumps([BarrierCall("pairwise").to_dict(), parse_row(spec).to_dict()])
    assert parser().parse_args(["--calls", line]).calls == [BarrierCall("pairwise"),
                                                            parse_row(spec)]
    assert label("mcast", {"release": "multicast"}) == "mcast, release multicast"
