"""testbed.experiments.osu.OsuResult: run_osu's typed result writes the record results
folders and `mcastlab osu --json` have always held."""

import json

from testbed.experiments.osu import OsuResult, OsuRow

RECORD_KEYS = {"benchmark", "osu_version", "algorithm", "params", "timing", "topology",
               "switch", "hosts", "rank_hosts", "full", "wait", "mpi4py", "send_order",
               "completion", "mpi_library", "lines", "rows"}
ROW_KEYS = {"size", "avg_us", "min_us", "max_us", "iterations", "skip", "window",
            "wait_per_turn_s", "fidelity", "line"}


def test_the_record_keeps_its_keys_and_the_lines_their_order() -> None:
    rows = tuple(OsuRow(size=s, avg_us=2.0 * s, min_us=s, max_us=3.0 * s, iterations=100,
                        skip=10, window=(1.0, 2.0), wait_per_turn_s=1e-5,
                        fidelity={"flags": ["switch waited"] if s > 1 else []},
                        line=f"{s} {2.0 * s:.2f}") for s in (1, 2))
    res = OsuResult(benchmark="osu_bcast", osu_version="7.4", algorithm="nack", params={},
                    timing=None, topology="star", switch="controller",
                    rank_hosts=("h0", "h1", "h2"), full=True, wait="block", mpi4py="4.1.2",
                    mpi_library="MPICH 5.0.2", send_order=None, completion="ack",
                    head_lines=("# OSU MPI Broadcast Latency Test v7.4", "# Size Avg"),
                    rows=rows)
    d = json.loads(json.dumps(res.to_dict()))
    assert set(d) == RECORD_KEYS and all(set(r) == ROW_KEYS for r in d["rows"])
    assert d["lines"] == ["# OSU MPI Broadcast Latency Test v7.4", "# Size Avg", "1 2.00",
                          "2 4.00"]
    assert (d["hosts"], d["rows"][1]["window"], d["rows"][1]["fidelity"]) == (
        3, [1.0, 2.0], {"flags": ["switch waited"]})
    assert [r.flags for r in res.rows] == [[], ["switch waited"]]


def test_a_list_of_sizes_reaches_the_program_as_its_rows() -> None:
    """mcastlab osu --size 64K,1: run_osu's `listed` is the program's --sizes (its rows, in
    their order); without it -m's doubling, and osu_barrier has one row of no size."""
    from collectives.programs import osu as program
    from testbed.experiments.osu import rounds

    assert rounds("bcast", (1, 4), None, None, [65536, 1]) == [(65536, 100, 10), (1, 1000, 100)]
    assert rounds("bcast", (1, 4), 5, 0) == [(1, 5, 0), (2, 5, 0), (4, 5, 0)]
    assert rounds("barrier", (1, 4), None, None, [8]) == [(None, 1000, 100)]
    argv = program.argv(bench="allgather", algorithm="ring", sizes=[65536, 1])
    args = program.parser().parse_args(argv[2:])
    assert program.parse_list(args.sizes) == [65536, 1] and args.message_size is None
