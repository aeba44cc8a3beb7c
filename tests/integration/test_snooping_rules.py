"""RFC 4541 section 2.1 on the wire, and querier election (RFC 3376 6.6.2): reports go to
router ports only, queries and unrecognised IGMP to every other host, frames with checksum
errors nowhere; a query from a lower address silences the controller's querier until the
Other Querier Present interval has passed, and its port gets the groups' data."""

from __future__ import annotations

import struct
import time

from controller import igmp
from controller.config import ControllerConfig
from controller.timers import IgmpTimers
from testbed.emulation.controller_proc import api_get
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import IgmpSniffer, Receiver, send_frames, until, wire_counts

GROUP = "239.4.4.4"
TIMERS = IgmpTimers(query_interval=2.0, query_response_interval=1.0, last_member_interval=0.3)


def odd_igmp(kind: int, good_checksum: bool, src_ip: str) -> bytes:
    """An 8-byte IGMP message of type `kind` to 239.4.4.4 (the checksum maybe wrong)."""
    msg = bytearray(struct.pack("!BBH4s", kind, 0, 0, bytes([239, 4, 4, 4])))
    struct.pack_into("!H", msg, 2, igmp.checksum(bytes(msg)) ^ (0 if good_checksum else 1))
    return igmp.ipv4_frame("02:00:00:00:00:99", src_ip, "239.4.4.4", bytes(msg))


def test_reports_go_to_router_ports_and_a_lower_querier_takes_over(caps, clean_after,
                                                                   tmp_path):
    with Emulation(parse_spec("star:hosts=4"), caps=caps,
                   controller_config=ControllerConfig(timers=TIMERS)) as emu:
        port = emu.controller.api
        ip = {h.name: h.IP() for h in emu.hosts}
        member = Receiver(emu.host("h1"), GROUP, 25.0, tmp_path)
        member.wait_ready()
        # 1: the controller is querier; nobody else hears h1's reports.
        sniff = {h: IgmpSniffer(emu.host(h), 3.0, tmp_path) for h in ("h2", "h3")}
        for s in sniff.values():
            s.wait_ready()
        seen = {h: s.frames() for h, s in sniff.items()}
        assert api_get(port, "/state")["querier"]["role"] == "querier"
        for h in ("h2", "h3"):
            assert (igmp.QUERY, "10.0.255.254") in seen[h], seen[h]
            assert not [t for t, src in seen[h] if src == ip["h1"]], seen[h]

        # 2: h3 queries from a lower address: it is the querier, its port a router port.
        sniff = {h: IgmpSniffer(emu.host(h), 3.0, tmp_path) for h in ("h1", "h2", "h3")}
        for s in sniff.values():
            s.wait_ready()
        query = igmp.query(ip["h3"], None, 1.0, 2.0, 2)
        send_frames(emu.host("h3"), query)
        took_over = time.monotonic()
        until(lambda: api_get(port, "/state")["querier"]["role"] == "non-querier",
              took_over + 0.3)
        sent = api_get(port, "/state")["counters"]["queries_sent"]
        send_frames(emu.host("h2"), odd_igmp(0x99, True, ip["h2"]),
                    odd_igmp(0x99, False, ip["h2"]), odd_igmp(0x16, False, ip["h2"]))
        seen = {h: s.frames() for h, s in sniff.items()}
        state = api_get(port, "/state")
        wire = wire_counts(emu, "h0", GROUP, tmp_path)
        assert state["querier"]["role"] == "non-querier"
        assert state["querier"]["address"] == ip["h3"]
        assert list(state["querier"]["router_ports"]) == ["h3"]
        assert state["counters"]["queries_sent"] == sent  # quiet while h3 queries
        assert (igmp.QUERY, ip["h3"]) in seen["h1"] and (igmp.QUERY, ip["h3"]) in seen["h2"]
        reports_from_h1 = {h: [t for t, src in f if src == ip["h1"]] for h, f in seen.items()}
        assert reports_from_h1["h3"] and not reports_from_h1["h2"], seen  # h1 answered h3
        # the well-formed unknown type is flooded (not back to h2), the bad checksums not
        assert seen["h1"].count((0x99, ip["h2"])) == 1 and seen["h3"].count((0x99, ip["h2"])) == 1
        assert not [f for f in seen["h1"] + seen["h3"] if f == (0x16, ip["h2"])]
        assert wire == {"h0": 0, "h1": 5, "h2": 0, "h3": 5}  # data to the router port too

        # 3: h3 falls silent; after the Other Querier Present interval the controller queries.
        oqpi = TIMERS.other_querier_present
        until(lambda: (api_get(port, "/state")["querier"]["role"] == "querier" and
                       api_get(port, "/state")["counters"]["queries_sent"] > sent),
              took_over + oqpi + 1.5)
        state = api_get(port, "/state")
        member.proc.terminate()
    assert state["querier"]["role"] == "querier" and not state["querier"]["router_ports"]
    assert state["counters"]["queries_sent"] > sent
