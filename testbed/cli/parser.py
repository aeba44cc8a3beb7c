"""The argument parser every `mcastlab` command is made with: no prefix abbreviations (--alg is
not --algo), and an unknown option answered with the subcommand's own usage and its closest
option. The commands' options are the areas' (cli/*.py); main.py builds the tree."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, NoReturn


def mcastlab_version() -> str:
    """The installed distribution's version (pyproject.toml), 'unknown' outside an install."""
    try:
        return version("mcastlab")
    except PackageNotFoundError:
        return "unknown"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser without prefix matching whose unknown options are reported by the
    subcommand they were given to, with the closest option it has (difflib)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = self.chosen(ns)
            owner.error(unrecognized(owner, extras))
        return ns

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(args) if args is not None else []
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """argparse's error; a missing required option given misspelt (--alg for --algo)
        also gets the closest option."""
        if message.startswith("the following arguments are required"):
            known = set(options_of(self))
            unknown = [a for a in getattr(self, "_given", []) if a.startswith("--")
                       and a.split("=", 1)[0] not in known]
            hints = hints_for(self, unknown)
            if hints:
                message += " (" + "; ".join(hints) + ")"
        super().error(message)

    def chosen(self, ns: argparse.Namespace) -> argparse.ArgumentParser:
        """The deepest subcommand parser `ns` went through (this parser without one)."""
        parser: argparse.ArgumentParser = self
        while True:
            subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            name = getattr(ns, subs[0].dest, None) if subs and subs[0].dest else None
            if not subs or name not in subs[0].choices:
                return parser
            parser = subs[0].choices[name]


def options_of(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string `parser` takes, hidden ones (old spellings) included."""
    return [s for a in parser._actions for s in a.option_strings]


def hints_for(parser: argparse.ArgumentParser, given: list[str]) -> list[str]:
    """'--alg: did you mean --algo?' for each option in `given` close to one of `parser`."""
    known = options_of(parser)
    hints = []
    for arg in given:
        if not arg.startswith("-") or arg == "--":
            continue
        option = arg.split("=", 1)[0]
        close = difflib.get_close_matches(option, known, n=1, cutoff=0.6)
        if close:
            hints.append(f"{option}: did you mean {close[0]}?")
    return hints


def unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """argparse's 'unrecognized arguments' message, with the closest option of `parser`
    for each unknown option."""
    hints = hints_for(parser, extras)
    text = f"unrecognized arguments: {' '.join(extras)}"
    return text + ("" if not hints else " (" + "; ".join(hints) + ")")
