"""A lab of one's own per student (``mcastlab lab N --variant ...``): what a lab lets vary
(`VariantSpace`, a field of its testbed.labs.lab.Lab record: each value's name, the value
the handout shows and the values it may take), and a student's values, drawn by a small
deterministic generator (`Draws`) seeded by HMAC-SHA256(instructor secret, lab and student
id), so that only the secret's holder derives anyone's variant. Pure: no network, no files
(testbed.labs.variant_file writes and reads a student's signed variant file).

The generator is counter-mode SHA-256 over the seed, not Python's random: the same
student gets the same variant on every Python and machine, for as long as CONTEXT stays."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from ..errors import UsageError

CONTEXT = b"mcastlab lab variant v1\n"  # what the seed's MAC is of: a variant, this derivation
DIGEST_CHARS = 12  # a variant's digest as an answer file names it (48 bits)

Values = Mapping[str, Any]


class Draws:
    """Numbers from a seed: SHA-256(seed, counter), 64 bits a draw (the modulo's bias on a
    choice among n is below n / 2**64)."""

    def __init__(self, seed: bytes) -> None:
        self._seed, self._n = seed, 0

    def below(self, n: int) -> int:
        if n < 1:
            raise ValueError("nothing to draw from")
        block = hashlib.sha256(self._seed + self._n.to_bytes(8, "big")).digest()
        self._n += 1
        return int.from_bytes(block[:8], "big") % n

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        """k distinct items in drawn order (a partial Fisher-Yates shuffle)."""
        pool = list(items)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


class Addresses(Sequence[str]):
    """The multicast groups a lab may give a student: 239.A.B.C (administratively scoped,
    RFC 2365) with A in 1..254, B in 0..255, C in 1..254: nothing link-local, no
    239.255.x.x (site-local: SSDP's 239.255.255.250), no .0 or .255 host octet."""

    def __len__(self) -> int:
        return 254 * 256 * 254

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        a, rest = divmod(i, 256 * 254)
        b, c = divmod(rest, 254)
        return f"239.{a + 1}.{b}.{c + 1}"

    def __contains__(self, v: object) -> bool:
        if not isinstance(v, str):
            return False
        parts = v.split(".")
        if len(parts) != 4 or not all(p.isdigit() and str(int(p)) == p for p in parts):
            return False
        first, a, b, c = map(int, parts)
        return first == 239 and 1 <= a <= 254 and 0 <= b <= 255 and 1 <= c <= 254

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))


@dataclass(frozen=True)
class Knob:
    """One value a lab lets vary: `default` is the handout's, `what` says where the handout
    uses it; the value is one of `choices`, or (with `sizes`) a list of that many distinct
    ones, in drawn order when `ordered` (roles), else sorted."""

    name: str
    what: str
    default: Any
    choices: Sequence[Any]
    sizes: tuple[int, ...] = ()
    ordered: bool = False

    def draw(self, d: Draws) -> Any:
        if not self.sizes:
            return self.choices[d.below(len(self.choices))]
        picked = d.sample(self.choices, self.sizes[d.below(len(self.sizes))])
        return picked if self.ordered else sorted(picked)

    def within(self, v: Any) -> bool:
        """Whether v is a value this knob may take (a variant file's value, read back)."""
        if not self.sizes:
            return _is_choice(v, self.choices)
        return (isinstance(v, list) and len(v) in self.sizes and len(set(v)) == len(v)
                and all(_is_choice(x, self.choices) for x in v)
                and (self.ordered or v == sorted(v)))

    def count(self) -> int:
        """How many values this knob may take."""
        n = len(self.choices)
        if not self.sizes:
            return n
        total = 0
        for k in self.sizes:
            ways = 1
            for i in range(k):
                ways *= n - i
            if not self.ordered:
                for i in range(2, k + 1):
                    ways //= i
            total += ways
        return total


def _is_choice(v: Any, choices: Sequence[Any]) -> bool:
    if isinstance(v, bool):  # TOML's true is no count
        return False
    return v in choices and type(v) is type(next(iter(choices)))


@dataclass(frozen=True)
class VariantSpace:
    """What a lab lets vary. `graded` names the knobs its checked answers depend on: two
    students whose graded values are equal could share answers (count_graded says how
    likely)."""

    knobs: tuple[Knob, ...] = ()
    graded: tuple[str, ...] = ()
    why_none: str = ""  # for a lab without knobs: why it has no variants yet

    def __post_init__(self) -> None:
        names = [k.name for k in self.knobs]
        if len(set(names)) != len(names) or not set(self.graded) <= set(names):
            raise ValueError("knob names must be distinct and graded ones among them")
        if not self.knobs and not self.why_none:
            raise ValueError("a lab without variants says why (why_none)")

    def __bool__(self) -> bool:
        return bool(self.knobs)

    def defaults(self) -> dict[str, Any]:
        return {k.name: k.default for k in self.knobs}

    def draw(self, seed: bytes) -> dict[str, Any]:
        d = Draws(seed)
        return {k.name: k.draw(d) for k in self.knobs}

    def count_graded(self) -> int:
        """How many distinct graded values there are (a class's chance that two students
        share them is about pairs / this)."""
        n = 1
        for k in self.knobs:
            if k.name in self.graded:
                n *= k.count()
        return n

    def problems(self, values: Values) -> list[str]:
        """What makes `values` no variant of this space (read from a file)."""
        out = [f"{k.name} = {values[k.name]!r} is not one of the lab's values"
               for k in self.knobs if k.name in values and not k.within(values[k.name])]
        out += [f"{k.name} is missing" for k in self.knobs if k.name not in values]
        known = {k.name for k in self.knobs}
        out += [f"{name} is no value of this lab" for name in sorted(set(values) - known)]
        return out


def student_id(student: str) -> str:
    """A student's id as derivations take it (surrounding blanks dropped); an empty one is a
    UsageError."""
    s = student.strip()
    if not s or "\n" in s:
        raise UsageError(f"--variant: {student!r} is not a student id (one line, e.g. "
                         "the student's login)")
    return s


def seed(secret: bytes, lab: int, student: str) -> bytes:
    """HMAC-SHA256(secret, CONTEXT, lab, student): the generator's seed for a student's
    variant of a lab (RFC 2104: without the secret, one student's seed says nothing of
    another's)."""
    msg = CONTEXT + f"lab {lab}\nstudent {student_id(student)}\n".encode()
    return hmac.new(secret, msg, hashlib.sha256).digest()


def derive(space: VariantSpace, secret: bytes, lab: int, student: str) -> dict[str, Any]:
    """A student's values of a lab (a lab without variants: none)."""
    return space.draw(seed(secret, lab, student)) if space else {}


def digest(lab: int, values: Values) -> str:
    """A variant's name as an answer file and a key carry it: SHA-256 of the lab and its
    values (not of the secret: it names the values, it proves nothing)."""
    text = json.dumps({"lab": lab, "values": dict(values)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def show(x: Any) -> str:
    """A value as a student reads it (a list as its items)."""
    return ", ".join(map(str, x)) if isinstance(x, list) else str(x)


def describe(space: VariantSpace, values: Values) -> list[str]:
    """The lines a student reads: each value of the variant, and the handout's value it
    stands for."""
    out = []
    for k in space.knobs:
        v, d = values[k.name], k.default
        out.append(f"  {k.what}: {show(v)}" + ("" if v == d else
                                               f"   (the handout's {show(d)})"))
    return out
