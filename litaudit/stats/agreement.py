"""Agreement in statistical significance between baseline and reuse topics
(Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Section 3.2.1).

For every pair of runs, one paired t-test over the topics both contributed judgments to
(baseline) and one over the topics they were held out from (reuse). The observed 2x2 table
counts the pairs by (baseline significant?, reuse significant?):

                    reuse p < a   reuse p >= a
    baseline p < a      [0, 0]        [0, 1]     <- [0, 1]: errors of omission
    baseline p >= a     [1, 0]        [1, 1]     <- [1, 0]: errors of commission

The expected table adds, for every pair, the outer product of its powers over the two topic
sets, the effect size being estimated on the baseline topics (paper: "the expectation that
both tests come out significant is simply the product of their estimated powers"). Tables
are summed over sites, and a chi-square goodness-of-fit test (df 3) compares the observed
counts with the expected ones: exact (the multinomial enumerated) when an expected count
is small, asymptotic otherwise. The paper's APL example (observed [[6,3],[0,1]] against
expected [[7.098,2.043],[0.073,0.786]]) reports p = 0.88 from a randomized exact test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.agreement_chisq import ChiSquareFit, chisq_gof
from litaudit.stats.power import effect_size, paired_t_power

CORRECTIONS = ("none", "holm", "bonferroni")


def paired_t_pvalue(differences) -> float:
    """Two-sided p-value of the paired t-test on per-topic differences.

    Constant differences have sd 0: p = 1 if they are all zero, else p = 0.
    """
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ParameterError("the paired t-test needs at least 2 topics")
    e = effect_size(d)
    if np.isinf(e):
        return 0.0
    if e == 0.0 and not np.any(d):
        return 1.0
    t = e * np.sqrt(d.size)
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    return float(2.0 * stats.t.sf(abs(t), d.size - 1))


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """Family-wise adjusted p-values: 'none', 'bonferroni', or Holm's step-down.

    Holm (1979): sort ascending, p_(i) * (M - i + 1) for i = 1..M, running maximum,
    capped at 1, returned in the input order.
    """
    p = np.asarray(pvalues, dtype=float)
    if method not in CORRECTIONS:
        raise ParameterError(
            f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ParameterError("p-values must lie in [0, 1]")
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adj = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty_like(adj)
    out[order] = adj
    return out


def effective_alpha(pvalues, alpha: float, method: str) -> np.ndarray:
    """The per-test level each raw p-value is compared with under the correction.

    'none': alpha; 'bonferroni': alpha / M; 'holm': alpha / (M - r + 1) with r the rank of
    the p-value (the level Holm's step-down compares it with). Used for the power of each
    test, so that the expected table matches the corrected decisions (for Holm this is an
    approximation: the level a test would actually meet depends on the other tests).
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if method not in CORRECTIONS:
        raise ParameterError(
            f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    if method == "none" or m == 0:
        return np.full(m, float(alpha))
    if method == "bonferroni":
        return np.full(m, alpha / m)
    ranks = np.empty(m, dtype=int)
    ranks[np.argsort(p, kind="stable")] = np.arange(1, m + 1)
    return alpha / (m - ranks + 1)


def observed_table(sig_baseline, sig_reuse) -> np.ndarray:
    """2x2 counts of pairs by (baseline significant?, reuse significant?); see module doc."""
    b = np.asarray(sig_baseline, dtype=bool)
    r = np.asarray(sig_reuse, dtype=bool)
    if b.shape != r.shape:
        raise ParameterError("baseline and reuse decisions must have the same length")
    return np.array(
        [[np.sum(b & r), np.sum(b & ~r)], [np.sum(~b & r), np.sum(~b & ~r)]], dtype=np.int64
    )


def expected_table(power_baseline, power_reuse) -> np.ndarray:
    """Sum over pairs of [[pb pr, pb (1-pr)], [(1-pb) pr, (1-pb)(1-pr)]] (Section 3.2.1).

    The cells sum to the number of pairs.
    """
    pb = np.asarray(power_baseline, dtype=float)
    pr = np.asarray(power_reuse, dtype=float)
    if pb.shape != pr.shape:
        raise ParameterError("baseline and reuse powers must have the same length")
    if np.any((pb < 0) | (pb > 1) | (pr < 0) | (pr > 1)) or np.any(np.isnan(pb + pr)):
        raise ParameterError("powers must lie in [0, 1]")
    return np.array(
        [
            [np.sum(pb * pr), np.sum(pb * (1 - pr))],
            [np.sum((1 - pb) * pr), np.sum((1 - pb) * (1 - pr))],
        ]
    )


@dataclass(frozen=True)
class PairTests:
    """The two paired t-tests of one pair of runs, and their powers."""

    n_baseline: int
    n_reuse: int
    mean_difference: float  # on the baseline topics
    effect: float  # mean / sd of the baseline differences
    p_baseline: float
    p_reuse: float


def pair_tests(diff_baseline, diff_reuse) -> PairTests:
    """Paired t-tests on the baseline and reuse differences of one pair of runs."""
    db = np.asarray(diff_baseline, dtype=float)
    dr = np.asarray(diff_reuse, dtype=float)
    return PairTests(
        int(db.size),
        int(dr.size),
        float(db.mean()) if db.size else float("nan"),
        effect_size(db),
        paired_t_pvalue(db),
        paired_t_pvalue(dr),
    )


@dataclass(frozen=True)
class AgreementTable:
    """Observed and expected agreement in significance over a family of pairs."""

    pairs: int
    alpha: float
    correction: str
    observed: tuple[tuple[int, int], tuple[int, int]]
    expected: tuple[tuple[float, float], tuple[float, float]]
    fit: ChiSquareFit | None  # None when there are no pairs


@dataclass(frozen=True)
class Decisions:
    """Per-pair significance decisions and powers for one family of pair tests."""

    alpha: float
    correction: str
    sig_baseline: tuple[bool, ...]
    sig_reuse: tuple[bool, ...]
    power_baseline: tuple[float, ...]
    power_reuse: tuple[float, ...]


def decide(tests, alpha: float = 0.05, correction: str = "none") -> Decisions:
    """Significance decisions and powers of a family of pair tests.

    With a correction the baseline and the reuse p-values are adjusted as two families (of
    all the pairs given), and every power is computed at the level the correction compares
    that test with (:func:`effective_alpha`).
    """
    tests = list(tests)
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    if correction not in CORRECTIONS:
        raise ParameterError(
            f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)}"
        )
    if not tests:
        return Decisions(alpha, correction, (), (), (), ())
    pb = np.array([t.p_baseline for t in tests])
    pr = np.array([t.p_reuse for t in tests])
    eff = np.array([t.effect for t in tests])
    nb = np.array([t.n_baseline for t in tests])
    nr = np.array([t.n_reuse for t in tests])
    pow_b = np.atleast_1d(paired_t_power(eff, nb, effective_alpha(pb, alpha, correction)))
    pow_r = np.atleast_1d(paired_t_power(eff, nr, effective_alpha(pr, alpha, correction)))
    return Decisions(
        alpha,
        correction,
        tuple(bool(v) for v in adjust_pvalues(pb, correction) < alpha),
        tuple(bool(v) for v in adjust_pvalues(pr, correction) < alpha),
        tuple(float(v) for v in pow_b),
        tuple(float(v) for v in pow_r),
    )


def table(decisions: Decisions, index=None, method: str = "auto") -> AgreementTable:
    """Observed and expected tables (and their fit) over the pairs ``index`` (default all)."""
    idx = np.arange(len(decisions.sig_baseline)) if index is None else np.asarray(index, dtype=int)
    if idx.size == 0:
        z = ((0, 0), (0, 0))
        return AgreementTable(
            0, decisions.alpha, decisions.correction, z, ((0.0, 0.0), (0.0, 0.0)), None
        )
    obs = observed_table(np.array(decisions.sig_baseline)[idx], np.array(decisions.sig_reuse)[idx])
    exp = expected_table(
        np.array(decisions.power_baseline)[idx], np.array(decisions.power_reuse)[idx]
    )
    return _table(int(idx.size), decisions.alpha, decisions.correction, obs, exp, method)


def agreement(
    tests, alpha: float = 0.05, correction: str = "none", method: str = "auto"
) -> AgreementTable:
    """Observed and expected tables and their chi-square fit for one family of pair tests."""
    return table(decide(tests, alpha, correction), method=method)


def _table(pairs: int, alpha: float, correction: str, obs, exp, method: str) -> AgreementTable:
    fit = chisq_gof(obs, exp, method=method)
    o, e = np.asarray(obs), np.asarray(exp)
    return AgreementTable(
        pairs,
        alpha,
        correction,
        ((int(o[0, 0]), int(o[0, 1])), (int(o[1, 0]), int(o[1, 1]))),
        ((float(e[0, 0]), float(e[0, 1])), (float(e[1, 0]), float(e[1, 1]))),
        fit,
    )


def aggregate(tables, method: str = "auto") -> AgreementTable:
    """Sum observed and expected tables over sites and refit (the paper's Tables 3-5)."""
    tables = [t for t in tables if t.pairs]
    if not tables:
        raise ParameterError("no tables with pairs to aggregate")
    if len({(t.alpha, t.correction) for t in tables}) > 1:
        raise ParameterError("tables to aggregate must share alpha and correction")
    obs = sum(np.array(t.observed) for t in tables)
    exp = sum(np.array(t.expected) for t in tables)
    return _table(
        sum(t.pairs for t in tables), tables[0].alpha, tables[0].correction, obs, exp, method
    )
