"""testbed.emulation.uftp_peer.uid: a receiver's UFTP id is its address in hex."""

from testbed.emulation.uftp_peer import uid


def test_uid_is_the_address_in_hex():
    assert uid("10.0.0.2") == "0x0A000002" and uid("10.0.1.255") == "0x0A0001FF"
