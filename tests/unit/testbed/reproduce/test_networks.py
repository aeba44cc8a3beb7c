"""testbed.reproduce.networks' asks: a point a claim asks for has one key whether a batch
measured it or the point itself, a batch shares a job only among asks with the same hosts
and job-wide settings, and what it cannot run in one job it refuses; every network says why
it runs at its rate."""

from __future__ import annotations

import pytest

from testbed.reproduce.networks import NETWORKS, Ask


def test_a_batched_point_and_an_asked_one_have_one_key():
    a = Ask("binomial", 1024, 8, kwargs={"params": {"sizes": [1024]}})
    # Network.point(algorithm, size, hosts, frames, iters, take, **kwargs) builds the same
    assert a.key(2) == Ask("binomial", 1024, 8, 0, 8, {"params": {"sizes": [1024]}}).key(2)
    assert a.key(0) != a.key(1)
    assert Ask("binomial", 65536, 8).iters == 4 and a.iters == 8  # LONG_ITERS from 64 KiB
    # one warm-up broadcast, three where a broadcast learns from the ones before it
    assert (a.warmup, Ask("dyn-tree", 1024, 8).warmup, Ask("nack", 1024, 8).warmup) == (1, 3, 3)
    assert Ask("binomial", 1024, 8, kwargs={"warmup": 0}).warmup == 0
    named = Ask("binomial", 1024, ["h0", "h2"])
    assert named.count == 2 and named.key(0)[2] == ("h0", "h2")


def test_one_job_holds_the_asks_of_the_same_hosts_and_job_wide_settings():
    lossless = Ask("two-stage", 65536, 8)
    lossy = Ask("two-stage", 65536, 8, kwargs={"loss": 0.1, "loss_scope": "multicast-in"})
    other = Ask("binomial", 1024, 8, kwargs={"late": ("root", 5.0)})
    assert lossless.shared() == other.shared() != lossy.shared()
    assert Ask("binomial", 1024, 16).shared() != other.shared()
    b = other.batched(3)
    assert (b.key, b.late, b.repetitions, b.warmup, b.call.algorithm) == (
        "3", ("root", 5.0), 8, 1, "binomial")
    assert lossy.job_kwargs() == {"loss": 0.1, "loss_scope": "multicast-in"}
    scout = Ask("scout-linear", 1000, 4, frames=40, kwargs={"completion": "none"})
    assert scout.call().completion == "none" and scout.batched(0).frames == 40


def test_what_one_job_cannot_run_is_refused():
    with pytest.raises(ValueError, match="cannot take"):
        Ask("binomial", 1024, 8, kwargs={"timeout": 5}).batched(0)


def test_the_label_names_what_differs():
    a = Ask("two-stage", 65536, 8, kwargs={"loss": 0.3, "loss_scope": "multicast-in",
                                           "late": ("receivers", 20.0)})
    assert a.label(1) == ("two-stage 65536 B on 8 hosts, 30% multicast-in lost, take 2, "
                          "the receivers 20 ms late")


def test_every_network_says_why_it_runs_where_it_does():
    assert all(kind.why for kind in NETWORKS.values())
