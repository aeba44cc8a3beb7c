"""The ``mcastlab`` command line (pyproject's [project.scripts] runs `main`)."""

from .main import main

__all__ = ["main"]
