"""The uftp benchmark's table: multiples of M/B, the nack / uftp ratio only from unflagged
points, failures named; and the receivers' UFTP ids."""

from testbed.emulation.uftp_peer import uid


def test_uid_is_the_address_in_hex():
    assert uid("10.0.0.2") == "0x0A000002" and uid("10.0.1.255") == "0x0A0001FF"
