"""The project's import graph, read from the source (nothing is imported or run).

    .venv/bin/python scripts/import_graph.py [--root DIR] [--draw FILE.png] [--json]
    .venv/bin/python scripts/import_graph.py --importers MODULE [--root DIR]
    .venv/bin/python scripts/import_graph.py --parameters MODULE.FUNCTION [--root DIR]
    .venv/bin/python scripts/import_graph.py --imported-by testbed --of collectives

prints the figures docs/architecture.md keeps: modules, edges between them, imports placed
inside functions (how many, in which files), import cycles counted with those, and which of
testbed/'s sub-packages imports which (module edges between them; those that run up the
floors of testbed/__init__.py). `--draw` pictures that sub-package graph, floor by floor.
`--root` reads another checkout, e.g. one made by `git worktree add /tmp/old REV`.
`--importers` lists the project's modules that import MODULE (a function-level import
counts); `--parameters` counts a function's parameters (positional, keyword-only, *args
and **kwargs each one), both read from the source as the rest is.
`--imported-by A --of B` lists instead the modules of package B that modules of package A
import (issue 54: the collectives modules the testbed imports, against collectives.PUBLIC),
and by how many of A's modules each.

tests/unit/test_layout.py holds the code to its layout with the same reading. Imports only
for type checkers (under `if TYPE_CHECKING:`) do not count: they never run.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("collectives", "controller", "testbed", "topologies")
FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Import:
    """One name (or module) that one module imports."""

    source: str  # the importing module
    target: str  # the module imported (a project module when it is one)
    name: str  # the name taken from it, "" for the module itself
    line: int
    in_function: bool  # placed inside a function body: it runs when the function does


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def find_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    return {module_name(root, p): p for pkg in PACKAGES for p in sorted((root / pkg).rglob("*.py"))}


def _runtime_nodes(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """(node, inside a function) for every node but those under `if TYPE_CHECKING:`."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend((n, in_function) for n in node.orelse)
            continue
        yield node, in_function
        inside = in_function or isinstance(node, FUNCTION)
        stack.extend((n, inside) for n in ast.iter_child_nodes(node))


def read_imports(modules: dict[str, Path], name: str) -> list[Import]:
    """One module's imports, those inside functions too, in the order of its lines."""
    path = modules[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node, in_function in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [Import(name, a.name, "", node.lineno, in_function) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append(Import(name, sub, "", node.lineno, in_function) if sub in modules
                           else Import(name, target, a.name, node.lineno, in_function))
    return sorted(out, key=lambda i: i.line)


def all_imports(modules: dict[str, Path]) -> list[Import]:
    return [i for name in modules for i in read_imports(modules, name)]


def graph(modules: dict[str, Path], imports: list[Import] | None = None) -> nx.DiGraph:
    """Modules and the project modules each imports (an edge's `in_function`: only so)."""
    g = nx.DiGraph()
    g.add_nodes_from(modules)
    for i in all_imports(modules) if imports is None else imports:
        if i.target in modules and i.target != i.source:
            was = g.edges[i.source, i.target]["in_function"] if g.has_edge(i.source, i.target) \
                else True
            g.add_edge(i.source, i.target, in_function=was and i.in_function)
    return g


def function_level(modules: dict[str, Path], imports: list[Import]) -> list[Import]:
    """Import statements inside functions (one a line), the project's and others'."""
    seen: dict[tuple[str, int], Import] = {}
    for i in imports:
        if i.in_function:
            seen.setdefault((i.source, i.line), i)
    return list(seen.values())


def unit(module: str) -> str:
    """The part of the project a module belongs to: testbed's sub-package (or top module,
    e.g. testbed.errors), or the top package (topologies, controller, collectives)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "testbed" and len(parts) > 1 else parts[0]


def unit_graph(g: nx.DiGraph) -> nx.DiGraph:
    """Units and the module edges between them (`count`, of which `in_function`)."""
    u = nx.DiGraph()
    u.add_nodes_from(unit(m) for m in g if m != "testbed")
    for a, b, data in g.edges(data=True):
        ua, ub = unit(a), unit(b)
        if ua == ub or "testbed" in (ua, ub):
            continue
        if not u.has_edge(ua, ub):
            u.add_edge(ua, ub, count=0, in_function=0)
        u.edges[ua, ub]["count"] += 1
        u.edges[ua, ub]["in_function"] += data["in_function"]
    return u


FLOOR_LINE = re.compile(r"^\s*(\d+)\.\s+((?:``[\w./]+``(?:,\s*)?)+):", re.M)


def read_floors(root: Path = ROOT) -> list[list[str]]:
    """testbed/'s floors, lowest first, as testbed/__init__.py's docstring numbers them
    (`N. ``a/``, ``b.py``: why`): each a list of units (testbed.a, testbed.b). Empty
    where the docstring names none."""
    doc = ast.get_docstring(ast.parse((root / "testbed" / "__init__.py").read_text())) or ""
    floors = []
    for number, names in FLOOR_LINE.findall(doc):
        assert int(number) == len(floors) + 1, f"floor {number} out of order"
        floors.append(["testbed." + n.strip("`").removesuffix("/").removesuffix(".py")
                       for n in re.findall(r"``[^`]+``", names)])
    return floors


def floor_of(floors: list[list[str]]) -> dict[str, int]:
    """Unit -> floor (1 lowest); the packages testbed/ stands on are floor 0."""
    return {u: n for n, names in enumerate(floors, 1) for u in names} | {
        "topologies": 0, "controller": 0, "collectives": 0}


def upward(u: nx.DiGraph, floors: list[list[str]]) -> list[tuple[str, str]]:
    """Unit edges from a floor to a higher one."""
    at = floor_of(floors)
    return sorted((a, b) for a, b in u.edges if a in at and b in at and at[a] < at[b])


def figures(root: Path = ROOT, floors: list[list[str]] | None = None) -> dict:
    modules = find_modules(root)
    imports = all_imports(modules)
    g = graph(modules, imports)
    fl = function_level(modules, imports)
    own = [i for i in fl if i.target.split(".")[0] in PACKAGES]
    u = unit_graph(g)

    def where(i: Import) -> str:
        return str(modules[i.source].relative_to(root))

    by_file_own = Counter(where(i) for i in own)
    floors = read_floors(root) if floors is None else floors
    cycles = list(nx.simple_cycles(g))
    unit_cycles = list(nx.simple_cycles(u))
    return {
        "modules": len(modules),
        "edges": g.number_of_edges(),
        "edges only inside functions": sum(d["in_function"] for *_, d in g.edges(data=True)),
        "function-level imports": len(fl),
        "of the project's modules": len(own),
        "files with them": len({i.source for i in fl}),
        "per file (all, the project's)": {
            f: [n, by_file_own[f]] for f, n in Counter(where(i) for i in fl).most_common()},
        "module cycles": len(cycles),
        "module cycles, examples": [" -> ".join(c) for c in sorted(cycles, key=len)[:5]],
        "unit cycles": len(unit_cycles),
        "units that reach each other": [", ".join(sorted(k)) for k in
                                        nx.strongly_connected_components(u) if len(k) > 1],
        "unit edges": {f"{a} -> {b}": [d["count"], d["in_function"]]
                       for a, b, d in sorted(u.edges(data=True))},
        "floors": floors,
        "upward unit edges": [f"{a} -> {b}" for a, b in upward(u, floors)],
    }


def importers(root: Path, module: str) -> list[str]:
    """The project's modules that import `module` (one of its names, or itself)."""
    modules = find_modules(root)
    if module not in modules:
        raise SystemExit(f"no module {module} under {root}")
    return sorted(a for a, _ in graph(modules).in_edges(module))


def parameters(root: Path, dotted: str) -> list[str]:
    """The parameters of the top-level function `dotted` (module.function), in order."""
    module, _, name = dotted.rpartition(".")
    modules = find_modules(root)
    if module not in modules:
        raise SystemExit(f"no module {module} under {root}")
    for node in ast.parse(modules[module].read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            a = node.args
            rest = [x for x in (a.vararg, a.kwarg) if x is not None]
            return [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, *rest)]
    raise SystemExit(f"no function {name} in {module}")
def imported_by(modules: dict[str, Path], imports: list[Import], by: str, of: str
                ) -> dict[str, int]:
    """The modules of package `of` that modules of package `by` import (whether at the top
    or inside functions), each with how many of `by`'s modules import it."""
    users: dict[str, set[str]] = {}
    for i in imports:
        if i.source.split(".")[0] == by and i.target in modules \
                and i.target.split(".")[0] == of:
            users.setdefault(i.target, set()).add(i.source)
    return {m: len(users[m]) for m in sorted(users)}


def draw(root: Path, out: Path, title: str, floors: list[list[str]] | None = None) -> None:
    """The sub-package graph, one row a floor (`floors`, else root's; without any, rows by
    the longest chain of imports below a unit): arrows up the floors red, arrows only
    inside functions dashed, thicker with more module edges. Arrows into the ground (the
    packages testbed/ stands on and its lowest floor or row) are left out: every floor may
    use it, and they would hide the rest."""
    import matplotlib  # only --draw needs it (a slow import the figures alone do without)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after use("Agg"): no display needed

    u = unit_graph(graph(find_modules(root)))
    floors = read_floors(root) if floors is None else floors
    at = floor_of(floors)
    if not floors:
        c = nx.condensation(u)
        depth = dict.fromkeys(c, 0)
        for n in reversed(list(nx.topological_sort(c))):
            depth[n] = max((depth[s] + 1 for s in c.successors(n)), default=0)
        at = {m: depth[c.graph["mapping"][m]] for m in u}
    low = min(at.get(n, 0) for n in u if n.startswith("testbed."))
    rows: dict[int, list[str]] = {}
    for n in sorted(u, key=lambda n: (at.get(n, 0), n)):
        rows.setdefault(at.get(n, 0), []).append(n)
    zigzag = (0.2, 0.55, 0.85, 0.4)  # a floor's lone part: arrows to the next floor slant
    pos = {n: (zigzag[y % 4] if len(row) == 1 else (i + 0.5) / len(row) + 0.04 * (y % 2), y)
           for y, row in rows.items() for i, n in enumerate(row)}
    shown = [(a, b) for a, b in u.edges if at.get(b, 0) > low and b.startswith("testbed.")]
    up = {(a, b) for a, b in shown if at[a] < at[b] or (not floors and at[a] == at[b])}
    fig, ax = plt.subplots(figsize=(12, 0.8 * len(rows) + 1.4))
    for edges, colour, bend in ((sorted(set(shown) - up), "#777777", 0.06),
                                (sorted(up), "#d62728", 0.3)):
        for style in ("solid", "dashed"):
            these = [e for e in edges if (u.edges[e]["count"] == u.edges[e]["in_function"])
                     == (style == "dashed")]
            nx.draw_networkx_edges(
                u, pos, edgelist=these, edge_color=colour, style=style, ax=ax,
                width=[0.7 + 0.4 * u.edges[e]["count"] ** 0.5 for e in these],
                connectionstyle=f"arc3,rad={bend}", arrowsize=11, node_size=2300, alpha=0.8)
    colours = ["#cfe2f3" if n.startswith("testbed.") else "#d9ead3" for n in u]
    nx.draw_networkx_nodes(u, pos, node_color=colours, node_size=2300, node_shape="s", ax=ax,
                           edgecolors="#444444")
    nx.draw_networkx_labels(u, pos, {n: n.removeprefix("testbed.") for n in u}, font_size=8,
                            ax=ax)
    for y in rows:
        ax.text(-0.03, y, f"floor {y}" if floors else f"row {y}", ha="right", va="center",
                fontsize=8, color="#555555")
    red = "run up the floors" if floors else "run up or across a row (sub-packages in a knot)"
    ax.set_title(f"{title}\n{len(up)} of {len(shown)} arrows drawn {red} (red); dashed: only "
                 "inside functions; arrows into the lowest row are not drawn", fontsize=9)
    ax.set_xlim(-0.1, 1.08)
    ax.set_ylim(min(rows) - 0.45, max(rows) + 0.45)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to read")
    ap.add_argument("--draw", type=Path, metavar="FILE.png", help="picture the sub-packages")
    ap.add_argument("--title", default="testbed/'s sub-packages: who imports whom")
    ap.add_argument("--floors", type=Path, metavar="DIR",
                    help="draw with the floors of this checkout's testbed/__init__.py")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    ap.add_argument("--importers", metavar="MODULE", help="the modules that import MODULE")
    ap.add_argument("--parameters", metavar="MODULE.FUNCTION",
                    help="how many parameters a function takes, and which")
    ap.add_argument("--imported-by", metavar="PACKAGE",
                    help="with --of: the modules of --of's package this package imports")
    ap.add_argument("--of", metavar="PACKAGE", help="see --imported-by")
    args = ap.parse_args(argv)
    if (args.imported_by is None) != (args.of is None):
        ap.error("--imported-by and --of go together")
    if args.importers or args.parameters:
        found = (importers(args.root, args.importers) if args.importers
                 else parameters(args.root, args.parameters))
        print(json.dumps(found) if args.json else f"{len(found)}: {', '.join(found)}")
        return 0
    if args.imported_by:
        modules = find_modules(args.root)
        tops = {m.split(".")[0] for m in modules}
        if args.of not in tops or args.imported_by not in tops:
            ap.error(f"--imported-by and --of name packages of the project: {', '.join(PACKAGES)}")
        used = imported_by(modules, all_imports(modules), args.imported_by, args.of)
        total = sum(m.split(".")[0] == args.of for m in modules)
        if args.json:
            print(json.dumps({"imported": len(used), "modules": total, "by": used}, indent=1))
        else:
            print(f"{len(used)} of {total} modules of {args.of} imported by {args.imported_by}"
                  " (module: how many of its modules import it)")
            for m, n in used.items():
                print(f"  {m}: {n}")
        return 0
    floors = read_floors(args.floors) if args.floors else None
    f = figures(args.root, floors)
    if args.json:
        print(json.dumps(f, indent=1))
    else:
        for key, value in f.items():
            if isinstance(value, dict):
                print(f"{key}:")
                for k, v in value.items():
                    print(f"  {k}: {v}")
            elif isinstance(value, list):
                print(f"{key}: {len(value)}")
                for v in value:
                    print(f"  {v}")
            else:
                print(f"{key}: {value}")
    if args.draw:
        draw(args.root, args.draw, args.title, floors)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
