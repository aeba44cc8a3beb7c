"""Siebert2006's claim the testbed computes without a network: Table 1, the probability that
communicators choosing their multicast (address, port) pair at random collide, from the
birthday formula of section 1.7.2 (collectives.ipmc.groups.collision_probability). The
table's numbers are copied here (marker R)."""

from __future__ import annotations

from fractions import Fraction

from collectives.ipmc import SIEBERT_ADDRESSES, SIEBERT_PAIRS, SIEBERT_PORTS, collision_probability

from .claims import Claim, Context, PaperFigure
from .pure import agree
from .verdict import Outcome

# section 1.7.2, Table 1: communicators -> probability of at least one collision, in %
TABLE_1 = {1: "0.0", 2: "0.0000000000179", 3: "0.0000000000538", 4: "0.0000000001077",
           5: "0.0000000001795", 6: "0.0000000002693", 7: "0.0000000003771",
           8: "0.0000000005028", 9: "0.0000000006464", 10: "0.0000000008080",
           11: "0.0000000009876", 20: "0.0000000034118", 30: "0.0000000078113",
           40: "0.0000000140066", 50: "0.0000000219975", 100: "0.0000000888881",
           200: "0.0000003573481"}
DIGIT = Fraction(1, 10 ** 13)  # the table's last printed digit, in %


def collisions(ctx: Context) -> Outcome:
    """1 - p(n, m) exactly, m = 200,540,160 addresses x 27,769 ports, for every n of the
    table: each within one unit of the table's last digit (the table truncates its values;
    n = 100 alone is rounded up, I)."""
    got = {n: collision_probability(n) * 100 for n in TABLE_1}
    off = {n: abs(got[n] - Fraction(v)) for n, v in TABLE_1.items()}
    matches = {f"{n} communicators": off[n] < DIGIT for n in TABLE_1}
    truncated = [n for n, v in TABLE_1.items()
                 if Fraction(int(got[n] / DIGIT)) * DIGIT == Fraction(v)]
    text = (f"m = {SIEBERT_ADDRESSES:,} x {SIEBERT_PORTS:,} = {SIEBERT_PAIRS:.4g} pairs; "
            + ", ".join(f"{n}: {float(got[n]):.4g} %" for n in TABLE_1)
            + f"; {len(truncated)} of {len(TABLE_1)} entries are the value truncated to the "
            "table's 13 decimals, the others within one unit of the last")
    values = {"percent": {n: float(p) for n, p in got.items()},
              "off_in_last_digit": {n: float(o / DIGIT) for n, o in off.items()},
              "plot": {"xlabel": "communicators", "ylabel": "collision probability, %",
                       "logx": True, "logy": True, "series": {  # n = 1 (0 %) left out
                           "birthday formula": [(n, float(p)) for n, p in got.items() if p],
                           "Table 1": [(n, float(Fraction(v))) for n, v in TABLE_1.items()
                                       if n > 1]}}}
    return agree(matches, text, values, "probabilities")


CLAIMS = (
    Claim("siebert.collisions", "Siebert2006", "Random (address, port) pairs almost never "
          "collide: the birthday formula over about 5.5 * 10^12 pairs", PaperFigure(
              "section 1.7.2, Table 1", "p(n, m) = m! / (m^n (m - n)!), m = 200,540,160 "
              "addresses x 27,769 ports; at least one collision: 0.0000000000179 % with 2 "
              "communicators ... 0.0000003573481 % with 200",
              {str(n): v for n, v in TABLE_1.items()}),
          "every entry within one unit of its last printed digit (10^-13 %)", collisions),
)
