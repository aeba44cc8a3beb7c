"""mpi4py's vendored tests under collectives.use for several choices of algorithms, one
after the other in one MPI job (test_mpi4py_suite.py: a job's start-up, ~0.7 s of imports
and MPI's own, once instead of once per algorithm).

    python -m mpi4py mpi4py_runs.py '[["binomial", "tree", {}, null, ["-x", "Dup"]], ...]' \
        -- runtests.py ARGS

For each [bcast, barrier, options, allgather or null, more runtests arguments]:
`collectives.use.main`, the function behind ``python -m collectives.use --bcast B --barrier R
-o NAME=VALUE ... -- runtests.py ARGS MORE``, runs the suite (with an allgather:
``--allgather A``, and the suite's allgather tests selected too, ``-k Allgather
-k allgather``; MORE, e.g. ``-x Dup``, leaves out the test classes a run need not repeat), its test
modules imported afresh (their classes take MPI.COMM_WORLD, the choice's stand-in, when they
are defined) and the calls counted from zero; then the calls
(and the t_hold/t_end the run measured on first use) are printed as ``--report`` prints
them at exit. What was measured stays with MPI.COMM_WORLD's handle: a later run that needs
the same sizes measures nothing. A line ``@@ mpi4py run B`` on stdout and on
stderr opens each run's output. Exits 1 if any run failed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MARK = "@@ mpi4py run "


def main() -> int:
    from collectives import intracomm, use  # MPI starts here, not where MARK is imported

    cut = sys.argv.index("--")
    choices, program = json.loads(sys.argv[1]), sys.argv[cut + 1:]
    suite = Path(program[0]).resolve().parent
    failed = False
    for bcast, barrier, options, allgather, more in choices:
        for out in (sys.stdout, sys.stderr):
            print(f"{MARK}{bcast}", file=out, flush=True)
        for name, module in list(sys.modules.items()):
            if Path(getattr(module, "__file__", None) or "/").parent == suite:
                del sys.modules[name]
        intracomm.CALLS.clear()
        intracomm.BYTES.clear()
        intracomm.MEASURED.clear()  # what this run measured, not an earlier one
        argv = ["--bcast", bcast, "--barrier", barrier]
        for name, value in options.items():
            argv += ["-o", f"{name}={json.dumps(value)}"]
        extra = list(more)
        if allgather:
            argv += ["--allgather", allgather]
            extra += ["-k", "Allgather", "-k", "allgather"]
        try:
            code = use.main([*argv, "--", *program, *extra])
        except SystemExit as e:  # the suite's runner exits with its verdict
            code = e.code
        failed |= bool(code)
        use.report()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
