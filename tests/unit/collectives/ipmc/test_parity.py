"""collectives.ipmc.parity: blocks cover the message; any k of a block's fragments and symbols
give the block back, the last fragment's padding included, and bad symbols are refused. The
root sends per block what the neediest report lacks, less the symbols already on their way,
and never a symbol twice."""

from __future__ import annotations

import os
import random

from collectives.ipmc.parity import (
    BLOCK,
    PARITY_MAX,
    Decoder,
    Encoder,
    block_count,
    block_range,
    parity_place,
    symbols_needed,
)

FRAGMENT = 100


def message(count: int, last: int = 37) -> bytes:
    return os.urandom((count - 1) * FRAGMENT + last)


def test_blocks_cover_the_message_and_indexes_round_trip() -> None:
    assert block_count(1) == 1 and block_count(BLOCK) == 1 and block_count(BLOCK + 1) == 2
    count = 3 * BLOCK + 5
    frags = [i for b in range(block_count(count)) for i in block_range(b, count)]
    assert frags == list(range(count))
    enc = Encoder(memoryview(message(count)), count, FRAGMENT)
    idx = [i for i, _ in enc.fresh(3, 2)]
    assert [parity_place(i) for i in idx] == [(3, 0), (3, 1)]


def test_any_k_of_fragments_and_symbols_decode_the_block() -> None:
    rng = random.Random(7)
    count = BLOCK + 20  # a full block and a short one with a short last fragment
    data = message(count)
    frag = [data[i * FRAGMENT:(i + 1) * FRAGMENT] for i in range(count)]
    enc = Encoder(memoryview(data), count, FRAGMENT)
    for block in range(2):
        frags = block_range(block, count)
        lost = set(rng.sample(list(frags), len(frags) // 3))
        have = bytearray(0 if i in lost else 1 for i in range(count))
        dec = Decoder(count, FRAGMENT)
        syms = list(enc.fresh(block, len(lost)))
        assert len(syms) == len(lost)
        for i, p in syms[:-1]:
            assert dec.add(i, p) == block
        assert dec.decode(block, have, frag.__getitem__) == []  # one symbol short
        dec.add(*syms[-1])
        got = dec.decode(block, have, frag.__getitem__)
        assert [i for i, _ in got] == sorted(lost)
        for i, p in got:
            assert p[:len(frag[i])] == frag[i]


def test_a_blocks_symbols_are_never_sent_twice_and_run_out() -> None:
    enc = Encoder(memoryview(message(BLOCK)), BLOCK, FRAGMENT)
    first = [i for i, _ in enc.fresh(0, 5)]
    assert first == list(range(5))
    rest = [i for i, _ in enc.fresh(0, PARITY_MAX)]
    assert rest == list(range(5, PARITY_MAX))
    assert list(enc.fresh(0, 1)) == []


def test_bad_symbols_are_refused() -> None:
    dec = Decoder(10, FRAGMENT)
    assert dec.add(PARITY_MAX, bytes(FRAGMENT)) is None  # block 1 of a 1-block message
    assert dec.add(0, bytes(FRAGMENT - 1)) is None


def test_symbols_needed_take_the_neediest_less_those_on_their_way() -> None:
    # receiver A saw end marker 1 and needs 3 of block 0; B saw 1 and needs 1 of block 0
    # and 2 of block 1: block 0 gets 3, block 1 gets 2
    reports = [(1, [0, 5, 9]), (1, [3, BLOCK, BLOCK + 1])]
    assert symbols_needed(reports, {}) == {0: 3, 1: 2}
    # two symbols of block 0 went out before end marker 2: a report that had seen only end
    # marker 1 is owed one more; one that had seen 2 lost them and is owed all three
    sent = {0: [2, 2]}
    assert symbols_needed([(1, [0, 5, 9])], sent) == {0: 1}
    assert symbols_needed([(2, [0, 5, 9])], sent) == {0: 3}
    assert symbols_needed([(1, [0, 5])], sent) == {}
