"""testbed.cli.lines: the `bcast` report and the group lines; importing it (and the commands
that print them: groups, bcast) loads no Mininet."""

import dataclasses
import subprocess
import sys

from collectives.call import BcastCall
from testbed.cli.lines import bcast_lines, group_lines
from testbed.measure.bcast_result import BcastResult
from testbed.measure.times import Times


def _result(**over: object) -> BcastResult:
    res = BcastResult(call=BcastCall("binomial", 1024), rank_hosts=("h0", "h1", "h2"),
                      iterations=5, t_mcast=Times(0.0012, 0.0011, 0.0013, 0.001, 0.0014),
                      timing="direct", verified=True, predicted_s=0.0009, topology="star",
                      switch="controller", window=(0.0, 1.0),
                      rank_done_s=(0.0, 0.0004, 0.00115),
                      rank_return_s=(0.0005, 0.0006, 0.0012), rank_done_from="held")
    return dataclasses.replace(res, **over)


def test_bcast_lines_head_with_t_mcast_and_model_then_a_row_per_rank() -> None:
    lines = bcast_lines(_result())
    assert lines[0] == ("binomial 1024 B from h0 to 3 hosts (5 broadcasts, bytes verified): "
                        "t_mcast median 1200 us, model 900 us")
    table = lines[1].splitlines()
    assert table[0].split() == ["rank", "host", "holds", "the", "message", "returns"]
    assert [r.split() for r in table[2:]] == [["0", "h0", "0", "us", "500", "us"],
                                              ["1", "h1", "400", "us", "600", "us"],
                                              ["2", "h2", "1150", "us", "1200", "us"]]
    assert len(lines) == 2


def test_bcast_lines_without_model_or_per_rank_report() -> None:
    lines = bcast_lines(_result(predicted_s=None, verified=False, rank_done_from="return",
                                rank_done_s=None))
    assert lines[0].endswith("WRONG BYTES at some rank): t_mcast median 1200 us, model -")
    assert lines[1].splitlines()[2].split() == ["0", "h0", "-", "500", "us"]
    assert "return stands in" in lines[2]


def test_group_lines_show_filters_time_left_and_leaving() -> None:
    any_source = {"mode": "exclude", "compat": "v3", "sources": {}, "blocked": []}
    groups = {"239.1.1.1": {
        "members": {"h1": {"switch": "s1", "port": 2, "expires_in_s": 4.26, "leaving": False,
                           **any_source},
                    "h2": {"switch": "s1", "port": 3, "expires_in_s": 0.9, "leaving": True,
                           **any_source, "compat": "v2"},
                    "h3": {"switch": "s1", "port": 4, "expires_in_s": 3.0, "leaving": False,
                           "mode": "include", "compat": "v3", "blocked": [],
                           "sources": {"10.0.0.1": 3.0, "10.0.0.2": 1.25}},
                    "h4": {"switch": "s1", "port": 5, "expires_in_s": 7.0, "leaving": False,
                           **any_source, "blocked": ["10.0.0.1"]}},
        "sources": {"h0": {"kind": "tree", "tree": {"s1": [2, 3]}}}}}
    assert group_lines(groups) == [
        "239.1.1.1  members: h1 (s1:2, expires in 4.3 s), h2 (s1:3, v2 host, leaving, expires "
        "in 0.9 s), h3 (s1:4, include 10.0.0.1 3.0 s, 10.0.0.2 1.2 s, expires in 3.0 s), "
        "h4 (s1:5, exclude 10.0.0.1, expires in 7.0 s)", "  from h0: tree s1->2,3"]
    assert group_lines({}) == ["no groups"]


def test_the_text_commands_load_no_mininet() -> None:
    """`mcastlab groups` and `mcastlab bcast`'s report print through this module; the
    prompt, which does import Mininet, is checked to, so the probe sees what it looks for."""
    probe = ("import sys, importlib; importlib.import_module(sys.argv[1]); "
             "print(any(m == 'mininet' or m.startswith('mininet.') for m in sys.modules))")
    loaded = {m: subprocess.run([sys.executable, "-c", probe, m], capture_output=True,
                                text=True, check=True).stdout.strip()
              for m in ("testbed.cli.lines", "testbed.cli.controller", "testbed.cli.bcast",
                        "testbed.cli.interactive")}
    assert loaded == {"testbed.cli.lines": "False", "testbed.cli.controller": "False",
                      "testbed.cli.bcast": "False", "testbed.cli.interactive": "True"}
