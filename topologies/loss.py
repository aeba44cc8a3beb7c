"""Loss as users write it, the same everywhere (the command line, the prompt, experiment
specs, topology files, Emulation.set_loss): a fraction of the packets in [0, 1], or a
percentage with its sign ("5%").

A bare 1 is refused, in text and as a Python int: Mininet's `loss=` is a percentage, so a
Mininet user's 1 means one percent, where a fraction 1 drops every packet. Cutting a link
is written 1.0 or 100%. Numbers above 1 are refused with the percentage they would be."""

from __future__ import annotations

import math
import re

_ONE = re.compile(r"\+?0*1")  # "1", "+1", "01": an integer one, as text


def loss_fraction(value: float | int | str, what: str = "loss") -> float:
    """The fraction of packets `value` asks to drop; ValueError naming `what` and the
    spellings that work."""
    if isinstance(value, bool):
        raise ValueError(f"{what}: a fraction of packets, not {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            fraction = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise ValueError(f"{what}: {value!r} is not a fraction (0.05) or a percentage "
                             "(5%)") from None
        one = _ONE.fullmatch(text) is not None
    else:
        fraction, one = float(value), isinstance(value, int) and value == 1
    if one:
        raise ValueError(f"{what}: 1 would drop every packet; write 1.0 or 100% for that, "
                         "0.01 or 1% for one percent")
    if not math.isfinite(fraction) or not 0 <= fraction <= 1:
        shown = f" ({fraction:.0%} of the packets)" if math.isfinite(fraction) else ""
        raise ValueError(f"{what}: {value!r}{shown} is not a fraction in [0, 1]; write 0.05 "
                         "or 5% for five percent")
    return fraction
