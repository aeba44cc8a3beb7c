"""testbed.fidelity.reading.switch_sched: the running switch's scheduling figures, or None
where no switch runs."""

from __future__ import annotations

from testbed.fidelity.reading import switch_sched


def test_switch_sched_reads_the_running_switch_or_says_none() -> None:
    got = switch_sched()  # OVS runs wherever the tests run; None only if it does not
    assert got is None or (got[0] >= 0 and got[1] >= 0)
