"""testbed.emulation.tcp_stats reads the kernel's TCP counters as the kernel writes them."""

from __future__ import annotations

import os

from testbed.emulation import tcp_stats

SNMP = """Ip: Forwarding DefaultTTL InReceives
Ip: 1 64 2661781
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn CurrEstab InSegs OutSegs RetransSegs InErrs
Tcp: 1 200 120000 -1 2 2661781 2635057 215 0
Udp: InDatagrams NoPorts
Udp: 5 6
"""


def test_field_reads_the_value_under_its_name():
    assert tcp_stats.field(SNMP, "Tcp:", "RetransSegs") == 215
    assert tcp_stats.field(SNMP, "Tcp:", "RtoMax") == 120000
    assert tcp_stats.field(SNMP, "Udp:", "NoPorts") == 6
    assert tcp_stats.field(SNMP, "Tcp:", "NoSuchCounter") == 0


def test_counters_read_each_process_namespace():
    """Through /proc/<pid>/net of a real process, one namespace per pid listed."""
    pid = os.getpid()
    snmp = f"/proc/{pid}/net/snmp"
    with open(snmp) as f:
        low = tcp_stats.field(f.read(), "Tcp:", "RetransSegs")
    one = tcp_stats.counters([pid])
    twice = tcp_stats.counters([pid, pid])
    with open(snmp) as f:
        high = tcp_stats.field(f.read(), "Tcp:", "RetransSegs")
    assert low <= one["retrans_segs"] <= high
    assert 2 * low <= twice["retrans_segs"] <= 2 * high
    assert set(one) == set(tcp_stats.COUNTERS)
