"""A number the emulator did not keep up with is not a result: the fidelity flags every
measured point carries (`flags`), the highest link rate this machine keeps up with for a
network (`calibration`, found once and cached) and `bw=auto` built on it (`link_rate`),
and times in units that carry over between link rates (`wire_units`)."""
