"""UFTP runs in the emulated hosts as the reference peer: the file reaches every receiver
whole, lossless and under 5 % loss of every packet (which the host links drop silently,
below IP: an iptables OUTPUT drop made uftp's sends fail with EPERM and abort its session),
and nothing of it is left running."""

from __future__ import annotations

import subprocess

from testbed.emulation.network import Emulation
from testbed.emulation.uftp_peer import transfer
from topologies import parse_spec


def test_uftp_sends_a_file_whole_lossless_and_under_loss(caps, clean_after):
    with Emulation(parse_spec("star:hosts=4,bw=30"), caps=caps) as emu:
        clean = transfer(emu, 256 * 1024, 30.0, timeout=60)
        emu.set_loss(0.05)
        lossy = transfer(emu, 256 * 1024, 30.0, timeout=60)
    for got in (clean, lossy):
        assert got["all_correct"] and got["receivers"] == 3, got
        assert got["complete"] >= 2, got  # uftp itself may drop a receiver under loss
        assert got["seconds"] > 0 and got["frames"]["sent"] >= 256 * 1024 // 1400, got
    # 256 KiB at 30 Mbit/s is 70 ms on the wire; uftp's own timers add a few round trips
    assert clean["seconds"] < 1.0 and clean["complete"] == 3, clean
    assert subprocess.run(["pgrep", "-x", "uftpd"], capture_output=True).returncode == 1
