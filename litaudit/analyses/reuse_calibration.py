"""Calibration and power of the reusability verdict's test on collections reusable or
non-reusable by construction (bench/bench_calibration.py; a small version in the tests).

A *case* draws sites and hold-outs at random and applies the verdict's deciding test
(:func:`litaudit.stats.holdout_shift.holdout_shift` on the case's score table, level
``alpha``), and, beside it, the paper's chi-square of agreement in significance on one
random assignment with the pairs taken as independent (the test the old verdict gated
on), so that both rates can be compared.

- Reusable by construction: every run scored with the full judgments on both sides
  (a per-topic score matrix such as robust2004_ap.csv, or a run archive's full qrels);
  runs grouped into random sites, held-out topics assigned at random. The verdict's
  statistic is then exactly 0, so a variant adds judging noise that depends on the
  hold-outs but is unbiased, under which the test's size is 5%, not 0.
- Non-reusable by construction: a run archive whose held-out sites' runs are scored with
  qrels from the shallow (depth 10 or 20) pool of the other sites only, the Section 4.3
  simulation of Carterette et al. (2010) at a depth where the held-out sites' unique
  relevant documents go unjudged; random sites, a random half of the topics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from litaudit import defaults
from litaudit.stats.agreement_null import agreement_statistics, pair_sets
from litaudit.stats.design import round_robin
from litaudit.stats.holdout_shift import holdout_shift, round_robin_counts


@dataclass(frozen=True)
class CaseResult:
    rejected: bool  # the verdict's test: evidence against reuse
    p_value: float
    shift_pct: float
    paper_rejected: bool  # the paper's chi-square (pairs independent), any analysis
    paper_p: tuple[float, ...]  # per analysis with >= 1 pair (within, between, participant)


@dataclass(kw_only=True, frozen=True)
class FamilyResult:
    """Rejection rate of one family of cases, with its Monte Carlo standard error."""

    family: str
    cases: int
    rejections: int
    rate: float
    se: float  # sqrt(rate (1 - rate) / cases)
    upper95: float  # one-sided 95% upper bound (exact binomial)
    paper_rejections: int
    paper_rate: float
    paper_se: float
    mean_shift_pct: float


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
    """Subset index per topic: the round robin after a random topic order."""
    slots = np.array([order[i % len(order)] for i in range(n_topics)])
    out = np.empty(n_topics, dtype=np.int64)
    out[rng.permutation(n_topics)] = slots
    return out


def _case(table: np.ndarray, site: np.ndarray, subsets, order, rng, alpha: float) -> CaseResult:
    """``table``: (topics, subsets, runs) scores of the case."""
    n_t = table.shape[0]
    m = int(site.max()) + 1
    r = holdout_shift(table, round_robin_counts(subsets, n_t, 0, order), site, subsets)
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
        bool(r.p_value < alpha),
        r.p_value,
        r.shift_pct,
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
) -> CaseResult:
    """Reusable by construction from a runs x topics full-judgment matrix. ``noise`` > 0
    adds independent Normal(0, noise) errors to every (topic, held-out subset, run)
    score: the scores then depend on the hold-outs, but with no bias against the
    held-out runs (a null that does not make the statistic exactly 0)."""
    x = np.asarray(scores, dtype=float)
    site = _groups(x.shape[0], sites, rng)
    subsets, order = _subsets(sites, defaults.AGREEMENT_K)
    table = np.broadcast_to(x.T[:, None, :], (x.shape[1], len(subsets), x.shape[0]))
    if noise > 0:
        table = table + rng.normal(0.0, noise, size=table.shape)
    return _case(table, site, subsets, order, rng, alpha)


def archive_case(
    coded,
    rng: np.random.Generator,
    *,
    depth: int | None,
    sites: int,
    topics: int | None = None,
    alpha: float = defaults.REUSE_ALPHA,
) -> CaseResult:
    """A run archive case: ``depth`` None scores with the full judgments (reusable by
    construction), else the depth-``depth`` pools of the sites not held out."""
    from litaudit.analyses.holdout_pools import pool_scores

    site = _groups(len(coded.tags), sites, rng)
    ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=depth or 1)
    n_t = ps.ap.shape[0]
    keep = np.sort(rng.choice(n_t, size=topics, replace=False)) if topics else np.arange(n_t)
    if depth is None:
        full = ps.full[:, keep]
        table = np.broadcast_to(full.T[:, None, :], (keep.size, len(ps.subsets), full.shape[0]))
    else:
        table = ps.ap[keep]
    subsets, order = _subsets(sites, defaults.AGREEMENT_K)
    return _case(table, site, subsets, order, rng, alpha)


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
    rej = sum(r.rejected for r in results)
    paper = sum(r.paper_rejected for r in results)
    rate, prate = rej / cases, paper / cases
    upper = float(stats.beta.ppf(0.95, rej + 1, cases - rej)) if rej < cases else 1.0
    return FamilyResult(
        family=family,
        cases=cases,
        rejections=rej,
        rate=rate,
        se=float(np.sqrt(rate * (1 - rate) / cases)),
        upper95=upper,
        paper_rejections=paper,
        paper_rate=prate,
        paper_se=float(np.sqrt(prate * (1 - prate) / cases)),
        mean_shift_pct=float(np.mean([r.shift_pct for r in results])),
    )
