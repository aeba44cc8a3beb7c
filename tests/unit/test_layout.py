"""The code's layout holds (issue 18; issue 37, item 2): no import cycle among the
project's modules, no private name imported from another module, collectives/ (run inside
the MPI ranks) never imports the testbed or the controller, testbed's parts stand on the
floors its docstring numbers (no import runs up them, nor round between parts), and an
import placed inside a function says why. Imports are read from the source
(scripts/import_graph.py), those inside functions too; imports only for type checkers do not
count."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
assert _spec is not None and _spec.loader is not None
ig = sys.modules.setdefault("import_graph", importlib.util.module_from_spec(_spec))
if not hasattr(ig, "graph"):
    _spec.loader.exec_module(ig)

MODULES = ig.find_modules(ROOT)
IMPORTS = ig.all_imports(MODULES)
FLOORS = ig.read_floors(ROOT)


def test_the_modules_are_found() -> None:
    assert {"collectives.executor", "collectives.algorithms", "testbed.cli.main", "controller",
            "topologies.model"} <= MODULES.keys()
    assert len(MODULES) > 100


def test_no_import_cycles() -> None:
    cycles = sorted(" -> ".join(c) for c in nx.simple_cycles(ig.graph(MODULES, IMPORTS)))
    assert cycles == []


def test_no_private_name_is_imported_from_another_module() -> None:
    taken = sorted(f"{i.source}: {i.target}.{i.name}" for i in IMPORTS
                   if i.target in MODULES and i.name.startswith("_")
                   and not i.name.startswith("__"))
    assert taken == []


@pytest.mark.parametrize("forbidden", ["testbed", "controller"])
def test_collectives_never_imports_the_testbed_or_controller(forbidden: str) -> None:
    bad = sorted(f"{i.source}: {i.target}" for i in IMPORTS if i.source.startswith("collectives")
                 and (i.target == forbidden or i.target.startswith(forbidden + ".")))
    assert bad == []


def test_every_part_of_the_testbed_stands_on_a_floor() -> None:
    parts = {ig.unit(m) for m in MODULES if m.startswith("testbed.")}
    on_floors = [u for floor in FLOORS for u in floor]
    assert len(on_floors) == len(set(on_floors)), "a part on two floors"
    assert sorted(parts - set(on_floors)) == []
    assert sorted(set(on_floors) - parts) == [], "a floor names a part that is not there"


def test_no_import_runs_up_the_floors() -> None:
    """Inside functions too: a function-level import is no way around the order."""
    at = ig.floor_of(FLOORS)
    up: dict[tuple[str, str], list[str]] = {}
    for i in IMPORTS:
        a, b = ig.unit(i.source), ig.unit(i.target)
        if i.target in MODULES and a in at and b in at and at[a] < at[b]:
            up.setdefault((a, b), []).append(f"{i.source}:{i.line} -> {i.target}")
    assert up == {}


def test_the_parts_do_not_reach_each_other() -> None:
    """Parts on one floor may import one another, in one direction only."""
    parts = ig.unit_graph(ig.graph(MODULES, IMPORTS))
    knots = [sorted(k) for k in nx.strongly_connected_components(parts) if len(k) > 1]
    assert knots == []


NOT_A_REASON = re.compile(r"#\s*(noqa\b|type:|pragma\b)[^#]*$")


def without_reason(path: Path, lines: list[int]) -> list[int]:
    """Of these import lines, those with no comment on their statement nor on the line
    above it (or above the run of import statements it stands in)."""
    text = path.read_text()
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT and not NOT_A_REASON.match(tok.string):
            comments[tok.start[0]] = tok.line
    starts = {n.end_lineno or n.lineno: n.lineno for n in ast.walk(ast.parse(text))
              if isinstance(n, ast.Import | ast.ImportFrom)}
    ends = {start: end for end, start in starts.items()}
    out = []
    for line in lines:
        first = line
        while first - 1 in starts and first - 1 not in comments:  # an import just above
            first = starts[first - 1]
        own = any(n in comments for n in range(line, ends[line] + 1))
        if not own and not comments.get(first - 1, "").lstrip().startswith("#"):
            out.append(line)
    return out


def test_every_import_inside_a_function_says_why() -> None:
    """Only an optional or heavy dependency is imported inside a function (mpi4py.MPI
    starts MPI, matplotlib takes most of a second, Mininet and os-ken are loaded only by
    what builds a network or runs the controller), and a comment on the import or the line
    above says which. Everything else is imported at the top of the module."""
    by_file: dict[str, list[int]] = {}
    for i in ig.function_level(MODULES, IMPORTS):
        by_file.setdefault(i.source, []).append(i.line)
    bad = [f"{MODULES[m].relative_to(ROOT)}:{line}" for m, lines in sorted(by_file.items())
           for line in without_reason(MODULES[m], lines)]
    assert bad == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """The reading above would catch a cycle, a private import, an import up the floors and
    a function-level import without a reason (modules made up here)."""
    pkg = tmp_path / "collectives"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import _hidden\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n\n\n"
                              "def g():\n    # heavy: a second to load\n    import json\n"
                              "    import csv\n    return 1  # noqa: E\n\n\n"
                              "def h():\n    import io  # type: ignore\n\n\n_hidden = 1\n")
    (tmp_path / "testbed" / "low").mkdir(parents=True)
    (tmp_path / "testbed" / "__init__.py").write_text('"""\n1. ``low/``: x\n2. ``high.py``: y\n"""')
    (tmp_path / "testbed" / "low" / "__init__.py").write_text("def f():\n    from .. import high\n")
    (tmp_path / "testbed" / "high.py").write_text("from . import low\n")
    fake = ig.find_modules(tmp_path)
    imports = ig.all_imports(fake)
    cycles = [sorted(c) for c in nx.simple_cycles(ig.graph(fake, imports))]
    assert sorted(cycles) == [["collectives.a", "collectives.b"], ["testbed.high", "testbed.low"]]
    assert ig.Import("collectives.a", "collectives.b", "_hidden", 1, False) in imports
    floors = ig.read_floors(tmp_path)
    assert floors == [["testbed.low"], ["testbed.high"]]
    assert ig.upward(ig.unit_graph(ig.graph(fake, imports)), floors) == [
        ("testbed.low", "testbed.high")]
    b_lines = [i.line for i in ig.function_level(fake, imports) if i.source == "collectives.b"]
    assert without_reason(fake["collectives.b"], b_lines) == [2, 13]


UNIT = ROOT / "tests" / "unit"


def test_the_unit_tests_mirror_the_source_tree() -> None:
    """tests/unit/<package path>/test_X.py tests <package path>/X.py or the package
    <package path>/X/, so that a test module cannot outlive or miss its module's name; the
    top level holds only the cross-cutting ones tests/unit/__init__.py names."""
    stray = []
    for path in sorted(UNIT.rglob("test_*.py")):
        rel = path.relative_to(UNIT)
        if len(rel.parts) == 1:
            continue
        pkg = ROOT.joinpath(*rel.parts[:-1])
        name = rel.stem.removeprefix("test_")
        if not ((pkg / f"{name}.py").is_file() or (pkg / name / "__init__.py").is_file()):
            stray.append(str(rel))
    assert stray == [], "tests of no source module (tests/unit/<package path>/test_<module>.py)"
    top = sorted(p.name for p in UNIT.glob("test_*.py"))
    listed = sorted(set(re.findall(r"\b(test_[a-z0-9_]+\.py)", (UNIT / "__init__.py").read_text())))
    assert top == listed, "top-level unit tests are cross-cutting and named in its __init__"
    assert [str(d.relative_to(UNIT)) for d in sorted(UNIT.rglob("*"))
            if d.is_dir() and d.name != "__pycache__" and not (d / "__init__.py").is_file()] == []


def test_the_graph_names_a_modules_importers_and_a_functions_parameters() -> None:
    """scripts/import_graph.py --importers and --parameters (issue 54's figures)."""
    assert "testbed.measure.bcast_batch" in ig.importers(ROOT, "testbed.measure.bcast")
    assert "testbed.measure.bcast" not in ig.importers(ROOT, "testbed.measure.bcast")
    assert ig.parameters(ROOT, "testbed.measure.bcast.run_bcast") == ["emu", "call", "options"]


def collectives_part(module: str) -> str:
    """A collectives module's sub-package (collectives.trees), or its top module."""
    return ".".join(module.split(".")[:2])


def test_collectives_sub_packages_import_one_another_one_way() -> None:
    """No two sub-packages of collectives/ reach each other: trees/ stands on contention/
    (trees.schedules builds its trees, DYN-Tree splits its chains), and contention/ imports
    nothing of trees/ (what both use is below both: collectives.ops, collectives.opttree)."""
    parts = nx.DiGraph()
    for i in IMPORTS:
        a, b = collectives_part(i.source), collectives_part(i.target)
        if i.source.startswith("collectives.") and i.target in MODULES \
                and i.target.startswith("collectives.") and a != b:
            parts.add_edge(a, b)
    knots = [sorted(k) for k in nx.strongly_connected_components(parts) if len(k) > 1]
    assert knots == []
    assert parts.has_edge("collectives.trees", "collectives.contention")
    assert not parts.has_edge("collectives.contention", "collectives.trees")


def _public() -> tuple[str, ...]:
    """collectives.PUBLIC, read from collectives/__init__.py (importing collectives is cheap,
    and it is what the testbed imports too)."""
    import collectives  # the stated public set itself (no mpi4py: that loads on first call)

    return collectives.PUBLIC


FACADES = [m for m in _public() if (ROOT / Path(*m.split(".")) / "__init__.py").is_file()
           and m.count(".") == 1 and m != "collectives.programs"]


def test_the_testbed_imports_only_the_public_modules_of_collectives() -> None:
    """As mpi4py does, collectives states its public face (collectives.PUBLIC, the table of
    its docstring): the testbed imports those modules, and a sub-package's names from its
    ``__init__``, never a module private to collectives."""
    assert set(_public()) <= MODULES.keys()
    private = sorted(f"{i.source}:{i.line} -> {i.target}" for i in IMPORTS
                     if i.source.startswith("testbed") and i.target in MODULES
                     and i.target.split(".")[0] == "collectives" and i.target not in _public())
    assert private == []


def test_every_rank_program_is_public() -> None:
    """collectives.programs.X is run by name (python -m) and builds its own argv: each one
    is public, and PUBLIC names no program that is not there."""
    programs = {m for m in MODULES if m.startswith("collectives.programs.")}
    assert programs == {m for m in _public() if m.startswith("collectives.programs.")}


@pytest.mark.parametrize("package", FACADES)
def test_a_sub_packages_public_names_resolve_and_are_what_it_lists(package: str) -> None:
    """Each public name a sub-package declares (under `if TYPE_CHECKING:`, loaded on first
    use by collectives._facade) is in its ``__all__``, loads, and is no submodule's name
    (an imported submodule would shadow it); a name it does not declare is an
    AttributeError, so ``from package import module`` still imports the module."""
    import importlib

    from collectives import _facade  # the declaration reader the packages use

    declared = _facade.declared(package)
    pkg = importlib.import_module(package)
    assert sorted(declared) == sorted(pkg.__all__)
    folder = ROOT / Path(*package.split("."))
    assert [n for n in declared if (folder / f"{n}.py").is_file()] == []
    for name in declared:
        assert getattr(pkg, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = pkg.not_a_name


def test_the_testbed_takes_only_declared_names_from_a_sub_package() -> None:
    """A name the testbed imports from a public sub-package is one it declares (mypy sees
    the package's __getattr__ and would let any other name through)."""
    from collectives import _facade  # the declaration reader the packages use

    wrong = sorted(f"{i.source}:{i.line} {i.target}.{i.name}" for i in IMPORTS
                   if i.source.startswith("testbed") and i.target in FACADES
                   and i.name not in _facade.declared(i.target))
    assert wrong == []


def test_a_sub_package_loads_nothing_until_a_name_is_asked_for() -> None:
    """A rank that imports one module of a sub-package loads that module alone: the
    package's public names load on first use (measured in a fresh interpreter)."""
    probe = ("import sys; import collectives.trees.run; "
             "print(sorted(m for m in sys.modules if m.startswith('collectives.trees.')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert "collectives.trees.latency_model" not in out and "collectives.trees.run" in out


def test_the_script_counts_the_collectives_modules_the_testbed_imports(
        capsys: pytest.CaptureFixture[str]) -> None:
    """scripts/import_graph.py --imported-by testbed --of collectives gives the figure:
    the public modules the testbed uses, each with how many of its modules import it."""
    used = ig.imported_by(MODULES, IMPORTS, "testbed", "collectives")
    assert set(used) <= set(_public()) and used["collectives.call"] > 10
    assert ig.main(["--imported-by", "testbed", "--of", "collectives"]) == 0
    total = sum(m.startswith("collectives") for m in MODULES)
    assert capsys.readouterr().out.startswith(
        f"{len(used)} of {total} modules of collectives imported by testbed")
    for bad in (["--imported-by", "testbed"], ["--imported-by", "testbed", "--of", "nothing"]):
        with pytest.raises(SystemExit) as exc:
            ig.main(bad)
        assert exc.value.code == 2


def test_the_testbed_takes_only_the_names_a_public_module_lists() -> None:
    """A public module of collectives says its public names (``__all__``): the testbed
    imports no other name from it (a program module's, run by name, excepted: its argv is
    read from its parser)."""
    def listed(module: str) -> list[str]:
        for node in ast.parse(MODULES[module].read_text()).body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                return list(ast.literal_eval(node.value))
        return []

    plain = [m for m in _public() if m not in FACADES and not m.startswith("collectives.programs")]
    assert [m for m in plain if not listed(m)] == []
    wrong = sorted(f"{i.source}:{i.line} {i.target}.{i.name}" for i in IMPORTS
                   if i.source.startswith("testbed") and i.target in plain and i.name
                   and i.name not in listed(i.target))
    assert wrong == []
