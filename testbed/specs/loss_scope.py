"""Loss scopes: which packets an emulated loss drops on a host's link
(testbed.emulation.linkshape carries them out), and the words the listings and the report
name them by. "all" drops every packet, TCP (and so MPI itself) included; "multicast" only
the multicast datagrams, both ways; "multicast-in" only those a host receives, so each
receiver loses its own share (Siebert2006's independent failures)."""

from __future__ import annotations

SCOPES = ("all", "multicast", "multicast-in")
WHAT = {"all": "every packet", "multicast": "multicast datagrams",
        "multicast-in": "multicast datagrams received"}


def loss_text(loss: float, scope: str | None) -> str:
    """"loss 5% of every packet", "loss 1% of multicast datagrams"; "loss 5%" without a
    scope (or `scope` None where the words stand elsewhere, a table's title)."""
    text = f"loss {loss * 100:g}%"
    return f"{text} of {WHAT[scope]}" if scope in WHAT else text
