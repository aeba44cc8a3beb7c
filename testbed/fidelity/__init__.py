"""A number the emulator did not keep up with is not a result: the fidelity flags every
measured point carries (`flags`, with the readings of `reading`), the rate a network runs
at and `bw=auto` (`link_rate`; the calibration that answers `auto` measures broadcasts, so
it is testbed.experiments.calibration), and times in units that carry over between link
rates (`wire_units`)."""
