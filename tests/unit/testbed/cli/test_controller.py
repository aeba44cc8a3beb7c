"""testbed.cli.controller without a controller: `mcastlab fail` and `restore` take a host's
name or its node id, as the prompt does."""

import argparse

import pytest

from testbed.cli.controller import node_id


def test_a_node_by_name_or_number() -> None:
    assert [node_id(t) for t in ("h3", "3", "h0", "0", " h12 ")] == [3, 3, 0, 0, 12]
    for bad in ("x3", "h", "-1", "h03", "3.0", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="name or node id"):
            node_id(bad)
