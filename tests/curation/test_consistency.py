"""litaudit.curation.consistency: what a measure's arithmetic allows a printed value to be."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.curation.consistency import (
    Value,
    check_values,
    contradictions,
    fits,
    granularity,
    out_of_range,
    per_topic_denominator,
)
from litaudit.measures import parse_measure
from tests.conftest import examples


def v(measure, value, n=50, group=("s",), where="f.csv:2"):
    return Value(where=where, group=group, measure=measure, value=value, n_topics=n)


def test_lattices():
    assert per_topic_denominator(parse_measure("P@10")) == 10
    assert per_topic_denominator(parse_measure("P(rel=2)@20")) == 20
    assert per_topic_denominator(parse_measure("RR@1")) == 1
    assert per_topic_denominator(parse_measure("RR@10")) == 2520
    assert per_topic_denominator(parse_measure("AP")) is None
    assert per_topic_denominator(parse_measure("nDCG@10")) is None
    assert per_topic_denominator(parse_measure("R@1000")) is None


def test_fits_closed_forms():
    # 0.4520 = 113/250 exactly: P@10 over 25 topics (denominator 250)
    assert fits("0.4520", 250)
    assert fits("0.452", 250)
    # 1/3 prints 0.3333 (rounded) and 0.3333 (truncated); 2/3 prints 0.6667, truncated 0.6666
    assert fits("0.6667", 3) and not fits("0.6666", 3)
    assert fits("0.6666", 3, truncated=True)
    # 0.4531 over P@10, 50 topics (multiples of 0.002): no
    assert not fits("0.4531", 500)


def test_nist_p10_that_was_p15():
    # a mean of P@15 over 50 topics, printed as P@10: 0.4427 = 332/750 (rounded); no
    # multiple of 1/500 prints 0.4427
    f = granularity(v("P@10", "0.4427", 50))
    assert f is not None and f.kind == "granularity"
    assert any("P@15" in e for e in f.explanations)
    assert f.explanations[-1] == "a transcription slip"


def test_other_topic_count_and_truncation():
    # 0.4659 = 116/249 (P@1 over 249 topics) rounded; over 250 topics nothing prints so
    f = granularity(v("P@1", "0.4659", 250))
    assert f is not None
    assert any("another topic count: " in e and "249" in e for e in f.explanations)
    # 2/3 truncated prints 0.6666: Success@1 = RR@1 over 3 topics
    f = granularity(v("RR@1", "0.6666", 3))
    assert f is not None and "truncation instead of rounding" in f.explanations


def test_coarse_digits_say_nothing():
    # 3 decimals of P@10 over 249 topics: the lattice (1/2490) is finer than the digits
    assert granularity(v("P@10", "0.437", 249)) is None
    assert granularity(v("nDCG@10", "0.43712", 43)) is None


def test_range():
    f = out_of_range(v("nDCG@10", "71.7"))
    assert f is not None and f.explanations[0] == "a percentage (divide by 100)"
    assert out_of_range(v("nDCG@10", "0.717")) is None


def test_contradictions():
    vals = [
        v("R@100", "0.87", where="a:2"),
        v("R@1000", "0.85", where="a:3"),
        v("P@5", "0.40", where="a:4"),
        v("P@10", "0.10", where="a:5"),  # 10 x 0.10 = 1 relevant < 5 x 0.40 = 2
        v("RR@10", "0.35", where="a:6"),
        v("RR", "0.36", where="a:7"),  # fine
    ]
    found = contradictions(vals)
    assert [(f.where, f.other) for f in found] == [("a:2", "a:3"), ("a:4", "a:5")]
    # half a unit either way: 0.870 vs 0.8695 is no contradiction
    assert contradictions([v("R@100", "0.870"), v("R@1000", "0.8695")]) == []
    # other groups are not compared
    assert contradictions([v("R@100", "0.9", group=(1,)), v("R@1000", "0.1", group=(2,))]) == []


def test_p1_equals_rr1():
    found = contradictions([v("P@1", "0.50"), v("RR@1", "0.52")])
    assert found and found[0].kind == "contradiction"


def test_check_values_order():
    fs = check_values([v("P@10", "1.5"), v("P@10", "0.4531", 50)])
    assert [f.kind for f in fs] == ["range", "granularity"]


@given(
    n=st.integers(1, 300),
    k=st.sampled_from([1, 5, 10, 15, 20]),
    data=st.data(),
)
def test_every_true_mean_passes(n, k, data):
    """Any count over k n, rounded half-even to 4 decimals, passes (no false alarm)."""
    c = data.draw(st.integers(0, k * n))
    x = Fraction(c, k * n)
    printed = str(Decimal(x.numerator) / Decimal(x.denominator))  # 28 digits
    printed = str(Decimal(printed).quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))
    assert granularity(v(f"P@{k}", printed, n)) is None


def _fits_by_fractions(printed: str, denominator: int, truncated: bool) -> bool:
    """fits' definition, in Fractions: some c / D within half a unit of the printed
    digits (or, truncated, in [value, value + unit))."""
    value = Fraction(printed.strip())
    digits = printed.strip().split(".", 1)[1] if "." in printed else ""
    unit = Fraction(1, 10 ** len(digits))
    lo, hi = (value, value + unit) if truncated else (value - unit / 2, value + unit / 2)
    x = Fraction(-(-lo.numerator * denominator // lo.denominator), denominator)
    return x <= hi and (x < hi or not truncated)


@settings(max_examples=examples(200))
@given(
    sign=st.sampled_from(["", "-", "+"]),
    whole=st.sampled_from(["", "0", "1", "12"]),
    decimals=st.text("0123456789", min_size=0, max_size=12),
    denominator=st.one_of(st.sampled_from([1, 10, 15 * 249, 2520 * 50]), st.integers(1, 10**7)),
    truncated=st.booleans(),
)
def test_fits_in_integers_is_fits_in_fractions(sign, whole, decimals, denominator, truncated):
    """fits and the range check work plain decimals out in integers: the same answers as
    the Fractions they stand for, at the lattice's edges too."""
    printed = sign + whole + ("." + decimals if decimals or not whole else "")
    if not (whole or decimals):
        return
    assert fits(printed, denominator, truncated=truncated) == _fits_by_fractions(
        printed, denominator, truncated
    )
    x = Fraction(printed)
    assert (out_of_range(v("AP", printed)) is None) == (0 <= x <= 1)
