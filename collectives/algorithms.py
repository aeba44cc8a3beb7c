"""Every broadcast, barrier and allgather the project runs, one record each: the one list the
executor, the command line, experiment specs, placement, reports and benchmarks read
(as Mininet's `bin/mn` reads its choice dictionaries, and topologies.registry.SHAPES).

A record says what an algorithm is (its family: how it moves bytes; the paper it comes
from, by citation key, docs/references.md) and what it needs from its caller: the model's
timing parameters (t_hold, t_end), the shape of the network (mesh=, torus=, bmin=,
fattree=) and where every rank sits (nodes=). How a family runs is the executor's
(collectives.executor.RUNNERS), how a point-to-point tree is built is collectives.trees.schedules'.
Plain data: importing it imports no algorithm."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["ALLGATHERS", "Algorithm", "BARRIERS", "BCASTS", "COMPLETIONS", "DEFAULT_COMPLETION",
           "DEFAULT_SEND_ORDER", "ELSEWHERE", "Elsewhere", "FAMILIES", "Foreign",
           "LIBRARIES", "NATIVE", "Named", "SEND_ORDERS", "allgather_algorithm",
           "barrier_algorithm", "bcast_algorithm", "check_ack_options", "check_choice",
           "check_completion", "check_release", "check_send_order", "foreign", "lookup",
           "mpich_function", "names", "records", "resolve"]

# family -> what it is (the executor has one runner per family)
FAMILIES = {
    "mpi": "the MPI library's own collective, measured as the baseline",
    "tree": "a point-to-point tree, built as a schedule",
    "contention": "a point-to-point tree placed so that its sends avoid each other",
    "dynamic": "a point-to-point tree that grows from who is free at run time",
    "multicast": "IP multicast through the controller's groups",
    "range": "a tree of hardware multicasts that each reach a range of nodes",
    "exchange": "point-to-point exchanges among all ranks, as a schedule of steps",
}


# how a point-to-point tree's node sends to its children (Algorithm.send_order):
SEND_ORDERS = {
    "fifo": "one message after the other: the next send starts when the previous message "
            "has left the host (Nupairoj1998's model, OPT-Tree's construction)",
    "overlapped": "every send started as soon as MPI took the previous one, so the messages "
                  "to the children share the node's link",
}
DEFAULT_SEND_ORDER = "fifo"


def check_choice(option: str, value: object, choices: Mapping[str, str]) -> str:
    """`value` if it is one of `choices`, else ValueError naming `option` and the choices."""
    if value not in choices:
        raise ValueError(f"{option} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def check_send_order(value: object) -> str:
    return check_choice("send_order", value, SEND_ORDERS)


# how a scout broadcast's receivers end it (Algorithm.completion): named for what differs,
# whether a receiver positively says it is complete
COMPLETIONS = {
    "report": "every receiver reports 'complete' and the root repairs what is reported "
              "missing until all have (nack's protocol): reliable whatever the loss",
    "none": "Chen2000's: no positive completion; the root returns after its multicast, a "
            "receiver speaks only when it detects a gap, which the root repairs from its "
            "next wait on the channel (collectives.ipmc.gaps)",
}
DEFAULT_COMPLETION = "report"


def check_completion(value: object) -> str:
    return check_choice("completion", value, COMPLETIONS)


# how completion reports reach the root (collectives.ipmc.acktree): options of a broadcast
# whose receivers report (Algorithm.reports)
ACK_OPTIONS = ("acks", "ack_fanout")


def check_ack_options(algorithm: Algorithm, completion: str | None,
                      options: Iterable[str]) -> None:
    """ValueError for ACK_OPTIONS given to a broadcast whose receivers do not report."""
    given = [o for o in ACK_OPTIONS if o in options]
    if given and (not algorithm.reports or completion == "none"):
        takers = [a.name for a in _ALL if a.reports]
        raise ValueError(f"{algorithm.name}: {' and '.join(given)} are options of a broadcast "
                         f"with completion reports ({', '.join(takers)}; not completion "
                         "none)")


# how the multicast barrier releases the ranks (Algorithm.release)
RELEASES = {
    "both": "one multicast, and a zero-byte release down the arrival tree point to point: "
            "a rank whose multicast release is lost returns one hop later (2N - 1 messages)",
    "multicast": "Chen2000's: the one multicast alone (N messages), no recovery: a lost "
                 "release ends in the barrier's deadline error",
}
DEFAULT_RELEASE = "both"


def check_release(value: object) -> str:
    return check_choice("release", value, RELEASES)


@dataclass(frozen=True)
class Algorithm:
    name: str
    family: str
    paper: str  # citation key (docs/references.md); "" for the MPI library's own
    summary: str
    collective: str = "bcast"  # or "barrier", "allgather" (COLLECTIVES)
    timing: bool = False  # takes the model's t_hold/t_end (OPT trees; the dynamic ones their six)
    geometry: str = ""  # the network's shape parameter it needs: mesh, torus, bmin, fattree
    scheduled: bool = False  # a point-to-point schedule (collectives.trees.schedules.build)
    static: str = ""  # a dynamic tree: the scheduled tree it builds at zero load

    @property
    def zero_load(self) -> str:
        """The scheduled algorithm whose tree this one builds at zero load: a dynamic tree's
        static one (its prediction, its drawing), else itself."""
        return self.static or self.name

    @property
    def zero_load_algorithm(self) -> Algorithm:
        """zero_load's record (a dynamic tree's static one, else itself)."""
        return BCASTS[self.static] if self.static else self

    @property
    def nodes(self) -> bool:
        """Told which network node every rank is on (nodes=, testbed.measure.rank_placement)."""
        return bool(self.geometry)

    @property
    def send_order(self) -> bool:
        """A point-to-point tree whose nodes send in a send_order (SEND_ORDERS)."""
        return self.family in ("tree", "contention", "dynamic")

    @property
    def completion(self) -> bool:
        """A scout broadcast, whose receivers end it in a completion (COMPLETIONS)."""
        return self.family == "multicast" and self.name.startswith("scout-")

    @property
    def reports(self) -> bool:
        """A multicast broadcast whose receivers report their completion (nack; a scout
        broadcast unless its completion is "none"): it takes ACK_OPTIONS."""
        return self.family == "multicast" and (self.name == "nack" or self.completion)

    @property
    def release(self) -> bool:
        """The multicast barrier, which releases the ranks in a release (RELEASES)."""
        return self.collective == "barrier" and self.family == "multicast"

    @property
    def model_tree(self) -> bool:
        """A point-to-point tree the t_hold/t_end model builds without the network (DYN-Tree
        as the OPT-Tree it is at zero load; not DYN-Mesh, placed on a mesh as OPT-Mesh is):
        what predictions and tree drawings cover."""
        return self.family == "tree" or (self.family == "dynamic" and not self.geometry)


NATIVE = "mpich"  # MPI_Bcast / MPI_Barrier of the MPI library: never scheduled

_ALL = (
    Algorithm(NATIVE, "mpi", "", "MPICH's MPI_Bcast (its own choice of algorithm)"),
    Algorithm("sequential", "tree", "Nupairoj1998",
              "the root sends to every rank in turn (flat tree)", scheduled=True),
    Algorithm("binomial", "tree", "Nupairoj1998",
              "MPICH's bit order: the root of 9 sends to 8, 4, 2, 1", scheduled=True),
    Algorithm("binary", "tree", "Nupairoj1998", "complete binary tree (children 2i+1, 2i+2)",
              scheduled=True),
    Algorithm("chain", "tree", "Nupairoj1998", "0 -> 1 -> 2 -> ...", scheduled=True),
    Algorithm("fragmented-chain", "tree", "Siebert2006",
              "the chain, pipelined in fragments (fragment= bytes)", scheduled=True),
    Algorithm("scatter-allgather", "tree", "",
              "binomial scatter of k chunks, then a ring allgather", scheduled=True),
    Algorithm("opt-tree", "tree", "Nupairoj1998",
              "the optimal tree for given t_hold and t_end", timing=True, scheduled=True),
    Algorithm("block-binomial", "tree", "Nupairoj1998",
              "MPI-F's MPI_Bcast: a binomial tree over block leaders, each serving its "
              "block in turn (blocksize= nodes a block)", scheduled=True),
    Algorithm("opt-mesh", "contention", "Nupairoj1998",
              "OPT-Tree placed in a mesh's routing order", timing=True, geometry="mesh",
              scheduled=True),
    Algorithm("u-mesh", "contention", "Nupairoj1998",
              "contention-free binomial tree on a mesh", geometry="mesh", scheduled=True),
    Algorithm("u-torus", "contention", "Nupairoj1998",
              "contention-free binomial tree on a torus", geometry="torus", scheduled=True),
    Algorithm("opt-min", "contention", "Nupairoj1998",
              "OPT-Tree placed in a BMIN's routing order", timing=True, geometry="bmin",
              scheduled=True),
    Algorithm("u-min", "contention", "Nupairoj1998",
              "contention-free binomial tree on a BMIN (Xu and Ni's U-Min)", geometry="bmin",
              scheduled=True),
    Algorithm("dyn-tree", "dynamic", "Nupairoj1998",
              "OPT-Tree splits under estimates from what recent sends cost", timing=True,
              static="opt-tree"),
    Algorithm("dyn-mesh", "dynamic", "Nupairoj1998",
              "DYN-Tree's estimates splitting a mesh's routing order as OPT-Mesh does",
              timing=True, geometry="mesh", static="opt-mesh"),
    Algorithm("dyn-min", "dynamic", "Nupairoj1998",
              "DYN-Tree's estimates splitting a BMIN's routing order as OPT-Min does",
              timing=True, geometry="bmin", static="opt-min"),
    Algorithm("two-stage", "multicast", "Siebert2006",
              "an unsynchronised multicast, completed by a fragmented chain"),
    Algorithm("nack", "multicast", "",
              "multicast repaired on receivers' reports (ours; docs/reliable-multicast.md)"),
    Algorithm("scout-linear", "multicast", "Chen2000",
              "zero-byte scouts gathered to the root, then one multicast"),
    Algorithm("scout-binary", "multicast", "Chen2000",
              "scouts gathered up a binary tree, then one multicast"),
    Algorithm("range-tree", "range", "Coll2003",
              "a tree of range multicasts over a fat tree's node numbering",
              geometry="fattree"),
    Algorithm(NATIVE, "mpi", "", "MPICH's MPI_Barrier", collective="barrier"),
    Algorithm("tree", "tree", "Chen2000",
              "zero-byte messages up a binary tree to rank 0 and back down",
              collective="barrier"),
    Algorithm("pairwise", "exchange", "Chen2000",
              "MPICH 1's barrier: the ranks beyond the largest power of two pair in, "
              "recursive doubling, release", collective="barrier"),
    Algorithm("mcast", "multicast", "Chen2000",
              "arrivals up a binary tree, released by one multicast", collective="barrier"),
    Algorithm("range-tree", "range", "Coll2003",
              "arrivals up a binary tree, released down a tree of range multicasts",
              collective="barrier", geometry="fattree"),
    Algorithm(NATIVE, "mpi", "", "MPICH's MPI_Allgather (its own choice of algorithm)",
              collective="allgather"),
    Algorithm("ring", "exchange", "Thakur2005",
              "p - 1 steps: every rank passes the block it received last to its right "
              "neighbour", collective="allgather"),
    Algorithm("recursive-doubling", "exchange", "Thakur2005",
              "ceil(log2 p) steps: partners at distance 1, 2, 4, ... swap all they hold; "
              "where a partner is missing (p not a power of two), a rank of its half sends",
              collective="allgather"),
    Algorithm("bruck", "exchange", "Bruck1997",
              "ceil(log2 p) steps: rank r sends what it holds to r - 2^k and receives from "
              "r + 2^k", collective="allgather"),
    Algorithm("mcast-sequential", "multicast", "",
              "every rank in turn broadcasts its block with nack (ours)",
              collective="allgather"),
    Algorithm("mcast-concurrent", "multicast", "",
              "every rank multicasts its block at once on one group, each receiver "
              "reporting the gaps of all senders in one datagram (ours; "
              "docs/allgather-multicast.md)", collective="allgather"),
)

# ---- the names users know: MPICH, Open MPI, SimGrid ----------------------------------------
# library -> what its name selects and where the list of names comes from (docs/algorithms.md
# cites them): MPICH 4's control variables, Open MPI's coll/tuned forced algorithm (its
# ompi/mca/coll/tuned/coll_tuned_{bcast,barrier}_decision.c), SimGrid SMPI's --cfg options
# (docs/source/app_smpi.rst, "Collective operations"); allgather's likewise
# (coll_tuned_allgather_decision.c).
LIBRARIES = {
    "mpich": "MPICH 4: MPIR_CVAR_{BCAST,BARRIER,ALLGATHER}_INTRA_ALGORITHM",
    "openmpi": "Open MPI coll/tuned: coll_tuned_{bcast,barrier,allgather}_algorithm",
    "simgrid": "SimGrid SMPI: --cfg=smpi/{bcast,barrier,allgather}:NAME",
}


@dataclass(frozen=True)
class Elsewhere:
    """An algorithm's name in another library: `same` when it is the same algorithm (the
    same tree, the same messages), else only the closest there is; `note` says how."""

    name: str
    same: bool = True
    note: str = ""


def _closest(name: str, note: str) -> Elsewhere:
    return Elsewhere(name, False, note)


# (collective, name) -> library -> its name there; a library without one is left out
ELSEWHERE: dict[tuple[str, str], dict[str, Elsewhere]] = {
    ("bcast", NATIVE): {
        "mpich": Elsewhere("auto", note="MPI_Bcast's own choice: this is MPICH's"),
        "simgrid": _closest("mpich", "SimGrid's copy of MPICH's selection rules"),
    },
    ("bcast", "sequential"): {
        "openmpi": Elsewhere("basic_linear"),
        "simgrid": Elsewhere("flattree"),
    },
    ("bcast", "binomial"): {
        "mpich": Elsewhere("binomial"),
        "openmpi": _closest("binomial", "segmented by coll_tuned_bcast_algorithm_segmentsize "
                                       "(0: the whole message, as here)"),
        "simgrid": Elsewhere("binomial_tree"),
    },
    ("bcast", "binary"): {
        "openmpi": _closest("binary_tree", "Open MPI's balanced binary tree, segmented"),
        "simgrid": _closest("NTSB", "a binary tree pipelined in 8192-byte pieces"),
    },
    ("bcast", "chain"): {
        "openmpi": _closest("chain", "with coll_tuned_bcast_algorithm_chain_fanout 1 and no "
                                     "segments; by default several chains, segmented"),
    },
    ("bcast", "fragmented-chain"): {
        "mpich": _closest("pipelined_tree", "with MPIR_CVAR_BCAST_TREE_TYPE=kary and "
                                            "MPIR_CVAR_BCAST_TREE_KVAL=1: a chain, in chunks "
                                            "of MPIR_CVAR_BCAST_TREE_PIPELINE_CHUNK_SIZE"),
        "openmpi": Elsewhere("pipeline", note="a chain of fanout 1 in segments (fragment= "
                                              "is its segment size)"),
        "simgrid": Elsewhere("ompi_pipeline", note="also NTSL (8192-byte pieces)"),
    },
    ("bcast", "scatter-allgather"): {
        "mpich": Elsewhere("scatter_ring_allgather"),
        "openmpi": Elsewhere("scatter_allgather_ring"),
        "simgrid": Elsewhere("scatter_LR_allgather"),
    },
    ("barrier", NATIVE): {
        "mpich": Elsewhere("auto", note="MPI_Barrier's own choice: this is MPICH's"),
        "simgrid": _closest("mpich", "SimGrid's copy of MPICH's selection rules"),
    },
    ("barrier", "tree"): {
        "openmpi": _closest("tree", "arrivals up and a release down a binomial tree, not a "
                                    "binary one"),
        "simgrid": _closest("ompi_tree", "Open MPI's, as above"),
    },
    ("barrier", "pairwise"): {
        "openmpi": Elsewhere("recursive_doubling", note="MPICH 1's: the ranks beyond the "
                                                        "largest power of two pair in first"),
        "simgrid": Elsewhere("ompi_recursivedoubling", note="also mvapich2_pair"),
    },
    ("allgather", NATIVE): {
        "mpich": Elsewhere("auto", note="MPI_Allgather's own choice: this is MPICH's"),
        "simgrid": _closest("mpich", "SimGrid's copy of MPICH's selection rules"),
    },
    ("allgather", "ring"): {
        "mpich": Elsewhere("ring"),
        "openmpi": Elsewhere("ring"),
        "simgrid": Elsewhere("ring"),
    },
    ("allgather", "recursive-doubling"): {
        "mpich": _closest("recursive_doubling", "a power of two only (MPICH 4 falls back "
                                                "to another for other p)"),
        "openmpi": _closest("recursive_doubling", "a power of two only (else its Bruck)"),
        "simgrid": _closest("rdb", "for other p MPICH 2's (Thakur2005): the missing halves "
                                   "sent on in extra steps, not by one rank of the half"),
    },
    ("allgather", "bruck"): {
        "mpich": Elsewhere("brucks"),
        "openmpi": Elsewhere("bruck"),
        "simgrid": Elsewhere("bruck"),
    },
}

BCASTS: dict[str, Algorithm] = {a.name: a for a in _ALL if a.collective == "bcast"}
BARRIERS: dict[str, Algorithm] = {a.name: a for a in _ALL if a.collective == "barrier"}
ALLGATHERS: dict[str, Algorithm] = {a.name: a for a in _ALL if a.collective == "allgather"}
# collective -> its records, in the registry's order
COLLECTIVES: dict[str, dict[str, Algorithm]] = {
    "bcast": BCASTS, "barrier": BARRIERS, "allgather": ALLGATHERS}


def records(collective: str) -> dict[str, Algorithm]:
    """The records of `collective` (COLLECTIVES), or ValueError naming the collectives."""
    return COLLECTIVES[check_choice("collective", collective, dict.fromkeys(COLLECTIVES, ""))]


def names(*families: str, collective: str = "bcast") -> tuple[str, ...]:
    """The algorithms of these families (all without), in the registry's order."""
    return tuple(n for n, a in records(collective).items()
                 if not families or a.family in families)


# ---- the one look-up of a name --------------------------------------------------------------
# collective -> what its algorithms are called in the one message for an unknown name
NOUNS = {"bcast": "broadcast", "barrier": "barrier", "allgather": "allgather"}


def lookup(collective: str, name: str) -> Algorithm:
    """The record of `collective`'s algorithm `name`, or ValueError, the same wording for
    every caller: "unknown broadcast 'x'; choose from ...". Where a call is made
    (collectives.call) this runs once, and the record travels with the call."""
    table = records(collective)
    try:
        return table[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown {NOUNS[collective]} {name!r}; choose from "
                         f"{', '.join(table)}") from None


# An algorithm given by name (looked up) or as its record (a typed call's, collectives.call:
# looked up where the call was made, never again).
Named = str | Algorithm


def resolve(collective: str, algorithm: Named) -> Algorithm:
    """The record of `algorithm`: itself when it is one (of `collective`), else lookup's."""
    if isinstance(algorithm, Algorithm):
        if algorithm.collective != collective:
            raise ValueError(f"{algorithm.name} is a {NOUNS[algorithm.collective]}, not a "
                             f"{NOUNS[collective]}")
        return algorithm
    return lookup(collective, algorithm)


def bcast_algorithm(name: str) -> Algorithm:
    """The record of broadcast `name`, or ValueError listing the choices (lookup)."""
    return lookup("bcast", name)


def barrier_algorithm(name: str) -> Algorithm:
    return lookup("barrier", name)


def allgather_algorithm(name: str) -> Algorithm:
    """The record of allgather `name`, or ValueError listing the choices (lookup)."""
    return lookup("allgather", name)


# ---- the defaults, one for every entry point ------------------------------------------------
# collective -> the algorithm run when none is named, by collectives.bcast/barrier/allgather,
# collectives.Intracomm, python -m collectives.use and mcastlab mpirun alike: the MPI
# library's own. Why (docs/dropin.md, "Defaults"): it runs wherever MPI runs (no multicast
# network, no controller, no t_hold/t_end to measure), an unflagged program is the MPICH
# baseline, and naming one collective's algorithm changes that collective only.
DEFAULTS = {"bcast": NATIVE, "barrier": NATIVE, "allgather": NATIVE}
DEFAULT_BCAST, DEFAULT_BARRIER, DEFAULT_ALLGATHER = (
    DEFAULTS["bcast"], DEFAULTS["barrier"], DEFAULTS["allgather"])


# ---- an algorithm by the name another library gives it ---------------------------------------
def mpich_function(collective: str, value: str) -> str:
    """MPICH 4's function for the value `value` of MPIR_CVAR_<COLL>_INTRA_ALGORITHM: its
    src/mpi/coll/<coll>/<coll>_intra_<value>.c defines MPIR_<Coll>_intra_<value>."""
    return f"MPIR_{collective.capitalize()}_intra_{value}"


@dataclass(frozen=True)
class Foreign:
    """One name another library gives one of ours: where (`library`, LIBRARIES, `what`: its
    control variable's value or its function) and whose (`algorithm`)."""

    name: str
    library: str
    what: str
    algorithm: Algorithm
    elsewhere: Elsewhere


def _foreign_names() -> dict[str, tuple[Foreign, ...]]:
    found: dict[str, list[Foreign]] = {}
    for (collective, ours), there in ELSEWHERE.items():
        alg = COLLECTIVES[collective][ours]
        for library, e in there.items():
            named = [(e.name, "value" if library == "mpich" else "name")]
            if library == "mpich":
                named.append((mpich_function(collective, e.name), "function"))
            for name, what in named:
                found.setdefault(name.lower(), []).append(Foreign(name, library, what, alg, e))
    return {k: tuple(v) for k, v in found.items()}


# lower-cased name in MPICH (CVAR value and MPIR_ function), Open MPI or SimGrid -> ours
FOREIGN_NAMES: dict[str, tuple[Foreign, ...]] = _foreign_names()


def foreign(name: str, collective: str | None = None) -> tuple[Foreign, ...]:
    """Our algorithms another library calls `name` (any case), of `collective` (None: all)."""
    return tuple(f for f in FOREIGN_NAMES.get(name.lower(), ())
                 if collective in (None, f.algorithm.collective))
