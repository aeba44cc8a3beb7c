"""The code's layout holds (design.md's layers, issue 18): no import cycle among the
project's modules, no private name imported from another module, and collectives/ (run
inside the MPI ranks) never imports the testbed or the controller. Imports are read from
the source, those inside functions too; imports only for type checkers do not count."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("collectives", "controller", "testbed", "topologies")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def runtime_nodes(tree: ast.AST):
    """Every node but those under `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports(name: str) -> list[tuple[str, str]]:
    """(module imported, name taken from it or "") of one module's imports."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub, "") if sub in MODULES else (target, a.name))
    return out


def graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(MODULES)
    for name in MODULES:
        g.add_edges_from((name, target) for target, _ in imports(name) if target in MODULES)
    return g


def test_the_modules_are_found() -> None:
    assert {"collectives.executor", "collectives.algorithms", "testbed.cli.main", "controller",
            "topologies.model"} <= MODULES.keys()
    assert len(MODULES) > 100


def test_no_import_cycles() -> None:
    cycles = sorted(" -> ".join(c) for c in nx.simple_cycles(graph()))
    assert cycles == []


def test_no_private_name_is_imported_from_another_module() -> None:
    taken = sorted(f"{name}: {target}.{what}" for name in MODULES
                   for target, what in imports(name)
                   if target in MODULES and what.startswith("_") and not what.startswith("__"))
    assert taken == []


@pytest.mark.parametrize("forbidden", ["testbed", "controller"])
def test_collectives_never_imports_the_testbed_or_controller(forbidden: str) -> None:
    bad = sorted(f"{name}: {target}" for name in MODULES if name.startswith("collectives")
                 for target, _ in imports(name)
                 if target == forbidden or target.startswith(forbidden + "."))
    assert bad == []


def test_the_checks_see_a_cycle_and_a_private_import(tmp_path: Path, monkeypatch) -> None:
    """The reading above would catch what it looks for (two modules made up here)."""
    pkg = tmp_path / "collectives"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import _hidden\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n_hidden = 1\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "ROOT", tmp_path)
    fake = {module_name(p): p for p in pkg.rglob("*.py")}
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "MODULES", fake)
    assert [sorted(c) for c in nx.simple_cycles(graph())] == [["collectives.a", "collectives.b"]]
    assert ("collectives.b", "_hidden") in imports("collectives.a")
