"""An aggregated gap report (the concurrent allgather, ipmc.concurrent): one datagram from a
receiver, multicast to every sender at once, naming every sender's block it holds whole and,
per sender whose gaps are provable, the last end marker of that sender it saw and what it
lacks. p senders cost a receiver one report per round, not p - 1 (no NACK storm: 16 ranks,
15 reports a round instead of 225).

    [done: ceil(p/8) bytes, bit r (most significant first) set: rank r's block is whole]
    then per sender: [sender:2][seq:4][start:4][length:2][bitmap: length bytes]

A section's bitmap is plans.missing_bitmap's (bit j: fragment start + j missing). The
sections share the datagram: each gets an equal part of what is left after the done bits
and the section heads, and what lies beyond it is reported in a later round; so do the
senders beyond the first that fit with MIN_BITMAP bytes each (hundreds of them)."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass

from .plans import missing_bitmap

SECTION = struct.Struct("!HIIH")  # sender, last end marker seen, first missing, bitmap bytes
MIN_BITMAP = 8  # bytes of bitmap a section gets at least (64 fragments)


@dataclass(frozen=True)
class Gaps:
    """One sender's part of a report: the last end marker of it seen, and what is missing
    (a missing_bitmap from `start`)."""

    seq: int
    start: int
    bitmap: bytes


def done_size(p: int) -> int:
    return -(-p // 8)


def encode(p: int, done: set[int], lacking: Mapping[int, tuple[int, bytes | bytearray]],
           budget: int) -> bytes:
    """A report of `p` ranks: `done` the senders whose blocks are whole, `lacking` per
    sender (seq, have: a byte per fragment, 0 where missing), in at most `budget` bytes
    (the lowest-numbered senders' sections if not all fit). ValueError if not even the
    done bits and one section fit."""
    head = bytearray(done_size(p))
    for r in done:
        head[r // 8] |= 0x80 >> (r % 8)
    out = bytes(head)
    if not lacking:
        return out
    fit = min(len(lacking), (budget - len(out)) // (SECTION.size + MIN_BITMAP))
    if fit < 1:
        raise ValueError(f"a report of {p} ranks does not fit {budget} bytes")
    share = (budget - len(out)) // fit - SECTION.size
    for sender, (seq, have) in sorted(lacking.items())[:fit]:
        start, bits = missing_bitmap(have, share)
        out += SECTION.pack(sender, seq, start, len(bits)) + bits
    return out


def decode(payload: bytes | memoryview, p: int) -> tuple[set[int], dict[int, Gaps]]:
    """(done senders, gaps per sender) of a report of `p` ranks; ValueError if malformed."""
    view = memoryview(payload)
    n = done_size(p)
    if len(view) < n:
        raise ValueError("shorter than its done bits")
    done = {r for r in range(p) if view[r // 8] & (0x80 >> (r % 8))}
    gaps: dict[int, Gaps] = {}
    at = n
    while at < len(view):
        if at + SECTION.size > len(view):
            raise ValueError("a section's head is cut short")
        sender, seq, start, length = SECTION.unpack_from(view, at)
        at += SECTION.size
        if sender >= p or at + length > len(view):
            raise ValueError(f"a section of sender {sender} is out of bounds")
        gaps[sender] = Gaps(seq, start, bytes(view[at:at + length]))
        at += length
    return done, gaps
