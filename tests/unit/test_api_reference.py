"""The API reference (scripts/api_reference.py, `make docs`, docs/api.md) builds without a
warning from pdoc and names every public function and class of the modules it covers, and
every public method of their classes: a function added to the public API and not to the
reference, or a docstring pdoc cannot read, fails here, so the reference cannot go stale.

Public: in the module's `__all__` where it has one, else every function and class the module
defines whose name does not start with "_". The names are read from the source (ast), not by
importing, so the check does not lean on what pdoc saw. The build runs in its own process:
it imports the modules (and collectives.Intracomm starts MPI), which this one should not.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "api_reference.py"


def _script_modules() -> tuple[str, ...]:
    """MODULES of scripts/api_reference.py, read from its source (no pdoc import here)."""
    tree = ast.parse(SCRIPT.read_text())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "MODULES"):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("scripts/api_reference.py has no MODULES")


MODULES = _script_modules()


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module.split(".")[0])
    assert spec is not None and spec.submodule_search_locations
    base = Path(next(iter(spec.submodule_search_locations))).parent
    path = base / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def public_names(module: str) -> list[str]:
    """Every public function and class of `module`, and "Class.method" for the public methods
    (properties too) of the classes it defines."""
    tree = ast.parse(_source(module).read_text())
    defined = {n.name: n for n in tree.body
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    names: list[str] = []
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "__all__"):
            names = list(ast.literal_eval(node.value))
    if not names:
        names = [n for n in defined if not n.startswith("_")]
    out = list(names)
    for name in names:
        cls = defined.get(name)
        if isinstance(cls, ast.ClassDef):
            out += [f"{name}.{m.name}" for m in cls.body
                    if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not m.name.startswith("_")]
    return out


def _page(out: Path, module: str) -> Path:
    parts = module.split(".")
    return out.joinpath(*parts[:-1], parts[-1] + ".html")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("api")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(out)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    return out, proc


def test_the_reference_builds_without_a_warning(built) -> None:
    out, proc = built
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stderr.lower(), proc.stderr
    assert (out / "index.html").is_file()


def test_the_reference_covers_the_api_the_docs_name() -> None:
    """What docs/api.md and the issue name: the emulation, MPI jobs, one measured broadcast,
    the drop-in, the algorithms' registry and the topologies."""
    assert {"testbed.emulation.network", "testbed.emulation.mpi", "testbed.measure.bcast",
            "testbed.measure.params", "testbed.measure.bcast_result", "testbed.measure.times",
            "collectives", "collectives.call", "collectives.algorithms",
            "topologies"} <= set(MODULES)
    api_md = (ROOT / "docs" / "api.md").read_text()
    assert [m for m in MODULES if f"`{m}`" not in api_md] == []


@pytest.mark.parametrize("module", MODULES)
def test_the_reference_names_every_public_function(built, module: str) -> None:
    out, _ = built
    page = _page(out, module)
    assert page.is_file(), f"no page for {module}"
    ids = set(re.findall(r'id="([^"]+)"', page.read_text()))
    wanted = public_names(module)
    assert wanted, f"{module}: no public names found"
    assert [n for n in wanted if n not in ids] == []


def test_the_public_names_are_read_as_the_check_means() -> None:
    """The reading itself: __all__ where there is one, else the public definitions, and the
    public methods of classes."""
    assert {"Intracomm", "bcast", "barrier", "allgather", "allgatherv"} == set(
        public_names("collectives"))
    emulation = public_names("testbed.emulation.network")
    assert {"Emulation", "Emulation.start", "Emulation.stop", "Emulation.set_loss"} <= set(
        emulation)
    assert not [n for n in emulation if n.split(".")[-1].startswith("_")]
    assert "run_bcast" in public_names("testbed.measure.bcast")
    assert "measure_params" in public_names("testbed.measure.params")
    assert {"parse_spec", "Topology"} <= set(public_names("topologies"))
