"""Values as every command takes them (argparse types): byte sizes with binary suffixes
(64K, 64KiB, 1M: K = 1024, docs/cli.md), lists of sizes and of names, fractions or
percentages (5%), and nodes by a host's name or id (h3 or 3). The options that use them are
the areas' (cli/*.py); the parser that reads them is cli/parser.py."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

# every suffix is binary: the outputs print 64 KiB, and a user who types 64K or 64KB means it
UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
         "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
         "gib": 1 << 30}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*")
SIZE_SPELLINGS = "bytes, or with a binary suffix: 64K, 64KiB, 1M, 1MiB (K = 1024)"


def size_bytes(text: str) -> int:
    """A byte count as people write it: 65536, 64K, 64KiB, 64KB, 1M, 1.5MiB (every suffix
    binary); ValueError for anything else or a size that is not whole bytes."""
    match = _SIZE.fullmatch(text)
    unit = UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        raise ValueError(f"a size in {SIZE_SPELLINGS}; got {text!r}")
    number = match.group(1)
    if "." not in number:
        return int(number) * unit
    value = float(number) * unit
    if value != int(value):
        raise ValueError(f"{text!r} is not a whole number of bytes")
    return int(value)


def size(low: int = 0) -> Callable[[str], int]:
    """An argparse type: one byte size >= low."""
    def one(text: str) -> int:
        try:
            value = size_bytes(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low} B, got {text!r}")
        return value

    one.__name__ = "size"
    return one


def sizes(low: int = 0) -> Callable[[str], list[int]]:
    """An argparse type: byte sizes, comma-separated (64K,1M), each >= low, each once."""
    each = size(low)

    def many(text: str) -> list[int]:
        values = [each(part) for part in text.split(",")]
        if len(set(values)) != len(values):
            raise argparse.ArgumentTypeError(f"a size is given twice in {text!r}")
        return values

    many.__name__ = "sizes"
    return many


SIZE, SIZES, POSITIVE_SIZE, POSITIVE_SIZES = size(0), sizes(0), size(1), sizes(1)


def names(text: str) -> list[str]:
    """An argparse type: names, comma-separated, each once (--algo nack,binomial)."""
    values = [v.strip() for v in text.split(",")]
    if not all(values):
        raise argparse.ArgumentTypeError(f"names separated by commas, got {text!r}")
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"a name is given twice in {text!r}")
    return values


def _fraction(text: str, one: bool) -> float:
    given = text.strip()
    try:
        value = float(given[:-1]) / 100 if given.endswith("%") else float(given)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a fraction (0.05) or a percentage (5%), got "
                                         f"{text!r}") from None
    if not (0 <= value <= 1 if one else 0 <= value < 1):
        raise argparse.ArgumentTypeError(
            f"a fraction in [0, 1] or a percentage up to 100%, got {text!r}" if one else
            f"a fraction in [0, 1) or a percentage below 100%, got {text!r}")
    return value


def fraction(text: str) -> float:
    """An argparse type: a fraction in [0, 1) or a percentage below 100%, 0.05 or 5%
    (range-trees --faulty: not every node)."""
    return _fraction(text, one=False)


def share(text: str) -> float:
    """An argparse type: a share in [0, 1] or a percentage up to 100%, 0.25 or 25%
    (multinode --factor)."""
    return _fraction(text, one=True)


_NODE = re.compile(r"h?(0|[1-9][0-9]*)")


def node(text: str) -> int:
    """An argparse type: a node by a host's name or id, h3 or 3 (host names are h<id> in
    every topology: topologies.spec_file)."""
    match = _NODE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"a host's name or node id (h3 or 3), got {text!r}")
    return int(match.group(1))


def nodes(text: str) -> list[int]:
    """An argparse type: nodes, comma-separated, each a host's name or id (h1,h3 or 1,3)."""
    return [node(part) for part in text.split(",")]
