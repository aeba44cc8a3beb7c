"""controller.compat's corrections of os-ken, on os-ken's own Datapath over a socket pair:
a switch that hangs up ends its connection at once (os-ken's native hub left it waiting
for the controller's next message, and a reconnecting switch was refused meanwhile as a
second connection for its dpid)."""

from __future__ import annotations

import socket
import threading

import os_ken.base.app_manager  # noqa: F401  (os-ken's import order: its app manager first)
import pytest
from os_ken.controller import controller

from controller.compat import UnixSwitchSocket, end_switches_that_hang_up

WAIT_S = 10.0  # an upper bound: the connection ends as soon as the peer's close is read


@pytest.fixture
def datapath() -> tuple[controller.Datapath, socket.socket]:
    ours, theirs = socket.socketpair()
    dp = controller.Datapath(UnixSwitchSocket(ours), "a switch")
    return dp, theirs


def test_a_switch_that_hangs_up_ends_its_connection(datapath):
    end_switches_that_hang_up()
    end_switches_that_hang_up()  # (twice is once)
    dp, switch = datapath
    serving = threading.Thread(target=dp.serve, daemon=True)
    serving.start()
    assert switch.recv(8)[1] == 0  # the controller's hello (OFPT_HELLO): it serves
    switch.close()
    serving.join(WAIT_S)
    assert not serving.is_alive() and not dp.is_active
