"""collectives.programs.osu without MPI: the OSU micro-benchmarks 7.4 lines, written out as
osu_bcast and osu_barrier print them (print_preamble, print_only_header, print_stats of
osu_util_mpi.c, FIELD_WIDTH 18, FLOAT_PRECISION 2), the sizes and iteration counts of
osu_bcast.c, and -m as process_options reads it."""

from __future__ import annotations

import pytest

from collectives.programs import osu

BCAST_HEADER = "# Size       Avg Latency(us)"
BCAST_FULL_HEADER = ("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)"
                     "  Iterations")


def test_bcast_preamble_and_header() -> None:
    assert osu.preamble("bcast") == ["", "# OSU MPI Broadcast Latency Test v7.4",
                                     "# Datatype: MPI_CHAR."]
    assert osu.header("bcast") == BCAST_HEADER
    assert osu.header("bcast", full=True) == BCAST_FULL_HEADER


def test_allgather_preamble_and_header_as_osu_bcasts() -> None:
    assert osu.preamble("allgather") == ["", "# OSU MPI Allgather Latency Test v7.4",
                                         "# Datatype: MPI_CHAR."]
    assert osu.header("allgather", full=True) == BCAST_FULL_HEADER
    assert osu.LOOKUP["allgather"]("bruck").collective == "allgather"


def test_barrier_preamble_and_header() -> None:
    assert osu.preamble("barrier") == ["", "# OSU MPI Barrier Latency Test v7.4"]
    assert osu.header("barrier") == "# Avg Latency(us)"
    assert osu.header("barrier", full=True) == (
        "# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations")


def test_bcast_rows() -> None:
    assert osu.row(1, 59.071, 30.8, 77.644, 1000) == "1                      59.07"
    assert osu.row(1048576, 123456.789, 0, 0, 100) == "1048576            123456.79"
    assert osu.row(64, 62.27, 30.58, 79.14, 20, full=True) == (
        "64                     62.27             30.58             79.14          20")
    # the columns sit under the header's
    assert len(osu.row(8, 1.0, 1.0, 1.0, 1000, full=True)) == len(BCAST_FULL_HEADER)


def test_barrier_rows() -> None:
    assert osu.row(None, 2185.776, 0, 0, 1000) == "          2185.78"
    assert osu.row(None, 12.5, 10.004, 15.0, 1000, full=True) == (
        "            12.50             10.00             15.00        1000")


def test_default_sizes_and_iterations_of_osu_bcast() -> None:
    rows = osu.plan()
    assert [s for s, _, _ in rows] == [1 << k for k in range(21)]  # 1 B to 1 MiB
    assert all((it, sk) == (1000, 100) for s, it, sk in rows if s <= 8192)
    assert all((it, sk) == (100, 10) for s, it, sk in rows if s > 8192)


def test_iterations_and_skip_given_replace_small_and_large() -> None:
    assert osu.plan(1, 64, 20, 2) == [(1, 20, 2), (2, 20, 2), (4, 20, 2), (8, 20, 2),
                                      (16, 20, 2), (32, 20, 2), (64, 20, 2)]
    assert osu.plan(4096, 32768, iterations=50) == [(4096, 50, 100), (8192, 50, 100),
                                                    (16384, 50, 10), (32768, 50, 10)]
    assert osu.plan(8192, 16384, skip=0) == [(8192, 1000, 0), (16384, 100, 0)]
    assert [s for s, _, _ in osu.plan(3, 100)] == [3, 6, 12, 24, 48, 96]
    assert osu.barrier_plan() == (1000, 100)
    assert osu.barrier_plan(20, 2) == (20, 2)
    assert osu.barrier_plan(skip=0) == (1000, 0)


def test_listed_sizes_keep_their_order_each_with_its_counts() -> None:
    """--sizes (mcastlab osu --size): the sizes given, in their order, each with the counts
    osu_bcast.c gives its size; -m's doubling is the same rows as its sizes listed."""
    assert osu.listed([65536, 1, 8192]) == [(65536, 100, 10), (1, 1000, 100),
                                            (8192, 1000, 100)]
    assert osu.listed([1, 16384], iterations=7, skip=0) == [(1, 7, 0), (16384, 7, 0)]
    assert osu.plan(4, 65536) == osu.listed([4 << k for k in range(15)])
    assert osu.parse_list("1024,1,65536") == [1024, 1, 65536]


@pytest.mark.parametrize("text", ["1K", "0,4", "4,4", "", "1,,2"])
def test_a_bad_size_list_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="--sizes"):
        osu.parse_list(text)


@pytest.mark.parametrize(("text", "sizes"), [
    ("64", (1, 64)), ("4:64", (4, 64)), ("4:", (4, 1048576)), (":64", (1, 64)),
    ("1:1", (1, 1)), ("2048", (1, 2048)),
])
def test_message_sizes_as_omb_reads_them(text: str, sizes: tuple[int, int]) -> None:
    assert osu.parse_sizes(text) == sizes


@pytest.mark.parametrize(("text", "needle"), [
    ("0:64", "the smallest size must be at least 1 byte, got 0"),
    ("-4:64", "the smallest size must be at least 1 byte, got -4"),
    ("64:8", "the largest size 8 is below the smallest 64"),
    ("0", "the largest size 0 is below the smallest 1"),
    ("2000000:", "the largest size 1048576 is below the smallest 2000000"),
    ("1:2:3", "-m takes MAX, MIN:MAX, MIN: or :MAX, got '1:2:3'"),
    (":", "-m takes MAX, MIN:MAX, MIN: or :MAX, got ':'"),
    ("", "-m takes MAX, MIN:MAX, MIN: or :MAX, got ''"),
    ("1k", "-m takes whole numbers of bytes, got '1k'"),
])
def test_bad_message_sizes(text: str, needle: str) -> None:
    with pytest.raises(ValueError) as exc:
        osu.parse_sizes(text)
    assert needle in str(exc.value)


@pytest.mark.parametrize("argv", [
    ["bcast", "-m", "64:8"], ["bcast", "-i", "0"], ["bcast", "-x", "-1"],
    ["bcast", "--algorithm", "mcast"], ["barrier", "--algorithm", "binomial"],
    ["barrier", "-m", "64"], ["allreduce"], ["barrier", "--sizes", "64"],
    ["bcast", "-m", "64", "--sizes", "1,2"], ["bcast", "--sizes", "0,2"],
])
def test_bad_arguments_exit_2_before_mpi_starts(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        osu.main(argv)
    assert exc.value.code == 2
    assert "collectives.programs.osu: error:" in capsys.readouterr().err
