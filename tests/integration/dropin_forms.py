"""An MPI program (run by test_dropin.py on emulated hosts) putting every message form to
collectives.Intracomm's Bcast from every root, next to a Dup used side by side with the
original, Split and Create results, and a root outside the communicator. Every rank prints
one JSON line per algorithm: the checks that failed (none expected) and what its
communicators run. Several algorithms run one after the other in one job (a job's start-up
once), each with its own communicators and its calls counted from zero.

    python -m mpi4py dropin_forms.py '[["binomial", {}], ["u-mesh", {"mesh": [2, 2]}]]'
"""

from __future__ import annotations

import array
import json
import sys

import numpy as np
from mpi4py import MPI

import collectives
from collectives import intracomm


def forms(c, root: int, bad: list[str]) -> None:
    r = c.Get_rank()
    me = r == root

    def expect(name: str, got, want) -> None:
        if not np.array_equal(np.asarray(got), np.asarray(want)):
            bad.append(f"{name} root {root}: {np.asarray(got).tolist()}")

    a = np.arange(10, dtype="d") if me else np.zeros(10)
    c.Bcast(a, root)
    expect("float64", a, np.arange(10))
    f = (np.asfortranarray(np.arange(6, dtype="i4").reshape(2, 3)) if me
         else np.zeros((2, 3), "i4", order="F"))
    c.Bcast(f, root)
    expect("fortran order", f, np.arange(6).reshape(2, 3))
    holes = MPI.DOUBLE.Create_indexed_block(1, [1, 3, 5]).Commit()
    h = np.arange(6, dtype="d") if me else np.full(6, -1.0)
    c.Bcast([h, 1, holes], root)
    holes.Free()
    expect("indexed, holes kept", h, np.arange(6) if me else [-1, 1, -1, 3, -1, 5])
    d = np.arange(6, dtype="i8") if me else np.zeros(6, "i8")
    c.Bcast([d, (2, 1), MPI.INT64_T], root)
    expect("(count, displ)", d, np.arange(6) if me else [0, 1, 2, 0, 0, 0])
    x, y = np.arange(3, dtype="i8") * (root + 1), np.full(2, 0.5 + root)
    if not me:
        x[:], y[:] = 0, 0
    st = MPI.Datatype.Create_struct([3, 2], [MPI.Get_address(x), MPI.Get_address(y)],
                                    [MPI.INT64_T, MPI.DOUBLE]).Commit()
    c.Bcast([MPI.BOTTOM, 1, st], root)
    st.Free()
    expect("BOTTOM struct", np.concatenate([x, y]),
           np.concatenate([np.arange(3) * (root + 1), np.full(2, 0.5 + root)]))
    c.Bcast([None, MPI.INT], root)
    c.Bcast(np.zeros(0, "f4"), root)
    b = b"read-only at the root" if me else bytearray(21)
    c.Bcast(b, root)
    expect("bytes", list(b), list(b"read-only at the root"))
    arr = array.array("h", range(-5, 5)) if me else array.array("h", [0] * 10)
    c.Bcast(arr, root)
    expect("array.array", list(arr), list(range(-5, 5)))
    big = (np.arange(300_000, dtype="u1") if me else np.zeros(300_000, "u1"))
    c.Bcast(big, root)
    expect("300 kB", big[::997], np.arange(300_000, dtype="u1")[::997])
    o = c.bcast({"root": root, "l": list(range(50))} if me else None, root)
    if o != {"root": root, "l": list(range(50))}:
        bad.append(f"object root {root}: {o!r}")


def main() -> None:
    for bcast, opts in json.loads(sys.argv[1]):
        intracomm.CALLS.clear()
        run(bcast, opts)


def run(bcast: str, opts: dict) -> None:
    world = collectives.Intracomm(MPI.COMM_WORLD, bcast=bcast, barrier="tree", **opts)
    other = collectives.Intracomm(MPI.COMM_WORLD, bcast="chain", barrier="mpich")
    r, bad = world.Get_rank(), []
    dup = world.Dup()
    forms(other, 0, bad)  # beside `world`, on the same handle, with its own choice
    for root in range(world.Get_size()):
        forms(world, root, bad)
        forms(dup, (root + 1) % world.Get_size(), bad)  # side by side with the original
        world.Barrier()
        dup.barrier()
    half = world.Split(r % 2, r)
    forms(half, np.int64(0), bad)  # any integer is a root
    made = world.Create(world.Get_group().Incl([0, 1]))
    if made != MPI.COMM_NULL:
        forms(made, 1, bad)
    roots = []
    for root in (world.Get_size(), -1, "0"):
        try:
            world.Bcast(bytearray(4), root)
        except MPI.Exception as e:
            roots.append(e.Get_error_class() == MPI.ERR_ROOT)
    kinds = {name: [type(c).__name__, *c.algorithms[:2], c.algorithms[2].get("nodes")]
             for name, c in (("dup", dup), ("split", half), ("create", made))
             if c != MPI.COMM_NULL}
    calls = {f"{kind} {name}": n for (kind, name), n in intracomm.CALLS.items()}
    side = {"world": world.algorithms[0], "other": other.algorithms[0],
            "other dup": other.Dup().algorithms[0], "chain calls": calls.get("bcast chain", 0),
            "own calls": calls.get(f"bcast {bcast}", 0)}
    dup.Free()
    half.Free()
    print(json.dumps({"rank": r, "algorithm": bcast, "bad": bad, "kinds": kinds,
                      "err_root": roots, "side": side}), flush=True)


if __name__ == "__main__":
    main()
