"""testbed.bench.nack: the report in multiples of M/B, T(16)/T(2), ratios to the lossless
median and to the best point-to-point tree; points that timed out or were flagged are marked
and feed no ratio."""

from testbed.bench.nack import markdown


def point(alg: str, size: int, hosts: int, loss: float, ms: float, flags=(), repaired=None,
          rto=None):
    return {"algorithm": alg, "size": size, "hosts": hosts, "loss": loss, "ms": ms,
            "p90_ms": ms, "flags": list(flags), "repaired": repaired, "all_correct": True,
            "tcp_timeouts": rto}


def test_report_gives_the_ratios_the_goals_are_stated_in():
    res = {"mbit": 8.0, "link_rate": {"source": "calibration cache"},
           "lossless": [point("nack", 65536, 2, 0.0, 70.0), point("nack", 65536, 16, 0.0, 77.0)],
           "loss": [point("nack", 65536, 16, 0.0, 77.0, repaired=0.0),
                    point("two-stage", 65536, 16, 0.0, 90.0),
                    point("binomial", 65536, 16, 0.0, 300.0),
                    point("mpich", 65536, 16, 0.0, 200.0),
                    point("nack", 65536, 16, 0.05, 154.0, repaired=12.5),
                    point("two-stage", 65536, 16, 0.05, 95.0, flags=["switch"]),
                    point("binomial", 65536, 16, 0.05, 350.0),
                    point("mpich", 65536, 16, 0.05, 100.0)]}
    text = "\n".join(markdown(res))
    # 64 KiB at 8 Mbit/s is 65.54 ms on the wire: 77 ms is 1.17 x, and 77 / 70 = 1.10
    assert "| 65536 | 65.54 | 70.0 | 77.0 | 1.17 | 1.10 |" in text
    # under 5 % loss: twice the lossless median, 1.54 x the best tree (MPI_Bcast, 100 ms)
    assert "| 65536 | 5% | 154.0 | 95.0! | 350.0 | 100.0 | 12.5 | 2.00 | 1.54 |" in text
    assert "all correct" in text


def test_a_point_that_timed_out_says_so_and_the_ratios_skip_it():
    res = {"mbit": 8.0, "link_rate": {},
           "lossless": [point("nack", 1024, 2, 0.0, 2.0), point("nack", 1024, 16, 0.0, 3.0)],
           "loss": [point("nack", 1024, 16, 0.0, 3.0), point("two-stage", 1024, 16, 0.0, 4.0),
                    point("binomial", 1024, 16, 0.0, 5.0), point("mpich", 1024, 16, 0.0, 6.0),
                    point("nack", 1024, 16, 0.1, 9.0, rto=3),
                    point("two-stage", 1024, 16, 0.1, None),
                    point("binomial", 1024, 16, 0.1, None),
                    point("mpich", 1024, 16, 0.1, 18.0, rto=41)]}
    text = "\n".join(markdown(res))
    assert "| 1024 | 10% | 9.0 | > 240 s | > 240 s | 18.0 | - | 3.00 | 0.50 |" in text
    # TCP's timeouts per lossy point; '-' where the point has no result
    assert "| 1024 | 10% | 3 | - | - | 41 |" in text


def test_a_flagged_point_feeds_no_ratio():
    """A flagged lossless median divides nothing, and a flagged tree is never the best."""
    res = {"mbit": 8.0, "link_rate": {},
           "lossless": [point("nack", 65536, 2, 0.0, 70.0),
                        point("nack", 65536, 16, 0.0, 90.0, flags=["host"])],
           "loss": [point("nack", 65536, 16, 0.0, 90.0, flags=["host"]),
                    point("two-stage", 65536, 16, 0.0, 95.0),
                    point("binomial", 65536, 16, 0.0, 300.0),
                    point("mpich", 65536, 16, 0.0, 200.0),
                    point("nack", 65536, 16, 0.05, 150.0),
                    point("two-stage", 65536, 16, 0.05, 160.0),
                    point("binomial", 65536, 16, 0.05, 50.0, flags=["switch"]),
                    point("mpich", 65536, 16, 0.05, 100.0)]}
    text = "\n".join(markdown(res))
    assert "| 65536 | 65.54 | 70.0 | 90.0! | - | - |" in text
    assert "| 65536 | 5% | 150.0 | 160.0 | 50.0! | 100.0 | - | - | 1.50 |" in text
