"""testbed.cli.values: sizes with binary suffixes, lists of sizes and names, fractions or
percentages, and nodes by a host's name or id, as every command takes them."""

from __future__ import annotations

import argparse

import pytest

from testbed.cli.values import SIZES, fraction, names, node, nodes, share, size, size_bytes


@pytest.mark.parametrize(("text", "value"), [
    ("65536", 65536), ("64K", 65536), ("64k", 65536), ("64KiB", 65536), ("64KB", 65536),
    ("1M", 1 << 20), ("1MiB", 1 << 20), ("1mb", 1 << 20), ("1.5M", 3 << 19), ("0", 0),
    ("100B", 100), (" 2 KiB ", 2048), ("1G", 1 << 30)])
def test_a_size_with_a_binary_suffix(text: str, value: int) -> None:
    assert size_bytes(text) == value


@pytest.mark.parametrize("text", ["", "K", "64X", "-1", "1.0001K", "64 K B", "0x10"])
def test_a_size_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        size_bytes(text)


def test_sizes_are_a_list_each_once_and_each_above_its_floor() -> None:
    assert SIZES("1,64K,1M") == [1, 65536, 1 << 20]
    with pytest.raises(argparse.ArgumentTypeError, match="given twice"):
        SIZES("64K,65536")
    with pytest.raises(argparse.ArgumentTypeError, match="must be >= 1 B, got '0'"):
        size(1)("0")


def test_names_comma_separated_each_once() -> None:
    assert names("nack, binomial") == ["nack", "binomial"]
    for bad in ("", "a,,b", "a,a"):
        with pytest.raises(argparse.ArgumentTypeError):
            names(bad)


def test_a_fraction_or_a_percentage() -> None:
    assert [fraction(t) for t in ("0.05", "5%", "0", "99%")] == [0.05, 0.05, 0.0, 0.99]
    for bad in ("1", "100%", "-1%", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            fraction(bad)
    assert [share(t) for t in ("1", "100%", "25%", "0.25")] == [1.0, 1.0, 0.25, 0.25]
    for bad in ("101%", "-0.1", "1.5"):
        with pytest.raises(argparse.ArgumentTypeError, match="up to 100%"):
            share(bad)


def test_a_node_by_name_or_number() -> None:
    assert [node(t) for t in ("h3", "3", "h0", "0", " h12 ")] == [3, 3, 0, 0, 12]
    assert nodes("h1,3") == [1, 3]
    for bad in ("x3", "h", "-1", "h03", "3.0", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="name or node id"):
            node(bad)
