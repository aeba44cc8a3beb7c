"""testbed.bench.allgather's page from rows (no network): cells in multiples of the floor
with the fastest unflagged bold and flagged ones marked, where a multicast Allgather starts
to win, and the issue's goals judged only on unflagged points."""

from __future__ import annotations

from testbed.bench.allgather import crossover, goals, markdown


def row(algo, block, ms, *, family="exchange", loss=0.0, flags=(), network="star"):
    floor = 15 * block * 8 / 20e6 * 1e3
    return {"network": network, "topology": "star-16", "algorithm": algo, "family": family,
            "loss": loss, "block": block, "ms": ms, "p10_ms": ms, "p90_ms": ms,
            "per_floor": ms / floor, "floor_ms": floor, "predicted_ms": None,
            "verified": True, "flags": list(flags)}


ROWS = [row("ring", 1024, 20.0), row("mcast-concurrent", 1024, 30.0, family="multicast"),
        row("ring", 262144, 2000.0),
        row("mcast-concurrent", 262144, 1700.0, family="multicast"),
        row("ring", 262144, 2400.0, loss=0.05),
        row("mcast-concurrent", 262144, 3000.0, family="multicast", loss=0.05),
        row("mcast-concurrent", 1024, 10.0, family="multicast", loss=0.05,
            flags=["hosts waited"]),
        row("ring", 1024, 25.0, loss=0.05)]


def test_where_multicast_wins():
    text = crossover(ROWS)
    assert "- star, loss 0%: a multicast Allgather is fastest from 262144 B" in text
    # at 5 % its 1 KiB point is flagged and its 256 KiB one slower: it never wins
    assert "- star, loss 5%: no multicast Allgather is the fastest" in text


def test_goals():
    text = "\n".join(goals(ROWS))
    floor = 15 * 262144 * 8 / 20e6 * 1e3
    assert f"{1700 / floor:.2f} x floor: met" in text
    assert "5 % loss / lossless, 256 KiB (goal <= 2.0): 1.76: met" in text
    assert goals([row("ring", 262144, 1.0)]) == [
        "- no multicast Allgather measured at 262144 B: nothing to judge"]


def test_the_page():
    page = "\n".join(markdown({"mbit": 20.0, "link_rate": {"source": "calibration cache"},
                               "rows": ROWS}))
    assert "## star (star-16), loss 5%" in page
    assert "| 1024 | 6.14 | **4.07** | 1.63! |" in page  # flagged: marked, never bold
    assert "| 262144 | 1572.86 | 1.27 | **1.08** |" in page
    assert "Every rank's blocks checked: all correct." in page
