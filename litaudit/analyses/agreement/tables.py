"""The agreement-in-significance test and power analysis of Carterette, Kanoulas, Pavlu
and Fang (SIGIR 2010, Section 3.2.1) on tables given by hand, for `litaudit reuse table`
and `litaudit reuse power`: the APL example and Tables 3-5 can be checked from the CLI.

- :func:`power_rows`: the power of a two-sided paired t-test for an effect size over n
  topics (the paper: effect 0.260, power 0.964 over 210 topics and 0.354 over 39);
- :func:`table_test`: an observed 2x2 table (both significant, baseline only, reuse only,
  neither) against an expected table, given directly or built from pairs (effect size,
  baseline topics, reuse topics) by the products of their powers; the chi-square
  goodness of fit (df 3) exactly (the multinomial enumerated, when feasible) and
  asymptotically. The p-values treat the pairs as independent, as the paper does: right
  for a table like APL's, anti-conservative for thousands of pairs sharing one topic
  split (docs/STATISTICS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from litaudit import defaults
from litaudit.errors import ParameterError
from litaudit.stats.agreement import expected_table
from litaudit.stats.agreement_chisq import MAX_EXACT_OUTCOMES, chisq_gof
from litaudit.stats.power import paired_t_power


@dataclass(frozen=True)
class PowerRow:
    effect: float
    topics: int
    alpha: float
    power: float


def power_rows(
    effects: Sequence[float], topics: Sequence[int], alpha: float = defaults.REUSE_ALPHA
) -> tuple[PowerRow, ...]:
    """Power for every (effect, topics) combination."""
    if not effects or not topics:
        raise ParameterError("give at least one effect size and one number of topics")
    return tuple(
        PowerRow(float(e), int(n), alpha, float(paired_t_power(e, n, alpha)))
        for e in effects
        for n in topics
    )


@dataclass(frozen=True)
class Pair:
    """One pair of runs of a power-analysis table."""

    effect: float
    n_baseline: int
    n_reuse: int
    power_baseline: float
    power_reuse: float


@dataclass(frozen=True, kw_only=True)
class TableTest:
    """Observed against expected agreement, with exact and asymptotic chi-square p."""

    observed: tuple[int, int, int, int]  # both, baseline only, reuse only, neither
    expected: tuple[float, float, float, float]  # as given or built (before rescaling)
    pairs: tuple[Pair, ...]  # when built from effect sizes
    statistic: float
    df: int
    p_exact: float | None
    outcomes: int  # multinomial outcomes of the exact test
    p_asymptotic: float
    note: str


def parse_cells(text: str, what: str) -> tuple[float, ...]:
    """Four comma-separated cells ``a,b,c,d`` (row by row: [[a, b], [c, d]])."""
    try:
        cells = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ParameterError(f"{what}: expected four numbers a,b,c,d, got {text!r}") from None
    if len(cells) != 4:
        raise ParameterError(f"{what}: expected four numbers a,b,c,d, got {len(cells)}")
    return cells


def parse_pair(text: str, alpha: float) -> Pair:
    """``effect:n_baseline:n_reuse`` as a :class:`Pair` with its two powers."""
    parts = text.split(":")
    try:
        e, nb, nr = float(parts[0]), int(parts[1]), int(parts[2])
        if len(parts) != 3:
            raise ValueError
    except (ValueError, IndexError):
        raise ParameterError(
            f"--pair: expected effect:baseline_topics:reuse_topics, got {text!r}"
        ) from None
    return Pair(e, nb, nr, float(paired_t_power(e, nb, alpha)), float(paired_t_power(e, nr, alpha)))


def table_test(
    observed: Sequence[float], expected: Sequence[float] | None = None, pairs: Sequence[Pair] = ()
) -> TableTest:
    """The chi-square goodness of fit of ``observed`` to ``expected`` (or to the table the
    ``pairs``' powers give), both exact and asymptotic."""
    obs = np.asarray(observed, dtype=float)
    if obs.size != 4 or np.any(obs < 0) or np.any(obs != np.floor(obs)):
        raise ParameterError("the observed table needs four non-negative integer counts")
    if (expected is None) == (not pairs):
        raise ParameterError("give the expected table or the pairs' effect sizes, not both")
    if expected is None:
        exp = expected_table(
            [p.power_baseline for p in pairs], [p.power_reuse for p in pairs]
        ).ravel()
        if abs(exp.sum() - obs.sum()) > 1e-9:
            raise ParameterError(
                f"{len(pairs)} pair(s) given but the observed table counts {int(obs.sum())}"
            )
    else:
        exp = np.asarray(expected, dtype=float)
    asym = chisq_gof(obs, exp, method="asymptotic")
    outcomes = comb(int(obs.sum()) + 3, 3)
    p_exact, note = None, asym.note
    if outcomes <= MAX_EXACT_OUTCOMES:
        p_exact = chisq_gof(obs, exp, method="exact").p_value
    else:
        note = (
            f"exact enumeration would need {outcomes} outcomes (limit "
            f"{MAX_EXACT_OUTCOMES}): asymptotic only"
        )
    return TableTest(
        observed=(int(obs[0]), int(obs[1]), int(obs[2]), int(obs[3])),
        expected=(float(exp[0]), float(exp[1]), float(exp[2]), float(exp[3])),
        pairs=tuple(pairs),
        statistic=asym.statistic,
        df=asym.df,
        p_exact=p_exact,
        outcomes=outcomes,
        p_asymptotic=asym.p_value,
        note=note,
    )


def table_of_options(
    observed: str, expected: str | None, pairs: Sequence[str], alpha: float
) -> TableTest:
    """`reuse table` asked once: its options as typed (``--observed a,b,c,d``, then
    ``--expected a,b,c,d`` or ``--pair effect:baseline_topics:reuse_topics`` repeated, at
    level ``alpha``), parsed and tested (:func:`table_test`)."""
    return table_test(
        parse_cells(observed, "--observed"),
        parse_cells(expected, "--expected") if expected else None,
        tuple(parse_pair(p, alpha) for p in pairs),
    )
