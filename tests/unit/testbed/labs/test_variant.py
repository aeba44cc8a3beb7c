"""testbed.labs.variant: a student's variant is derived from the instructor secret and the
student's id, stable for the student, different between students in the values their
answers depend on, another with another secret, and always within the bounds the lab
declares; a lab built with a variant asks and measures with its values."""

from __future__ import annotations

import itertools
import math
import tomllib
from dataclasses import replace

import pytest

from testbed.errors import UsageError
from testbed.experiments.kinds import from_dict
from testbed.labs import holes, igmp, labs, measuring, traffic, trees, unreliable
from testbed.labs.variant import (
    Addresses,
    Draws,
    Knob,
    VariantSpace,
    derive,
    describe,
    digest,
    seed,
    student_id,
)

SECRET, OTHER = b"s" * 32, b"t" * 32
STUDENTS = [f"student{i:03d}" for i in range(60)]
VARIED = sorted(n for n, lab in labs().items() if lab.variants)


def test_every_lab_has_variants() -> None:
    assert VARIED == sorted(labs()) == [1, 2, 3, 4, 5, 6]
    assert all(lab.variants.graded for lab in labs().values())


def test_draws_are_a_function_of_the_seed_alone() -> None:
    a, b, c = Draws(b"x"), Draws(b"x"), Draws(b"y")
    first = [a.below(1000) for _ in range(20)]
    assert first == [b.below(1000) for _ in range(20)]
    assert first != [c.below(1000) for _ in range(20)]
    assert all(0 <= v < 1000 for v in first)
    assert sorted(Draws(b"z").sample(range(10), 10)) == list(range(10))
    with pytest.raises(ValueError):
        Draws(b"x").below(0)


def test_addresses_are_administratively_scoped_and_index_back() -> None:
    a = Addresses()
    assert a[0] == "239.1.0.1" and a[-1] == "239.254.255.254" and len(a) == 254 * 256 * 254
    assert all(a[i] in a for i in (0, 1, 253, 254, 12345, len(a) - 1))
    for bad in ("239.255.255.250", "239.0.0.1", "239.1.1.0", "239.1.1.255", "224.0.0.1",
                "239.1.1", "239.01.1.1", 239, "x.1.1.1"):
        assert bad not in a, bad
    with pytest.raises(IndexError):
        a[len(a)]


@pytest.mark.parametrize("number", VARIED)
def test_a_students_variant_is_stable_and_within_the_labs_bounds(number: int) -> None:
    space = labs()[number].variants
    for s in STUDENTS:
        v = derive(space, SECRET, number, s)
        assert v == derive(space, SECRET, number, f"  {s} ")  # the id as given, trimmed
        assert space.problems(v) == [], (s, v)
        for k in space.knobs:
            assert k.within(v[k.name])


@pytest.mark.parametrize("number", VARIED)
def test_students_differ_in_what_their_answers_depend_on(number: int) -> None:
    """Among 60 students (1770 pairs) the share of pairs whose graded values meet is about
    1 / count_graded (uniform draws), never more than twice that, and most students have
    values of their own."""
    space = labs()[number].variants
    graded = [tuple(str(derive(space, SECRET, number, s)[k]) for k in space.graded)
              for s in STUDENTS]
    pairs = list(itertools.combinations(graded, 2))
    same = sum(a == b for a, b in pairs)
    assert same <= 2 * len(pairs) / space.count_graded() + 2, same
    assert len(set(graded)) >= min(len(STUDENTS), space.count_graded()) // 2


@pytest.mark.parametrize("number", VARIED)
def test_another_secret_gives_another_variant(number: int) -> None:
    """Without the secret, one's own variant says nothing of another's: the seed is an
    HMAC under the secret (another secret, another seed, and values that meet the first
    secret's no more often than two students' do: about 1 in the space's size; labs 2 and 3
    have 4 variants, so a quarter of them meet by chance)."""
    space = labs()[number].variants
    assert seed(SECRET, number, "ada") != seed(OTHER, number, "ada")
    assert seed(SECRET, number, "ada") != seed(SECRET, number + 1, "ada")
    size = math.prod(k.count() for k in space.knobs)
    same = sum(derive(space, SECRET, number, s) == derive(space, OTHER, number, s)
               for s in STUDENTS)
    assert same <= 2 * len(STUDENTS) / size + 3, same


def test_lab1s_group_alone_tells_any_two_students_apart() -> None:
    groups = {derive(igmp.VARIANTS, SECRET, 1, s)["group"] for s in STUDENTS}
    assert len(groups) == len(STUDENTS)


def test_a_knob_takes_only_its_values() -> None:
    one = Knob("n", "a count", 3, (3, 4, 5))
    assert one.within(4) and not one.within(6) and not one.within(True)
    assert not one.within(4.0) and not one.within("4")
    some = Knob("f", "nodes", [3, 5], tuple(range(3, 8)), sizes=(2, 3))
    assert some.within([3, 5]) and some.within([3, 4, 7])
    for bad in ([5, 3], [3, 3], [3], [3, 8], (3, 5), [3, 4, 5, 6]):
        assert not some.within(bad), bad
    assert some.count() == 10 + 10
    roles = Knob("r", "roles", ["a", "b"], ("a", "b", "c"), sizes=(2,), ordered=True)
    assert roles.within(["b", "a"]) and roles.count() == 6
    assert igmp.VARIANTS.count_graded() == 10 * 4 * 3


def test_a_variant_space_reads_values_strictly() -> None:
    space = holes.VARIANTS
    assert space.problems(space.defaults()) == []
    assert space.problems({"failed": [1, 2], "sent": 5}) == [
        "failed = [1, 2] is not one of the lab's values"]
    assert space.problems({"sent": 5, "x": 1}) == ["failed is missing",
                                                   "x is no value of this lab"]
    with pytest.raises(ValueError, match="why_none"):
        VariantSpace()
    with pytest.raises(ValueError, match="distinct"):
        VariantSpace((Knob("a", "", 1, (1,)),), graded=("b",))


def test_student_ids_are_one_line() -> None:
    assert student_id(" ada ") == "ada"
    for bad in ("", "  ", "a\nb"):
        with pytest.raises(UsageError, match="not a student id"):
            student_id(bad)


def test_a_digest_names_the_values() -> None:
    d = igmp.VARIANTS.defaults()
    assert digest(1, d) == digest(1, dict(d)) and len(digest(1, d)) == 12
    assert digest(1, d) != digest(1, d | {"sent": 6}) != digest(6, d)


def test_the_handouts_values_are_each_labs_own() -> None:
    """The lab as the handout shows it is the lab with its variants' defaults."""
    assert igmp.LAB.values == igmp.VARIANTS.defaults()
    assert igmp.LAB.values["group"] == "239.1.1.1" and igmp.LAB.controller.timers == igmp.TIMERS
    assert "h0 sends 5 datagrams to 239.1.1.1, which h1 and h2 joined" in \
        igmp.LAB.questions[0].text
    assert holes.LAB.values == {"failed": [3, 5], "sent": 5}
    assert unreliable.LAB.values == {"size": 8192, "loss": 0.05}
    assert measuring.LAB.values == {"large": 65536} == trees.LAB.values
    assert "t_hold of a 65536 B message" in measuring.LAB.questions[2].text
    assert "binomial for 65536 B, ms" in trees.LAB.questions[-5].text
    assert describe(igmp.VARIANTS, igmp.LAB.values)[0] == "  the group: 239.1.1.1"


def test_a_lab_built_with_a_variant_asks_and_runs_with_its_values() -> None:
    v = derive(igmp.VARIANTS, SECRET, 1, "ada")
    lab = igmp.LAB.vary(v)
    src, stays, leaves, out = v["roles"]
    assert lab.values == v and lab.number == 1 and lab.topology == igmp.LAB.topology
    text = lab.questions[0].text
    assert f"{src} sends {v['sent']} datagrams to {v['group']}" in text
    assert f"which {stays} and {leaves} joined" in text and out in lab.questions[1].text
    t = lab.controller.timers
    assert (t.query_interval, t.last_member_interval) == (v["query_interval_s"],
                                                          v["last_member_interval_s"])
    assert [q.key for q in lab.questions] == [q.key for q in igmp.LAB.questions]
    six = holes.LAB.vary({"failed": [4, 6, 7], "sent": 9})
    assert "left when 4, 6, 7 failed" in six.questions[0].text
    assert "to the 5 live nodes" in six.questions[5].text
    four = unreliable.LAB.vary({"size": 2048, "loss": 0.03})
    assert "of 2048 B" in four.questions[0].text and "0.03 loss" in four.questions[-1].text
    with pytest.raises(ValueError, match="sent = 99"):
        igmp.LAB.vary(v | {"sent": 99})
    with pytest.raises(ValueError, match="no variants"):
        replace(labs()[5], variants=VariantSpace(why_none="none here")).vary({})


@pytest.mark.parametrize("lab", [measuring.LAB, trees.LAB], ids=["lab2", "lab3"])
def test_a_time_lab_asks_and_measures_its_variants_large_message(lab) -> None:
    """Labs 2 and 3 vary the large message: every question about it names the variant's
    size, the small message's do not change, and the key's questions are the same."""
    for large in (16384, 131072):
        mine = lab.vary({"large": large})
        assert mine.values == {"large": large} and mine.topology == lab.topology
        assert [q.key for q in mine.questions] == [q.key for q in lab.questions]
        for q, handout in zip(mine.questions, lab.questions, strict=True):
            if "65536" in handout.text:
                assert handout.text.replace("65536", str(large)) == q.text
            else:
                assert q == handout
            assert (q.factor, q.abs_tol, q.kind) == (handout.factor, handout.abs_tol,
                                                      handout.kind)
    assert sum("65536" in q.text for q in lab.questions) >= 5


def test_lab5_asks_measures_and_writes_its_spec_with_the_variants_values() -> None:
    """Lab 5's variant: the size in every time's question, the hot spot in the hot-spot
    ones and in the traffic it measures under, and the students' spec with both (the
    handout's values give the handout's spec itself)."""
    assert traffic.LAB.values == {"size": 65536, "hot": "h1"}
    assert traffic.LAB.spec is not None and traffic.LAB.spec() == traffic.SPEC.read_text()
    mine = traffic.LAB.vary({"size": 16384, "hot": "h3"})
    assert all("16384 B" in q.text for q in mine.questions[:-1])
    assert [("hot spot h3" in q.text) for q in mine.questions] == [
        False, False, True, True, True, False]
    assert traffic.loads(mine.values)["hotspot"].hot == "h3"
    assert traffic.loads(mine.values)["background"] == traffic.LOADS["background"]
    assert mine.spec is not None
    spec = from_dict(tomllib.loads(mine.spec()))
    assert spec.sizes == (16384,) and spec.param_sizes == (16384,)
    assert spec.param_budget_bytes == traffic.MESSAGES * 16384 == 65536
    assert spec.traffic["hotspot"].hot == "h3"
    assert spec.traffic == traffic.loads(mine.values)  # the key measures what students run
    assert "aimed at h3" in mine.spec() and "16 KiB broadcasts" in mine.spec()
    handout = from_dict(tomllib.loads(traffic.LAB.spec()))
    assert (handout.repetitions, handout.warmup) == (traffic.REPETITIONS, traffic.WARMUP)
    assert handout.traffic == traffic.LOADS and handout.algorithms == tuple(
        alg for load, alg in traffic.RUNS if load == "hotspot")


def test_lab5s_hot_spot_leaves_the_broadcast_a_share_of_the_hot_link() -> None:
    """Lab 5's hot-spot generators take at most HOT_LINK_MAX of the hot spot's link on the
    wire, whichever member is the hot spot: at 80 % of the load to the hot spot (about 94 %
    on the wire) the broadcasts filled the rest and their times grew for as long as the
    condition ran (docs/labs.md)."""
    for hot in traffic.MEMBERS[1:]:
        spec = traffic.loads({"size": traffic.SIZE, "hot": hot})["hotspot"]
        assert 0.7 < traffic.hot_link_load(spec) <= traffic.HOT_LINK_MAX
    former = replace(traffic.LOADS["hotspot"], hot_fraction=0.8)
    assert traffic.hot_link_load(former) > 0.93
    assert traffic.hot_link_load(traffic.LOADS["background"]) == 0.0  # no hot spot there
