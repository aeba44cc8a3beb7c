"""Registry look-ups of an algorithm's name, read from the source (nothing is imported or run).

    .venv/bin/python scripts/name_lookups.py [--root DIR] [--json] [--list]

A look-up is a place that takes an algorithm's name and asks the registry
(collectives.algorithms) about it: a call of known, bcast_algorithm, barrier_algorithm,
allgather_algorithm, lookup (or a module's own _known); a subscript, `.get` or `in` test of
BCASTS, BARRIERS or ALLGATHERS. The registry itself and collectives/call.py (where a call
is made: the one look-up a call should need) are not counted; neither is a walk over a
table (listing the choices); `resolve`, which passes a call's record through and looks up
only a name (a caller that holds no call), is counted apart. Counted per collective (a table's, a
function's, `lookup`'s first argument; `known`'s second, "bcast" without) and per part:
the testbed (after the command line or the spec made the call), the rank programs (after
they read it), the rest of collectives (the library: its public functions take names).
Issue 54's figure: "registry look-ups of an algorithm name after the call is made".
`--root` reads another checkout, e.g. one made by `git worktree add /tmp/old REV`.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"BCASTS": "bcast", "BARRIERS": "barrier", "ALLGATHERS": "allgather"}
FUNCTIONS = {"bcast_algorithm": "bcast", "barrier_algorithm": "barrier",
             "allgather_algorithm": "allgather", "known": "", "lookup": "", "_known": ""}
EXCLUDED = ("collectives/algorithms.py", "collectives/call.py")
PARTS = (("collectives/programs/", "rank programs"), ("collectives/", "collectives"),
         ("testbed/", "testbed"))


@dataclass(frozen=True)
class Lookup:
    path: str
    line: int
    collective: str
    how: str  # the function called, or TABLE[...], TABLE.get, in TABLE

    @property
    def part(self) -> str:
        return next(name for prefix, name in PARTS if self.path.startswith(prefix))


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else ""


def _constant(node: ast.AST | None) -> str:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _of_call(call: ast.Call, how: str) -> str:
    """The collective a look-up function is asked about."""
    if FUNCTIONS[how]:
        return FUNCTIONS[how]
    if how == "known":
        arg = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "collective"), None)
        return _constant(arg) or ("bcast" if arg is None else "any")
    if how == "_known":
        return "allgather"  # collectives/ipmc/allgather.py's own check
    return (_constant(call.args[0]) if call.args else "") or "any"


def _from_registry(tree: ast.AST) -> set[str]:
    """The look-up functions a module takes from the registry (its own _known too): a
    function of the same name from elsewhere (spec_values.known) is no look-up."""
    names = {"_known"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("algorithms"):
            names |= {a.asname or a.name for a in node.names
                      if a.name in FUNCTIONS or a.name == "resolve"}
    return names


def in_module(path: Path, rel: str) -> list[Lookup]:
    found = []
    tree = ast.parse(path.read_text())
    registry = _from_registry(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            how = _name(node.func)
            if how == "get" and isinstance(node.func, ast.Attribute) \
                    and _name(node.func.value) in TABLES:
                found.append(Lookup(rel, node.lineno, TABLES[_name(node.func.value)],
                                    f"{_name(node.func.value)}.get"))
            elif how == "resolve" and isinstance(node.func, ast.Name) \
                    and "resolve" in registry:
                found.append(Lookup(rel, node.lineno, "any", "resolve"))
            elif how in registry and isinstance(node.func, ast.Name) or (
                    how in FUNCTIONS and _name(getattr(node.func, "value", None)) == "algorithms"):
                found.append(Lookup(rel, node.lineno, _of_call(node, how), how))
        elif isinstance(node, ast.Subscript) and _name(node.value) in TABLES \
                and isinstance(node.ctx, ast.Load):
            found.append(Lookup(rel, node.lineno, TABLES[_name(node.value)],
                                f"{_name(node.value)}[...]"))
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, ast.In | ast.NotIn) and _name(right) in TABLES:
                    found.append(Lookup(rel, node.lineno, TABLES[_name(right)],
                                        f"in {_name(right)}"))
    return found


def lookups(root: Path = ROOT) -> list[Lookup]:
    out = []
    for package in ("collectives", "testbed"):
        for path in sorted((root / package).rglob("*.py")):
            rel = str(path.relative_to(root))
            if rel not in EXCLUDED:
                out += in_module(path, rel)
    return out


def figures(found: list[Lookup]) -> dict[str, dict[str, int]]:
    """part -> collective -> look-ups (and every part's total); `resolve` apart: a call of
    it passes a record through, or looks a name up where a caller holds only a name."""
    out: dict[str, dict[str, int]] = {}
    for part in [name for _, name in PARTS]:
        mine = [f for f in found if f.part == part]
        counts = Counter(f.collective for f in mine if f.how != "resolve")
        out[part] = {c: counts[c] for c in ("bcast", "barrier", "allgather", "any") if counts[c]}
        out[part]["total"] = sum(counts.values())
        out[part]["resolve (record or name)"] = sum(f.how == "resolve" for f in mine)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to read")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    ap.add_argument("--list", action="store_true", help="every look-up, a line each")
    args = ap.parse_args(argv)
    found = lookups(args.root)
    f = figures(found)
    if args.json:
        print(json.dumps(f, indent=1))
    else:
        for part, counts in f.items():
            print(f"{part}: " + ", ".join(f"{c} {n}" for c, n in counts.items()))
    if args.list:
        for x in found:
            print(f"  {x.path}:{x.line}  {x.collective}  {x.how}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
