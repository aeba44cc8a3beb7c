"""testbed.fidelity.reading.switch_threads: the running switch's threads' scheduling
figures, its main thread among them, or None where no switch runs."""

from __future__ import annotations

from testbed.fidelity.reading import switch_threads


def test_switch_threads_reads_the_running_switch_or_says_none() -> None:
    got = switch_threads()  # OVS runs wherever the tests run; None only if it does not
    assert got is None or (str(got["pid"]) in got["threads"]
                           and all(r >= 0 and w >= 0 for r, w in got["threads"].values()))
