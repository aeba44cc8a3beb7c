"""Private: how a sub-package of collectives gives the testbed its public names without
loading them in the ranks. A package's ``__init__`` imports its public names under
``if TYPE_CHECKING:`` (what type checkers and readers see, one line per module) and lists
them in ``__all__``; its ``__getattr__`` is ``public_name``, which loads a name's module
when the name is first asked for. A rank that imports one module of the package (its
executor: collectives.trees.run) then loads that module alone, as before: the package's
``__init__`` imports nothing (every rank of a 16-host job shares 2 cores at start-up).

tests/unit/test_layout.py checks that every name so listed resolves and that the testbed
imports collectives only through collectives.PUBLIC."""

from __future__ import annotations

import ast  # loaded anyway: dataclasses imports inspect, which imports ast
import importlib
import sys
from pathlib import Path
from typing import Any

# A rank loads this module with its package (0.3 ms) and nothing more: the package's own
# module object gives its file, and the cache is a plain dict.
_DECLARED: dict[str, dict[str, tuple[str, str]]] = {}


def declared(package: str) -> dict[str, tuple[str, str]]:
    """The public names of `package` (a dotted name): each name -> (its module, relative
    to the package as written, e.g. ".latency_model"; the name there), read from the
    package's ``if TYPE_CHECKING:`` block."""
    if package in _DECLARED:
        return _DECLARED[package]
    origin = importlib.import_module(package).__file__
    assert origin is not None, package
    out: dict[str, tuple[str, str]] = {}
    for node in ast.parse(Path(origin).read_text()).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom):
                    module = "." * imp.level + (imp.module or "")
                    out |= {a.asname or a.name: (module, a.name) for a in imp.names}
    _DECLARED[package] = out
    return out


def public_name(package: str, name: str) -> Any:
    """`package`'s public `name`, its module loaded on first use and the value kept as a
    plain attribute of the package from then on; AttributeError for any other name (so
    ``from package import submodule`` still imports the submodule)."""
    where = declared(package).get(name)
    if where is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, original = where
    value = getattr(importlib.import_module(module, package), original)
    setattr(sys.modules[package], name, value)
    return value
