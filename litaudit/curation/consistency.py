"""Value consistency: what the arithmetic of a measure allows a printed value to be.

Three checks, each a :class:`Finding` with the possible explanations:

- **granularity**: a mean over n topics of a measure whose per-topic values lie on a
  lattice of step 1/D is a multiple of 1/(D n). P@k: D = k (the number of relevant
  documents in the top k, over k); RR@1 (Success@1): D = 1; RR@k: D = lcm(1..k); Success@k
  and Judged@k (when the registry has them): 1 and k. A printed value with d decimals
  stands for any true value within half a unit of its last digit (rounding, half-up or
  half-even); a value no count can produce at its printed digits is a transcription slip,
  another topic count (249 for 250: trec_eval without -c averages over the topics a run
  answered), truncation instead of rounding, or a mislabelled measure (NIST's 'P_10' of
  the early TRECs was P@15: seeds/README.md). The check says which of these fit.
  It says nothing when the printed digits are coarser than the lattice (3 decimals of a
  P@10 over 249 topics: every value fits), so it cannot raise a false alarm there.
- **range**: outside the measure's declared range ([0, 1] for all of today's).
- **contradiction**: two measures of the same system, source and topics that the
  definitions order: R@k, RR@k, AP@k and Success@k never decrease with k, k * P@k (the
  relevant documents in the top k) never decreases with k, RR >= RR@k, AP >= AP@k,
  P@1 = RR@1. Printed values are compared with half a unit of their last digits allowed
  either way.

Pure: no database, no files (``litaudit.curation.consistency_store`` and the importer feed
it rows). Values are the printed text, compared exactly (``fractions.Fraction``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from litaudit.measures import MeasureName, parse_measure

# measures whose per-topic values lie on a lattice: family -> per-topic denominator(k)
_LATTICE = {
    "P": lambda k: k,
    "Judged": lambda k: k,
    "Success": lambda k: 1,
    "RR": lambda k: math.lcm(*range(1, k + 1)),
}
# cutoffs a mislabelled P@k might really be (NIST's P_10 was P@15 for years)
_OTHER_CUTOFFS = (5, 10, 15, 20, 30, 100)
# a value printed with more decimals than this is a binary float's repr (MTEB's
# 0.46120650725913914): a mean computed in floating point is within FLOAT_ERROR of the
# exact one, far more than half a unit of its 17th digit
FLOAT_DIGITS = 12
FLOAT_ERROR = Fraction(1, 10**12)
# largest lattice worth checking (RR@10: 2520 per topic is finer than any printed digit)
_MAX_DENOMINATOR = 10**9


@dataclass(frozen=True, kw_only=True)
class Value:
    """One result as the check sees it: where it is (``where``: file and line, or a
    result id), its group (same source, paper or track, collection, topics, system, role)
    and its measure, printed value and topic count."""

    where: str
    group: tuple
    measure: str
    value: str
    n_topics: int | None


@dataclass(frozen=True, kw_only=True)
class Finding:
    """A value the arithmetic does not allow, with what could explain it."""

    kind: str  # granularity | range | contradiction
    where: str
    measure: str
    value: str
    message: str
    explanations: tuple[str, ...]
    other: str = ""  # the other value of a contradiction (its where)

    def line(self) -> str:
        why = "; ".join(self.explanations)
        return f"{self.where}: {self.message}" + (f" (possible: {why})" if why else "")


# a value's interval, worked out once per printed text (contradictions compare each value
# with every other of its group)
@lru_cache(maxsize=1 << 16)
def _interval(printed: str) -> tuple[Fraction, Fraction, Fraction]:
    """(value, half a unit of its last digit, a unit): 0.2531 -> (0.2531, 0.00005, 0.0001)."""
    v = Fraction(printed.strip())
    decimals = len(printed.strip().split(".", 1)[1]) if "." in printed else 0
    unit = Fraction(1, 10**decimals)
    if decimals > FLOAT_DIGITS:  # a binary float's repr: its error, not its last digit
        for d in range(FLOAT_DIGITS + 1):  # rounded to d decimals before it became a float
            short = Fraction(round(v * 10**d), 10**d)
            if abs(short - v) <= FLOAT_ERROR:
                u = Fraction(1, 10**d)
                return short, u / 2, u
        return v, FLOAT_ERROR, FLOAT_ERROR * 2
    return v, unit / 2, unit


def per_topic_denominator(m: MeasureName) -> int | None:
    """D such that the measure's per-topic values are multiples of 1/D (None: no lattice)."""
    f = _LATTICE.get(m.family)
    if f is None or m.cutoff is None:
        return None
    d = f(m.cutoff)
    return d if d <= _MAX_DENOMINATOR else None


def fits(printed: str, denominator: int, *, truncated: bool = False) -> bool:
    """Whether some c / denominator (c an integer) prints as ``printed``: rounded to its
    digits (within half a unit, either rounding rule), or truncated (``truncated``)."""
    scaled = _scaled(printed)
    if scaled is not None:  # n / s: the same test in integers (no Fraction to build)
        n, s = scaled
        if truncated:  # c = ceil(n D / s) < (n + 1) D / s
            return -(-n * denominator // s) * s < (n + 1) * denominator
        # c = ceil((2n - 1) D / 2s) <= (2n + 1) D / 2s
        return -(-(2 * n - 1) * denominator // (2 * s)) * 2 * s <= (2 * n + 1) * denominator
    v, half, unit = _interval(printed)
    lo, hi = (v, v + unit) if truncated else (v - half, v + half)
    c = math.ceil(lo * denominator)
    x = Fraction(c, denominator)
    return x <= hi and (x < hi or not truncated)


_DECIMAL = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?")


def _scaled(printed: str) -> tuple[int, int] | None:
    """A plain decimal of at most FLOAT_DIGITS decimals as (n, 10**decimals), its value
    n / 10**decimals; None for any other text (an exponent, a float's repr)."""
    m = _DECIMAL.fullmatch(printed.strip())
    if m is None or not (m[2] or m[3]):
        return None
    decimals = m[3] or ""
    if len(decimals) > FLOAT_DIGITS:
        return None
    n = int((m[2] or "0") + decimals)
    return (-n if m[1] == "-" else n), 10 ** len(decimals)


def granularity(v: Value) -> Finding | None:
    """The granularity finding of one value, or None when some count produces it."""
    try:
        m = parse_measure(v.measure)
    except Exception:  # noqa: BLE001 - an unknown measure is the importer's problem
        return None
    d = per_topic_denominator(m)
    if d is None or not v.n_topics or v.n_topics < 1:
        return None
    n = v.n_topics
    if fits(v.value, d * n):
        return None
    why: list[str] = []
    if fits(v.value, d * n, truncated=True):
        why.append("truncation instead of rounding")
    near = [n2 for n2 in range(max(1, n - 3), n + 4) if n2 != n and fits(v.value, d * n2)]
    if near:
        why.append("another topic count: " + ", ".join(str(x) for x in near))
    if m.family in ("P", "Judged"):
        # only cutoffs whose lattice is coarser than the printed digits: a finer one fits
        # every value and explains nothing
        unit = _interval(v.value)[2]
        cuts = [
            k
            for k in _OTHER_CUTOFFS
            if k != m.cutoff and Fraction(1, k * n) > unit and fits(v.value, k * n)
        ]
        if cuts:
            name = m.family
            why.append("a mislabelled measure: " + ", ".join(f"{name}@{k}" for k in cuts))
    why.append("a transcription slip")
    return Finding(
        kind="granularity",
        where=v.where,
        measure=v.measure,
        value=v.value,
        message=(
            f"{v.measure} {v.value} over {n} topics: no mean of per-topic values in steps of "
            f"1/{d} prints so (a multiple of 1/{d * n} at {_decimals(v.value)} decimals)"
        ),
        explanations=tuple(why),
    )


def _decimals(printed: str) -> int:
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def _in_range(printed: str, lo: float, hi: float) -> bool:
    scaled = _scaled(printed)
    if scaled is None:
        return Fraction(lo) <= Fraction(printed.strip()) <= Fraction(hi)
    n, s = scaled  # lo <= n / s <= hi in integers (lo and hi are exact binary fractions)
    (a, b), (c, d) = lo.as_integer_ratio(), hi.as_integer_ratio()
    return a * s <= n * b and n * d <= c * s


def out_of_range(v: Value) -> Finding | None:
    try:
        m = parse_measure(v.measure)
    except Exception:  # noqa: BLE001
        return None
    if _in_range(v.value, m.min_value, m.max_value):
        return None
    x = Fraction(v.value.strip())
    why = ["a percentage (divide by 100)"] if 1 < x <= 100 and m.max_value == 1 else []
    why.append("a transcription slip")
    return Finding(
        kind="range",
        where=v.where,
        measure=v.measure,
        value=v.value,
        message=f"{v.measure} {v.value} is outside [{m.min_value:g}, {m.max_value:g}]",
        explanations=tuple(why),
    )


def _order(a: MeasureName, b: MeasureName) -> str | None:
    """How the definitions order a and b of one system ('le': a <= b; 'eq'; 'kle': k_a a
    <= k_b b); None: no order. Only same family and relevance level."""
    if a.family != b.family or a.rel != b.rel:
        return None
    ka, kb = a.cutoff, b.cutoff
    if a.family in ("R", "RR", "AP", "Success"):
        if ka is not None and (kb is None or ka < kb):
            return "le"
        return None
    if a.family in ("P", "Judged") and ka is not None and kb is not None and ka < kb:
        return "kle" if a.family == "P" else None
    return None


def contradictions(values: Sequence[Value]) -> list[Finding]:
    """Pairs of values of one group that their measures' definitions order the other way."""
    out: list[Finding] = []
    groups: dict[tuple, list[tuple[Value, MeasureName]]] = {}
    for v in values:
        try:
            groups.setdefault(v.group, []).append((v, parse_measure(v.measure)))
        except Exception:  # noqa: BLE001, S112 - unknown measures are reported elsewhere
            continue
    for members in groups.values():
        for a, ma in members:
            for b, mb in members:
                f = _contradiction(a, ma, b, mb)
                if f is not None:
                    out.append(f)
    return out


def _contradiction(a: Value, ma: MeasureName, b: Value, mb: MeasureName) -> Finding | None:
    order = _order(ma, mb)
    rr1 = (
        ma.family == "P"
        and ma.cutoff == 1
        and mb.family == "RR"
        and mb.cutoff == 1
        and ma.rel == mb.rel
    )
    if order is None and not rr1:
        return None
    va, ha, _ = _interval(a.value)
    vb, hb, _ = _interval(b.value)
    if rr1:
        if abs(va - vb) <= ha + hb:
            return None
        msg = f"{a.measure} {a.value} differs from {b.measure} {b.value} (they are equal by definition)"
    elif order == "le":
        if va - ha <= vb + hb:
            return None
        msg = f"{a.measure} {a.value} is above {b.measure} {b.value} (it can only be at most that)"
    else:
        ka, kb = ma.cutoff or 0, mb.cutoff or 0
        if ka * (va - ha) <= kb * (vb + hb):
            return None
        msg = (
            f"{ka} x {a.measure} {a.value} is above {kb} x {b.measure} {b.value} (the relevant "
            f"documents in the top {ka} cannot outnumber those in the top {kb})"
        )
    return Finding(
        kind="contradiction",
        where=a.where,
        measure=a.measure,
        value=a.value,
        message=msg,
        explanations=(
            "a transcription slip in either value",
            "values from different runs or settings under one system name",
            "a mislabelled measure",
        ),
        other=b.where,
    )


def check_values(values: Iterable[Value]) -> list[Finding]:
    """Every finding of ``values``: range, then granularity, then contradictions (in the
    order of the values)."""
    vs = list(values)
    out: list[Finding] = []
    for v in vs:
        r = out_of_range(v)
        if r is not None:
            out.append(r)
            continue
        g = granularity(v)
        if g is not None:
            out.append(g)
    out.extend(contradictions(vs))
    return out
