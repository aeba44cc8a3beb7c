"""testbed.cluster.doctor.differences: what must match between a cluster's servers (paths,
checkout, versions, no problems) and what may differ (the kernel, the machine's name)."""

from __future__ import annotations


def test_what_must_match_between_servers():
    from testbed.cluster.doctor import differences

    mine = {"root": "/work/main", "python": "/work/main/.venv/bin/python", "checkout": "abc",
            "versions": {"python": "3.11.2", "openvswitch": "3.1.0", "mpi4py": "4.1.2",
                         "kernel": "6.1", "machine": "a"}, "problems": []}
    same = {**mine, "versions": {**mine["versions"], "kernel": "6.2", "machine": "b"}}
    assert differences(mine, same) == []  # kernels and names may differ
    other = {**mine, "root": "/srv/mcastlab", "checkout": "abd (modified)",
             "versions": {**mine["versions"], "mpi4py": "4.0.0"},
             "problems": ["Open vSwitch is not running"]}
    said = differences(mine, other)
    assert len(said) == 4
    assert "MPI starts ranks by the same paths" in said[0]
    assert said[1] == "checkout abd (modified), here abc"
    assert said[2] == "mpi4py 4.0.0, here 4.1.2"
    assert said[3] == "can't emulate: Open vSwitch is not running"
