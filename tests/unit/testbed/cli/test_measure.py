"""testbed.cli: the commands that need neither root nor a network, and argument errors.

Nothing here may reach a command that brings a network up: `run` is only exercised on
errors raised before the emulation starts.
"""



# ---- osu: the fidelity comments after the OSU lines -------------------------------------
def test_osu_fidelity_lines_name_each_flagged_row() -> None:
    from testbed.cli.measure import fidelity_lines

    def row(size: int | None, *flags: str) -> dict:
        return {"size": size, "fidelity": {"flags": list(flags)}}

    assert fidelity_lines([row(1), row(2)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(None)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(1), row(65536, "switch waited", "a link short")]) == [
        "# fidelity 65536: switch waited; a link short (not a result: the emulator did not "
        "keep up)", "# fidelity: the other rows kept up (no flag)"]
    assert fidelity_lines([row(None, "hosts waited")]) == [
        "# fidelity: hosts waited (not a result: the emulator did not keep up)"]
