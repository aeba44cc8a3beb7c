"""The drop-in communicator (collectives.Intracomm) on emulated hosts: every message form
mpi4py's Bcast takes, from every root, for a tree, a multicast and a contention-aware
algorithm, with a Dup beside the original and Split/Create keeping the choice (and the ranks'
nodes); an unmodified mpi4py program switched by `python -m collectives.use` flags and by
its environment; a wrong choice is one message and a failed job, not a hang."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.emulation.mpi import run_mpi
from testbed.emulation.network import Emulation
from topologies import parse_spec

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def star(caps):
    from .conftest import assert_clean, net_namespaces

    before = net_namespaces()
    with Emulation(parse_spec("star:hosts=4,bw=1000"), caps=caps) as emu:
        yield emu
    assert_clean(before)


def lines(res, prefix: str) -> list[str]:
    return [ln for text in res.rank_output.values() for ln in text.splitlines()
            if ln.startswith(prefix)]


# algorithm: (its options, the nodes its Split's and Create's communicators keep)
FORMS = {
    "binomial": ({}, None),
    "scatter-allgather": ({}, None),  # the root's read-only bytes: copied, not written
    "nack": ({}, None),
    "u-mesh": ({"mesh": [2, 2], "nodes": [0, 1, 2, 3]},
               {"split": [[0, 2], [1, 3]], "create": [0, 1]}),
}


@pytest.fixture(scope="module")
def every_form(star) -> dict[str, list[dict]]:
    """Each rank's record for each algorithm of FORMS, from one MPI job that runs them one
    after the other (dropin_forms.py; a job each, as it was, took three starts more)."""
    res = run_mpi(star, [str(HERE / "dropin_forms.py"),
                         json.dumps([[a, options] for a, (options, _) in FORMS.items()])],
                  timeout=300)
    got: dict[str, list[dict]] = {}
    for rec in (json.loads(ln) for ln in lines(res, '{"rank"')):
        got.setdefault(rec["algorithm"], []).append(rec)
    return got


@pytest.mark.parametrize("algorithm", list(FORMS))
def test_every_message_form_from_every_root(every_form, algorithm):
    nodes = FORMS[algorithm][1]
    got = every_form.get(algorithm, [])
    assert len(got) == 4
    for rec in got:
        assert rec["bad"] == [], rec
        assert rec["err_root"] == [True, True, True]  # MPI_ERR_ROOT everywhere, nobody waits
        side = rec["side"]  # two wrappers of COMM_WORLD, each with its own choice
        assert (side["world"], side["other"], side["other dup"]) == (algorithm, "chain", "chain")
        assert side["chain calls"] == 12 and side["own calls"] >= 8 * 12  # 12 a forms()
        kinds = rec["kinds"]
        assert set(kinds) == ({"dup", "split", "create"} if rec["rank"] < 2
                              else {"dup", "split"})
        for kind in kinds.values():
            assert kind[:3] == ["Intracomm", algorithm, "tree"]
        if nodes:
            assert kinds["split"][3] in nodes["split"]
            assert kinds["split"][3][0] % 2 == rec["rank"] % 2
            if rec["rank"] < 2:
                assert kinds["create"][3] == nodes["create"]


def test_collectives_use_switches_an_unmodified_program(star):
    prog = str(HERE / "plain_program.py")
    res = run_mpi(star, ["-m", "collectives.use", "--bcast", "two-stage", "--barrier", "mcast",
                         "--report", "--", prog], timeout=120)
    assert sorted(lines(res, "rank ")) == [
        f"rank {r}: sum 499500 from 1, gathered 6 via collectives.intracomm" for r in range(4)]
    for ln in lines(res, '{"collectives.use"'):
        calls = json.loads(ln)["collectives.use"]["calls"]
        # Bcast and dup.bcast (length, then bytes) and comm.bcast; the allgather MPICH's
        assert calls == {"bcast two-stage": 5, "barrier mcast": 2, "allgather mpich": 1}, calls
    env = {"MCASTLAB_BCAST": "chain", "MCASTLAB_BARRIER": "tree"}
    res = run_mpi(star, ["-m", "collectives.use", "--report", "--", prog], env=env, timeout=120)
    for ln in lines(res, '{"collectives.use"'):
        assert json.loads(ln)["collectives.use"]["calls"] == {
            "bcast chain": 5, "barrier tree": 2, "allgather mpich": 1}


def test_a_named_collective_changes_that_one_only(star):
    """--bcast names the broadcast alone: the barriers stay MPICH's (they once became the
    multicast barrier); --allgather runs the object allgather (the pickles' lengths, then an
    allgatherv of the pickles) by ours, given the options it takes (timeout, fragment)."""
    prog = str(HERE / "plain_program.py")
    res = run_mpi(star, ["-m", "collectives.use", "--bcast", "nack", "--allgather",
                         "mcast-concurrent", "-o", "timeout=20", "-o", "fragment=1000",
                         "--report", "--", prog], timeout=120)
    assert sorted(lines(res, "rank ")) == [
        f"rank {r}: sum 499500 from 1, gathered 6 via collectives.intracomm" for r in range(4)]
    for ln in lines(res, '{"collectives.use"'):
        assert json.loads(ln)["collectives.use"]["calls"] == {
            "bcast nack": 5, "barrier mpich": 2, "allgather mcast-concurrent": 1,
            "allgatherv mcast-concurrent": 1}


def test_a_wrong_choice_is_one_message_and_a_failed_job(star):
    res = run_mpi(star, ["-m", "collectives.use", "--bcast", "fastest", "--",
                         str(HERE / "plain_program.py")], timeout=60, check=False)
    assert res.returncode != 0
    said = lines(res, "collectives.use:")
    assert said and all("unknown broadcast 'fastest'; choose from mpich" in s for s in said)
    assert not lines(res, "Traceback") and not lines(res, "rank ")
