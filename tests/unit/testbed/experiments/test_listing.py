"""testbed.experiments.listing: what `--list` says of each kind's points (the broadcast's
and the Allgather's loss wording: tests/unit/testbed/cli/test_main.py)."""

from __future__ import annotations

from testbed.experiments import listing
from testbed.experiments.kinds import from_dict


def test_each_kind_lists_what_makes_its_points_differ() -> None:
    mn = from_dict({"name": "m", "repetitions": 3,
                    "network": {"topology": "mesh:rows=2,cols=4,bw=10"},
                    "multinode": {"sources": [2], "factors": [0.5], "sizes": [4096],
                                  "dilation": 1}})
    lines = listing.multinode(mn)
    assert lines[0] == ("m: 3 points on mesh-2x4 (one rank per node), 6 destinations per "
                        "source, dilation 1, 3 runs each")
    assert [line.split()[1] for line in lines[1:]] == ["u-mesh", "partitioned-random",
                                                       "partitioned-balanced"]
    assert all(line.endswith("4 KiB  2 sources  p 0.5") for line in lines[1:])
    bc = from_dict({"name": "b", "network": {"topology": "star:hosts=4"},
                    "sweep": {"algorithms": ["binomial"], "sizes": [1024], "groups": [2],
                              "hosts": [2]}})
    assert listing.broadcasts(bc)[1].split() == ["0", "binomial", "1", "KiB", "2", "hosts",
                                                 "groups=2"]
    ag = from_dict({"name": "a", "collective": "allgather",
                    "network": {"topology": "star:hosts=4"},
                    "sweep": {"algorithms": ["ring"], "sizes": [64]}})
    assert listing.allgathers(ag)[1].split() == ["0", "ring", "64", "B", "blocks", "4", "ranks"]
