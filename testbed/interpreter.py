"""The interpreter every helper process runs: this venv's Python, blind to the directory it
was started from.

The testbed runs as root and starts its helpers (the controller, MPI ranks, host programs,
traffic generators, the cluster agent, import probes) as ``python -m name`` or ``python -c
code``. Either puts the current directory first on ``sys.path``, so a ``controller/`` or
``mpi4py/`` that anyone could write where root happens to stand would be imported as root.
``-P`` (Python 3.11) leaves the current directory out, ``-s`` root's user site-packages;
unlike ``-I`` it still reads the environment, which the ranks' unbuffered output
(PYTHONUNBUFFERED) relies on. The editable install and the venv's packages are found as
before: they come from site-packages, not from the current directory.
"""

from __future__ import annotations

import sys
from pathlib import Path

FLAGS = ("-P", "-s")
PYTHON: tuple[str, ...] = (sys.executable, *FLAGS)


def module(name: str, *args: object, python: str | Path = sys.executable) -> list[str]:
    """The argv that runs module `name` with `args` under `python` (default this venv's)
    with FLAGS."""
    return [str(python), *FLAGS, "-m", name, *map(str, args)]


def code(source: str, *args: object, python: str | Path = sys.executable) -> list[str]:
    """The argv that runs `source` (python -c) with `args` under `python` with FLAGS."""
    return [str(python), *FLAGS, "-c", source, *map(str, args)]
