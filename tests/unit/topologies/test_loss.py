"""topologies.loss: a fraction or a percentage, the same spelling everywhere; a bare 1 and
anything past every packet refused with the spellings that work."""

import pytest

from topologies.loss import loss_fraction


@pytest.mark.parametrize(("given", "fraction"), [
    (0, 0.0), (0.05, 0.05), ("0.05", 0.05), ("5%", 0.05), ("2.5%", 0.025),
    ("100%", 1.0), (1.0, 1.0), ("1.0", 1.0), ("0%", 0.0), (0.999, 0.999)])
def test_fractions_and_percentages(given: float | str, fraction: float) -> None:
    assert loss_fraction(given) == pytest.approx(fraction)


@pytest.mark.parametrize(("given", "message"), [
    ("1", "1 would drop every packet; write 1.0 or 100%"), (1, "0.01 or 1% for one percent"),
    ("5", r"\(500% of the packets\) is not a fraction"), (5.0, "write 0.05 or 5%"),
    ("150%", "150%"), ("-0.1", "not a fraction in"), ("lots", "is not a fraction"),
    ("nan", "is not a fraction in"), (True, "not True")])
def test_what_is_refused(given: float | str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        loss_fraction(given, "--loss")
