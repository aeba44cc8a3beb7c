"""Parity repair: Reed-Solomon symbols over blocks of a message's fragments (zfec).

The fragments are cut into blocks of up to BLOCK; from a block of k fragments zfec makes up
to SYMBOLS - k parity symbols, each the size of a fragment, and any k of the block's data
fragments and parity symbols give back the whole block. A root that repairs with parity
sends, per block, as many fresh symbols as the neediest receiver lacks, and one symbol
repairs a different loss at every receiver: under independent loss at 15 receivers the
union of what they miss is most of a block, the most any one misses a fifth of it. NORM
repairs with the parity of its FEC blocks in the same way (RFC 5740, docs/reliable-
multicast.md); Siebert's argument (Siebert2006: about one extra round at up to 50 % loss)
needs it. zfec is a C library (the Tahoe-LAFS erasure
code): a 64-fragment block of 1400 B encodes a symbol in ~40 us and decodes in ~0.4 ms.

A parity datagram's index is block x PARITY_MAX + j (j: the symbol's number in its block);
its payload is one fragment's worth (the last, shorter fragment is zero-padded in the code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import zfec

BLOCK = 64  # fragments per block: decoding stays under a millisecond
SYMBOLS = 256  # zfec's most: data and parity of a block together
PARITY_MAX = SYMBOLS - BLOCK


def block_count(count: int) -> int:
    return -(-count // BLOCK)


def block_range(block: int, count: int) -> range:
    """The fragments of this block."""
    return range(block * BLOCK, min(count, (block + 1) * BLOCK))


def parity_index(block: int, j: int) -> int:
    return block * PARITY_MAX + j


def parity_place(index: int) -> tuple[int, int]:
    """(block, j) of a parity datagram's index."""
    return divmod(index, PARITY_MAX)


def symbols_needed(reports: list[tuple[int, list[int]]],
                   sent: dict[int, list[int]]) -> dict[int, int]:
    """Fresh symbols per block for a batch of reports, each (the last end marker its sender
    had seen, the fragments it needs): the neediest report's count in the block, less the
    symbols sent after the end marker it had seen (`sent`: block -> the end marker that
    followed each symbol; those were still on their way). Blocks needing none are left out."""
    need: dict[int, int] = {}
    for seq, idx in reports:
        per: dict[int, int] = {}
        for i in idx:
            per[i // BLOCK] = per.get(i // BLOCK, 0) + 1
        for b, n in per.items():
            n -= sum(1 for after in sent.get(b, ()) if after > seq)
            if n > 0:
                need[b] = max(need.get(b, 0), n)
    return need


def _pad(data: bytes | memoryview, size: int) -> bytes:
    data = bytes(data)
    return data if len(data) == size else data + bytes(size - len(data))


class Encoder:
    """The root's parity symbols for one message (each block's symbols numbered from 0,
    never one sent twice: every symbol is news to every receiver)."""

    def __init__(self, view: memoryview, count: int, fragment: int):
        self.view, self.count, self.fragment = view, count, fragment
        self.sent = [0] * block_count(count)  # symbols made so far, per block

    def fresh(self, block: int, n: int) -> Iterator[tuple[int, bytes]]:
        """Up to n new symbols of a block as (datagram index, payload); fewer once the
        block has no more (then the caller repairs with data)."""
        js = list(range(self.sent[block], min(PARITY_MAX, self.sent[block] + n)))
        if not js:
            return
        frags = block_range(block, self.count)
        k = len(frags)
        primary = [_pad(self.view[i * self.fragment:(i + 1) * self.fragment], self.fragment)
                   for i in frags]
        self.sent[block] = js[-1] + 1
        symbols = zfec.Encoder(k, k + PARITY_MAX).encode(primary, [k + j for j in js])
        for j, sym in zip(js, symbols, strict=True):
            yield parity_index(block, j), bytes(sym)


class Decoder:
    """A receiver's parity symbols, per block, until the block decodes."""

    def __init__(self, count: int, fragment: int):
        self.count, self.fragment = count, fragment
        self.symbols: dict[int, dict[int, bytes]] = {}

    def add(self, index: int, payload: bytes | memoryview) -> int | None:
        """Keep a symbol; its block, or None for a symbol outside the message."""
        block, j = parity_place(index)
        if block >= block_count(self.count) or len(payload) != self.fragment:
            return None
        self.symbols.setdefault(block, {})[j] = bytes(payload)
        return block

    def held(self, block: int) -> int:
        return len(self.symbols.get(block, ()))

    def decode(self, block: int, have: bytearray,
               fragment_of: Callable[[int], bytes | memoryview]) -> list[tuple[int, bytes]]:
        """The block's missing fragments as (index, padded bytes), if the fragments `have`
        marks (read with `fragment_of` only then) and its symbols make k; else []."""
        frags = block_range(block, self.count)
        k = len(frags)
        got = [i for i in frags if have[i]]
        syms = self.symbols.get(block, {})
        if len(got) == k or len(got) + len(syms) < k:
            return []
        extra = sorted(syms)[:k - len(got)]
        shares = [_pad(fragment_of(i), self.fragment) for i in got] + [syms[j] for j in extra]
        nums = [i - frags.start for i in got] + [k + j for j in extra]
        out = zfec.Decoder(k, k + PARITY_MAX).decode(shares, nums)
        self.symbols.pop(block, None)
        return [(i, bytes(out[i - frags.start])) for i in frags if not have[i]]
