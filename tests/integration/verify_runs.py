"""Several runs of collectives.programs.verify in one MPI job: its `main`, called with each
run's arguments in turn, as ``python -m collectives.programs.verify ARGS`` would run them one
job each. A job's start-up (hydra's launch, each rank's imports and MPI's own: 1-3 s here)
is paid once instead of once per run. Each run's records (one JSON line per communicator,
from its rank 0) follow a line MARK + the run's index on every rank's output.

    python verify_runs.py '[["--sizes", "0,1"], ["--sizes", "1048576", "--roots", "0"]]'

What a run leaves for the next stays what one job's ranks share: the communicator's
multicast channel and its datagram counters (a later run's "datagrams" count the earlier
runs' too), and the multicast group leases, given back when the job ends. Exits 1 if any
run saw a wrong byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

MARK = "@@ verify run "


def verify_runs(emu: Any, runs: list[list[str]], *, hosts: Any = None,
                timeout: float = 300) -> list[list[dict]]:
    """The records of each run (in order), from one job on `hosts`; asserts none holds an
    error (a wrong byte) and that the job succeeded."""
    # here, not at the top: the ranks run this file and need none of the testbed
    from testbed.emulation.mpi import run_mpi

    res = run_mpi(emu, [str(Path(__file__).resolve()), json.dumps(runs)], hosts=hosts,
                  timeout=timeout)
    got: list[list[dict]] = [[] for _ in runs]
    for out in res.rank_output.values():
        for part in out.split(MARK)[1:]:
            index, _, text = part.partition("\n")
            got[int(index)] += [json.loads(ln) for ln in text.splitlines()
                                if ln.startswith("{")]
    assert not [r for run in got for r in run if "error" in r], got
    return got


def main() -> int:
    # in the ranks only (the test side needs none of the collectives)
    from collectives.programs.verify import main as verify

    bad = 0
    for i, args in enumerate(json.loads(sys.argv[1])):
        print(f"{MARK}{i}", flush=True)
        bad |= verify(args)
    return bad


if __name__ == "__main__":
    sys.exit(main())
