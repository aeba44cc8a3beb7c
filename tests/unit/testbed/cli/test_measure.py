"""testbed.cli.measure without a network: the fidelity comments `mcastlab osu` prints after
the OSU lines."""

from testbed.cli.measure import fidelity_lines
from testbed.experiments.osu import OsuRow


def test_osu_fidelity_lines_name_each_flagged_row() -> None:
    def row(size: int | None, *flags: str) -> OsuRow:
        return OsuRow(size=size, avg_us=10.0, min_us=9.0, max_us=11.0, iterations=100,
                      skip=10, window=(0.0, 1.0), wait_per_turn_s=None,
                      fidelity={"flags": list(flags)}, line="")

    assert fidelity_lines([row(1), row(2)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(None)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(1), row(65536, "switch waited", "a link short")]) == [
        "# fidelity 65536: switch waited; a link short (not a result: the emulator did not "
        "keep up)", "# fidelity: the other rows kept up (no flag)"]
    assert fidelity_lines([row(None, "hosts waited")]) == [
        "# fidelity: hosts waited (not a result: the emulator did not keep up)"]
