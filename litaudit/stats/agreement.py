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

import functools
from dataclasses import dataclass
from math import comb

import numpy as np
from scipy import stats
from scipy.special import gammaln

from litaudit.errors import ParameterError
from litaudit.stats.power import effect_size, paired_t_power

CORRECTIONS = ("none", "holm", "bonferroni")
SMALL_EXPECTED = 5.0  # Cochran's rule: asymptotic chi-square needs every E >= 5
MAX_EXACT_OUTCOMES = 10_000_000


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


@dataclass(frozen=True, kw_only=True)
class ChiSquareFit:
    """Chi-square goodness of fit of observed counts to expected counts."""

    observed: tuple[int, ...]
    expected: tuple[float, ...]  # rescaled to the observed total
    statistic: float
    df: int
    p_value: float
    method: str  # 'exact' (multinomial enumerated) or 'asymptotic'
    outcomes: int | None  # multinomial outcomes enumerated (exact only)
    note: str


def _exact_pvalue(obs: np.ndarray, prob: np.ndarray, x0: float) -> float:
    """P(X^2 >= x0) under Multinomial(n, prob), summed over every outcome.

    The first c - 3 cells are enumerated in Python, the next two as a grid, the last one
    is what remains; outcomes are compared with a relative tolerance of 1e-9 so that
    tables tied with the observed one count as "at least as extreme".
    """
    n = int(obs.sum())
    c = prob.size
    e = n * prob
    logf = gammaln(np.arange(n + 1) + 1.0)
    logp = np.log(prob)
    tol = 1e-9 * max(1.0, x0)
    total = 0.0
    grid = np.arange(n + 1)

    def tail(rest: int, x_part: float, lp_part: float) -> float:
        if c == 2:
            a = grid[: rest + 1]
            cells = [(a, 0), (rest - a, 1)]
        else:
            a = grid[: rest + 1, None]
            b = grid[None, : rest + 1]
            last = rest - a - b
            ok = last >= 0
            last = np.where(ok, last, 0)
            cells = [(a, c - 3), (b, c - 2), (last, c - 1)]
        x = x_part + sum((v - e[i]) ** 2 / e[i] for v, i in cells)
        lp = lp_part + sum(v * logp[i] - logf[v] for v, i in cells)
        sel = x >= x0 - tol
        if c > 2:
            sel &= ok
        return float(np.exp(lp[sel] + logf[n]).sum()) if np.any(sel) else 0.0

    def rec(depth: int, rest: int, x_part: float, lp_part: float) -> None:
        nonlocal total
        if depth >= c - 3:
            total += tail(rest, x_part, lp_part)
            return
        for j in range(rest + 1):
            rec(
                depth + 1,
                rest - j,
                x_part + (j - e[depth]) ** 2 / e[depth],
                lp_part - logf[j] + j * logp[depth],
            )

    rec(0, n, 0.0, 0.0)
    return min(1.0, total)


def chisq_gof(
    observed, expected, method: str = "auto", max_outcomes: int = MAX_EXACT_OUTCOMES
) -> ChiSquareFit:
    """Pearson chi-square goodness of fit of ``observed`` counts to ``expected`` counts.

    The expected counts are rescaled to the observed total (they must already agree with
    it to within 1%, as power-analysis tables do). Cells with expected count 0 are dropped
    when their observed count is 0 (p = 0 otherwise); df = cells - 1.
    ``method``: 'exact' enumerates every multinomial outcome and sums the probability of
    those with X^2 at least the observed one; 'asymptotic' uses chi-square(df); 'auto'
    is exact when some expected count is below 5 and the enumeration has at most
    ``max_outcomes`` outcomes, asymptotic otherwise.
    """
    o, e_in, n = _checked_tables(observed, expected, method)
    e = e_in * (n / e_in.sum())
    fit = functools.partial(
        ChiSquareFit, observed=tuple(int(v) for v in o), expected=tuple(float(v) for v in e)
    )
    zero = e <= 0
    if np.any(zero & (o > 0)):
        return fit(
            statistic=float("inf"),
            df=int(o.size) - 1,
            p_value=0.0,
            method="exact",
            outcomes=None,
            note="a cell with expected count 0 was observed",
        )
    keep = ~zero
    o_k, e_k = o[keep].astype(np.int64), e[keep]
    df = int(keep.sum()) - 1
    if df == 0:
        return fit(
            statistic=0.0,
            df=0,
            p_value=1.0,
            method="exact",
            outcomes=1,
            note="only one cell has a positive expected count",
        )
    x0 = float(np.sum((o_k - e_k) ** 2 / e_k))
    outcomes = comb(n + df, df)
    method, note = _method(method, bool(np.any(e_k < SMALL_EXPECTED)), outcomes, max_outcomes)
    if method == "exact":
        if outcomes > max_outcomes:
            raise ParameterError(
                f"exact enumeration needs {outcomes} outcomes (limit {max_outcomes})"
            )
        p = _exact_pvalue(o_k, e_k / n, x0)
        return fit(statistic=x0, df=df, p_value=p, method="exact", outcomes=outcomes, note=note)
    p = float(stats.chi2.sf(x0, df))
    return fit(statistic=x0, df=df, p_value=p, method="asymptotic", outcomes=None, note=note)


def _checked_tables(observed, expected, method: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(observed, expected, observed total) of :func:`chisq_gof`, checked."""
    o = np.asarray(observed, dtype=float).ravel()
    e_in = np.asarray(expected, dtype=float).ravel()
    if o.shape != e_in.shape or o.size < 2:
        raise ParameterError("observed and expected need the same number (>= 2) of cells")
    if np.any(o < 0) or np.any(o != np.floor(o)):
        raise ParameterError("observed counts must be non-negative integers")
    if np.any(e_in < 0) or np.any(~np.isfinite(e_in)):
        raise ParameterError("expected counts must be finite and non-negative")
    if method not in ("auto", "exact", "asymptotic"):
        raise ParameterError(f"unknown method {method!r}; choose auto, exact or asymptotic")
    n = int(o.sum())
    if n == 0:
        raise ParameterError("the observed table is empty")
    if abs(e_in.sum() - n) > 0.01 * n + 1e-9:
        raise ParameterError(f"expected counts sum to {e_in.sum():.4g}, observed to {n}")
    return o, e_in, n


def _method(method: str, small: bool, outcomes: int, max_outcomes: int) -> tuple[str, str]:
    """The method 'auto' stands for (exact when an expected count is small and the
    enumeration is small enough), and the note that says why when it is not exact."""
    if method != "auto":
        return method, ""
    if small and outcomes <= max_outcomes:
        return "exact", ""
    if small:
        return "asymptotic", (
            f"asymptotic although an expected count is below {SMALL_EXPECTED:g}: "
            f"exact enumeration would need {outcomes} outcomes"
        )
    return "asymptotic", ""


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
