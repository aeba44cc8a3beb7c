"""The API reference: HTML pages made by pdoc from the docstrings of the public API.

    .venv/bin/python scripts/api_reference.py [OUT]      (default build/api; `make docs`)

writes OUT/index.html and one page per module of MODULES (and the submodules their
`__all__` names), and prints every warning pdoc gave (a name in `__all__` that does not
resolve, a docstring or annotation it could not read); with a warning the exit code is 1
and the pages are still written. No root, no network: it imports the modules, as pdoc reads
what Python sees (signatures, defaults, docstrings).

The reference is built, not kept in git: `make docs` makes it on the user's machine from the
checkout they run. tests/unit/test_api_reference.py builds it into a temporary folder on
every test run and checks that it names every public function and class of MODULES (and
the public methods of their classes), so it cannot fall behind the code. A module added to
the public API is added here, and docs/api.md lists the same.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import pdoc

import collectives

ROOT = Path(__file__).resolve().parents[1]

# The public API (docs/api.md): what a user's own Python program imports.
MODULES = (
    "testbed.emulation.network",     # Emulation: a network up, torn down
    "testbed.emulation.mpi",         # run_mpi: an MPI job across its hosts
    "testbed.measure.bcast",         # run_bcast: one measured broadcast
    "testbed.measure.options",       # RunOptions: how it is measured, one bundle
    "testbed.measure.params",        # measure_params: t_hold/t_end on the network
    "testbed.measure.bcast_result",  # BcastResult: what run_bcast returns
    "testbed.measure.times",         # Times: a sample of times summarized
    "collectives",                   # bcast, barrier, Intracomm: inside the MPI ranks
    "collectives.call",              # BcastCall, BarrierCall, AllgatherCall: one call each
    "collectives.algorithms",        # the registry: every algorithm, its family and needs
    "topologies",                    # parse_spec, Topology and the shapes
)


def build(out: Path) -> list[str]:
    """Write the reference into `out`; return pdoc's warnings, one line each."""
    # collectives.Intracomm is loaded on first use (it starts MPI): name it, so that pdoc,
    # which reads a module's own attributes, finds it beside bcast and barrier
    _ = collectives.Intracomm
    pdoc.render.configure(docformat="markdown", footer_text="mcastlab API reference",
                          search=True, show_source=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=out)
    return [f"{w.category.__name__}: {w.message}" for w in caught
            if "pdoc" in w.filename or issubclass(w.category, UserWarning)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path, default=ROOT / "build" / "api",
                    help="the folder to write (default build/api)")
    args = ap.parse_args(argv)
    said = build(args.out)
    for line in said:
        print(f"api_reference: {line}", file=sys.stderr)
    print(f"API reference: {args.out / 'index.html'}"
          + (f" ({len(said)} warning(s))" if said else ""))
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main())
