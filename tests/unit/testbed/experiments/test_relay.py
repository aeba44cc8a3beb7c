"""testbed.experiments.relay, the launching server's side of a sweep_bench job: the points wait
in the pipe rank 0 reads, a go-ahead follows them, and rank 0's lines become the heartbeat
and records files, each record handed on once it is on disk."""

from __future__ import annotations

import json
import os

from collectives.programs.sweep_bench import POINT_SAID
from testbed.experiments.relay import Relay


def test_points_then_go_ahead_in_and_lines_out(tmp_path):
    points = json.dumps([{"key": "k" * 12, "params": "x" * 100_000}])  # more than a pipe
    handed: list[tuple[dict, str]] = []
    relay = Relay(tmp_path / "out.jsonl", tmp_path / "beat", points,
                  record=lambda rec: handed.append((rec, relay.out.read_text())))
    relay.say("armed")
    with os.fdopen(os.dup(relay.stdin)) as rank0:
        assert json.loads(rank0.readline()) == json.loads(points)
        assert rank0.readline() == "armed\n"
    assert not relay.beat.exists()
    relay.line(POINT_SAID + "abc")
    relay.line("a warning of some library")
    relay.line('{"key": "abc", "samples_s": [0.1]}')
    relay.line("{not a record")
    assert relay.beat.read_text() == "abc"
    assert handed == [({"key": "abc", "samples_s": [0.1]},
                       '{"key": "abc", "samples_s": [0.1]}\n')]
    assert relay.out.read_text() == '{"key": "abc", "samples_s": [0.1]}\n'
    relay.close()
    relay.say("armed")  # the job is over: nothing, no error
    assert relay.stdin == -1
