"""Holm's step-down correction of several p-values for the family-wise error rate.

Holm, "A Simple Sequentially Rejective Multiple Test Procedure", Scandinavian Journal of
Statistics 6(2), 1979: sort the m p-values p_(1) <= ... <= p_(m); the adjusted value of
p_(i) is max over j <= i of min(1, (m - j + 1) p_(j)); a hypothesis is rejected at level
alpha when its adjusted value is at most alpha. Controls the family-wise error rate under
any dependence between the tests.

Pure: sequences in, tuples out.
"""

from __future__ import annotations

import math

from litaudit.errors import ParameterError


def holm(p_values) -> tuple[float, ...]:
    """Holm-adjusted p-values, in the order given."""
    ps = [float(p) for p in p_values]
    for p in ps:
        if not (math.isfinite(p) and 0.0 <= p <= 1.0):
            raise ParameterError(f"a p-value must lie in [0, 1], got {p!r}")
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return tuple(out)
