"""The values of an experiment spec, each checked where it is read: every error names the
offending key (``sweep.sizes[2]: must be an integer, got 'x'``)."""

from __future__ import annotations

import math
from typing import Any

from topologies.loss import loss_fraction

from ..errors import UsageError

MAX_SIZE = 64 << 20  # bytes of one message


class SpecError(UsageError):
    """A spec that cannot run; the message starts with the offending key."""


def known(table: dict[str, Any], names: set[str], prefix: str) -> None:
    for key in table:
        if key not in names:
            raise SpecError(f"{prefix}{key}: unknown key (known: {', '.join(sorted(names))})")


def table(raw: dict[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise SpecError(f"{key}: must be a table ([{key}])")
    return value


def string(t: dict[str, Any], key: str, default: str, prefix: str = "") -> str:
    value = t.get(key, default)
    if not isinstance(value, str):
        raise SpecError(f"{prefix}{key}: must be a string, got {value!r}")
    return value


def choice(t: dict[str, Any], key: str, default: str, choices: tuple[str, ...],
            prefix: str) -> str:
    value = string(t, key, default, prefix)
    if value not in choices:
        raise SpecError(f"{prefix}{key}: unknown '{value}' (one of {', '.join(choices)})")
    return value


def check_num(value: Any, where: str, lo: float, hi: float, integer: bool) -> None:
    kind = "an integer" if integer else "a number"
    ok_type = (isinstance(value, int) if integer else isinstance(value, int | float)) \
        and not isinstance(value, bool)
    if not ok_type or (not integer and not math.isfinite(value)):
        raise SpecError(f"{where}: must be {kind}, got {value!r}")
    if not lo <= value <= hi:
        rng = f">= {lo:g}" if hi == math.inf else f"in [{lo:g}, {hi:g}]"
        raise SpecError(f"{where}: must be {rng}, got {value!r}")


def loss(value: Any, where: str) -> float:
    """A loss as everywhere: a fraction, or a percentage as text ("5%"): topologies.loss."""
    if not isinstance(value, int | float | str) or isinstance(value, bool):
        raise SpecError(f"{where}: must be a fraction (0.05) or a percentage (\"5%\"), "
                        f"got {value!r}")
    try:
        return loss_fraction(value, where)
    except ValueError as e:
        raise SpecError(str(e)) from None


def integer(t: dict[str, Any], key: str, default: int, lo: int, prefix: str = "") -> int:
    value = t.get(key, default)
    check_num(value, prefix + key, lo, math.inf, True)
    return value


def number(t: dict[str, Any], key: str, default: float, lo: float, prefix: str = "") -> float:
    value = t.get(key, default)
    check_num(value, prefix + key, lo, math.inf, False)
    return float(value)


def items(t: dict[str, Any], key: str, default: list[Any] | None, prefix: str,
          empty: bool = False) -> list[Any]:
    if key not in t:
        if default is None:
            raise SpecError(f"{prefix}{key}: missing (give a list)")
        return list(default)
    value = t[key]
    if not isinstance(value, list) or not (value or empty):
        raise SpecError(f"{prefix}{key}: must be a non-empty list, got {value!r}")
    return value


def int_list(t: dict[str, Any], key: str, default: list[int] | None, prefix: str, lo: float,
              hi: float, empty: bool = False) -> list[int]:
    values = items(t, key, default, prefix, empty)
    for i, v in enumerate(values):
        check_num(v, f"{prefix}{key}[{i}]", lo, hi, True)
    return values


def num_list(t: dict[str, Any], key: str, default: list[float] | None, prefix: str,
              lo: float, hi: float) -> list[float]:
    values = items(t, key, default, prefix)
    for i, v in enumerate(values):
        check_num(v, f"{prefix}{key}[{i}]", lo, hi, False)
    return [float(v) for v in values]


def str_list(t: dict[str, Any], key: str, default: list[str] | None, prefix: str) -> list[str]:
    values = items(t, key, default, prefix)
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise SpecError(f"{prefix}{key}[{i}]: must be a string, got {v!r}")
    return values
