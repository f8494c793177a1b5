"""Calibration of the reusability decision on collections whose truth is known by
construction (bench/bench_calibration.py; a small version in the tests).

A *case* draws sites (and topics) at random and applies the verdict's decision
(:func:`litaudit.stats.holdout_shift.holdout_shift`: every site pair held out with equal
weight, the 90% interval of the relative shift against a margin, two one-sided tests at
``alpha``), and, beside it, the paper's chi-square of agreement in significance on one
random assignment with the pairs taken as independent, so that both can be compared.

- No bias by construction: every run scored with the full judgments on both sides (a
  per-topic score matrix such as robust2004_ap.csv, or a run archive's full qrels); the
  shift is then exactly 0, so a variant adds judging noise that depends on the hold-outs
  but is unbiased. The decision should rarely say "lose more than the margin".
- Bias by construction: a run archive whose held-out sites' runs are scored with qrels
  from the shallow (depth 10 or 20) pool of the other sites only, the Section 4.3
  simulation of Carterette et al. (2010) at a depth where the held-out sites' unique
  relevant documents go unjudged. The decision should say "lose more than the margin".
- Deep pools: the same archive pooled to depth 1000 (every document of every run), where
  a held-out site loses only the relevant documents no other site retrieves at all. The
  decision should say "reusable within the margin".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.holdout_pools import pool_scores
from litaudit.stats.agreement_null import agreement_statistics, pair_sets
from litaudit.stats.design import round_robin
from litaudit.stats.holdout_intervals import (
    INCONCLUSIVE,
    LOSE,
    REUSABLE,
)
from litaudit.stats.holdout_shift import holdout_shift


@dataclass(frozen=True)
class CaseResult:
    outcome: str  # REUSABLE, LOSE or INCONCLUSIVE
    shift_pct: float
    low: float  # the interval over topics
    high: float
    paper_rejected: bool  # the paper's chi-square (pairs independent), any analysis
    paper_p: tuple[float, ...]  # per analysis with >= 1 pair (within, between, participant)


@dataclass(kw_only=True, frozen=True)
class Rate:
    """How many cases of a family gave one outcome, with the Monte Carlo standard error."""

    count: int
    rate: float
    se: float  # sqrt(rate (1 - rate) / cases)
    upper95: float  # one-sided 95% upper bound (exact binomial)
    lower95: float  # one-sided 95% lower bound (exact binomial)


@dataclass(kw_only=True, frozen=True)
class FamilyResult:
    """The outcomes of one family of cases."""

    family: str
    cases: int
    reusable: Rate
    lose: Rate
    inconclusive: Rate
    below_zero: Rate  # the interval lies wholly below 0 (a one-sided 5% test of no shift)
    paper: Rate  # the paper's chi-square rejects
    mean_shift_pct: float
    mean_width_pct: float  # mean width of the interval


def rate(count: int, cases: int) -> Rate:
    """``count`` of ``cases`` with its standard error and exact one-sided 95% bounds."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    p = count / cases
    upper = float(stats.beta.ppf(0.95, count + 1, cases - count)) if count < cases else 1.0
    lower = float(stats.beta.ppf(0.05, count, cases - count + 1)) if count > 0 else 0.0
    return Rate(
        count=count, rate=p, se=float(np.sqrt(p * (1 - p) / cases)), upper95=upper, lower95=lower
    )


def _groups(n_runs: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Runs shuffled, then cut into m sites of nearly equal size."""
    perm = rng.permutation(n_runs)
    site = np.empty(n_runs, dtype=np.int64)
    site[perm] = (np.arange(n_runs) * m) // n_runs
    return site


def _subsets(m: int, k: int):
    subsets = ((),) + tuple(combinations(range(m), k))
    index = {s: n for n, s in enumerate(subsets)}
    return subsets, [index[tuple(sorted(s))] for s in round_robin(tuple(range(m)), k)]


def _assignment(n_topics: int, order, rng) -> np.ndarray:
    """Subset index per topic: the round robin after a random topic order (for the
    paper's chi-square on one assignment)."""
    slots = np.array([order[i % len(order)] for i in range(n_topics)])
    out = np.empty(n_topics, dtype=np.int64)
    out[rng.permutation(n_topics)] = slots
    return out


def _case(
    table: np.ndarray, site: np.ndarray, subsets, order, rng, alpha: float, margin_pct: float
) -> CaseResult:
    """``table``: (topics, subsets, runs) scores of the case."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    n_t = table.shape[0]
    m = int(site.max()) + 1
    r = holdout_shift(table, site, subsets, margin_pct=margin_pct, alpha=alpha)
    sub = _assignment(n_t, order, rng)
    held = np.zeros((m, n_t), dtype=bool)
    for t, s in enumerate(sub):
        held[list(subsets[s]), t] = True
    scores = table[np.arange(n_t), sub].T
    ps = [
        stats.chi2.sf(a.x2, 3)
        for a in agreement_statistics(scores, held, pair_sets(site), alpha=alpha)
        if a.pairs
    ]
    return CaseResult(
        r.outcome,
        r.shift_pct,
        r.ci.low,
        r.ci.high,
        bool(any(p < alpha for p in ps)),
        tuple(float(p) for p in ps),
    )


def matrix_case(
    scores,
    rng: np.random.Generator,
    *,
    sites: int = 14,
    noise: float = 0.0,
    alpha: float = defaults.REUSE_ALPHA,
    margin_pct: float = defaults.REUSE_MARGIN_PCT,
) -> CaseResult:
    """No bias by construction, from a runs x topics full-judgment matrix. ``noise`` > 0
    adds independent Normal(0, noise) errors to every (topic, held-out subset, run)
    score: the scores then depend on the hold-outs, but with no bias against the
    held-out runs (the shift is no longer exactly 0)."""
    x = np.asarray(scores, dtype=float)
    site = _groups(x.shape[0], sites, rng)
    subsets, order = _subsets(sites, defaults.AGREEMENT_K)
    table = np.broadcast_to(x.T[:, None, :], (x.shape[1], len(subsets), x.shape[0]))
    if noise > 0:
        table = table + rng.normal(0.0, noise, size=table.shape)
    return _case(table, site, subsets, order, rng, alpha, margin_pct)


def archive_case(
    coded,
    rng: np.random.Generator,
    *,
    depth: int | None,
    sites: int,
    topics: int | None = None,
    noise: float = 0.0,
    alpha: float = defaults.REUSE_ALPHA,
    margin_pct: float = defaults.REUSE_MARGIN_PCT,
) -> CaseResult:
    """A run archive case: ``depth`` None scores with the full judgments (no bias by
    construction; ``noise`` as in :func:`matrix_case`), else the depth-``depth`` pools of
    the sites not held out."""

    site = _groups(len(coded.tags), sites, rng)
    ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=depth or 1)
    n_t = ps.ap.shape[0]
    keep = np.sort(rng.choice(n_t, size=topics, replace=False)) if topics else np.arange(n_t)
    if depth is None:
        full = ps.full[:, keep]
        table = np.broadcast_to(full.T[:, None, :], (keep.size, len(ps.subsets), full.shape[0]))
        if noise > 0:
            table = table + rng.normal(0.0, noise, size=table.shape)
    else:
        table = ps.ap[keep]
    subsets, order = _subsets(sites, defaults.AGREEMENT_K)
    return _case(table, site, subsets, order, rng, alpha, margin_pct)


def run_family(
    family: str,
    cases: int,
    make_case: Callable[[np.random.Generator], CaseResult],
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> FamilyResult:
    """``cases`` independent cases, case i drawn with ``default_rng([seed, i])``."""
    results = []
    for i in range(cases):
        results.append(make_case(np.random.default_rng([seed, i])))
        if progress is not None:
            progress(1)
    outs = [r.outcome for r in results]
    return FamilyResult(
        family=family,
        cases=cases,
        reusable=rate(outs.count(REUSABLE), cases),
        lose=rate(outs.count(LOSE), cases),
        inconclusive=rate(outs.count(INCONCLUSIVE), cases),
        below_zero=rate(sum(r.high < 0 for r in results), cases),
        paper=rate(sum(r.paper_rejected for r in results), cases),
        mean_shift_pct=float(np.mean([r.shift_pct for r in results])),
        mean_width_pct=float(np.mean([r.high - r.low for r in results])),
    )
