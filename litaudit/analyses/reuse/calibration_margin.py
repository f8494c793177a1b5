"""Calibration of the reusability decision where its truth is known exactly and lies at or
near the margin (issue 31); the rest of the calibration, and its families without bias and
with bias by construction: :mod:`litaudit.analyses.reuse.calibration`.

At the margin: the real loss pattern of an archive's pools (every run's score under every
hold-out less its score with nothing held out) scaled by a constant c so that the shift
over all the archive's topics is exactly ``target_pct`` (:func:`scaled_loss`), then the
topics resampled with replacement (the archive's topics stand for the population). The
shift is linear in c (the scores' centring and the sums over subsets are linear in the
table, the mask of scored cells does not move), so c is solved from c = 0 and c = 1.

Sites as a sample: the real per-topic shifts of an archive's sites at one pool depth
(topics x sites), moved by one constant so that the mean over its sites and topics is
exactly ``target_pct`` of the mean score (the sites' own effects kept;
:func:`site_sample`); a case draws sites with replacement (the archive's sites stand for
the population of sites) and the topics with replacement, and decides from the per-topic
shifts (not a new pooling simulation: the shifts of the drawn sites as the archive's pools
gave them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.calibration import Rate, rate
from litaudit.analyses.reuse.holdout_pools import pool_scores
from litaudit.stats.holdout_intervals import (
    INCONCLUSIVE,
    LOSE,
    REUSABLE,
    Bootstrap,
    Interval,
    decide_interval,
    ratio_interval,
    site_sample_interval,
)
from litaudit.stats.holdout_shift import BOOT_T, DELTA, KNOWN_MEAN, shift_of_sums
from litaudit.stats.holdout_sums import TopicSums, site_topic_shifts, topic_sums
from litaudit.stats.reuse_sites import new_site_interval, new_site_outcome


@dataclass(frozen=True)
class ScaledLoss:
    """An archive's pools at one depth as per-topic sums, with the loss scaled to make
    the shift over all topics exactly ``target_pct`` (see above)."""

    depth: int
    target_pct: float
    scale: float  # c
    sums: TopicSums  # of the scaled table
    site: np.ndarray
    n_subsets: int
    topics: int


def scaled_loss(coded, *, depth: int, target_pct: float) -> ScaledLoss:
    """The real loss pattern of ``coded``'s depth-``depth`` pools (its own sites held out
    in pairs) scaled so that the relative shift over all its topics is ``target_pct``."""

    site = np.asarray(coded.participant_of_run, dtype=np.int64)
    ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=depth)
    y = ps.ap
    flat = np.where(np.isfinite(y), y[:, :1, :], np.nan)  # no loss, same scored cells
    sy, sb = topic_sums(y, site, ps.subsets), topic_sums(flat, site, ps.subsets)
    n_s = len(ps.subsets)

    def scaled(c: float) -> TopicSums:
        return TopicSums(
            sb.g + c * (sy.g - sb.g), sb.h + c * (sy.h - sb.h), sy.base, sy.n_held, sy.n_other
        )

    r0 = shift_of_sums(scaled(0.0), site, n_s).shift_pct
    r1 = shift_of_sums(scaled(1.0), site, n_s).shift_pct
    c = (target_pct - r0) / (r1 - r0)
    return ScaledLoss(
        depth=depth,
        target_pct=target_pct,
        scale=float(c),
        sums=scaled(c),
        site=site,
        n_subsets=n_s,
        topics=y.shape[0],
    )


@dataclass(kw_only=True, frozen=True)
class MarginFamily:
    """The outcomes of one family whose true shift is known (``target_pct``), with how
    often the interval covers it."""

    family: str
    cases: int
    target_pct: float
    reusable: Rate
    lose: Rate
    inconclusive: Rate
    covered: Rate  # the interval holds the true shift
    mean_width_pct: float


def margin_family(
    family: str,
    cases: int,
    truth: float,
    make_case: Callable[[np.random.Generator], dict[str, tuple[str, float, float]]],
    seed: int,
) -> dict[str, MarginFamily]:
    """``cases`` cases, case i drawn with ``default_rng([seed, i])``, each giving an
    (outcome, low, high) per interval method, against the true shift ``truth`` (%): the
    family's outcomes per method."""
    res = [make_case(np.random.default_rng([seed, i])) for i in range(cases)]
    out = {}
    for method in res[0]:
        rows = [x[method] for x in res]
        outs = [o for o, _, _ in rows]
        out[method] = MarginFamily(
            family=family,
            cases=cases,
            target_pct=truth,
            reusable=rate(outs.count(REUSABLE), cases),
            lose=rate(outs.count(LOSE), cases),
            inconclusive=rate(outs.count(INCONCLUSIVE), cases),
            covered=rate(sum(lo <= truth <= hi for _, lo, hi in rows), cases),
            mean_width_pct=float(np.mean([hi - lo for _, lo, hi in rows])),
        )
    return out


def scaled_case(
    loss: ScaledLoss,
    rng: np.random.Generator,
    *,
    alpha: float = defaults.REUSE_ALPHA,
    margin_pct: float = defaults.REUSE_MARGIN_PCT,
    resamples: int = defaults.REUSE_BOOTSTRAP,
) -> dict[str, tuple[str, float, float]]:
    """One case of a :func:`scaled_loss` family: the topics resampled with replacement,
    the decision on them (outcome, interval) with each interval: the verdict's
    (studentized bootstrap, ``resamples``), the delta method's, and the mean score taken
    as known (the interval before issue 31)."""

    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats as st

    idx = rng.integers(0, loss.topics, size=loss.topics)
    boot = Bootstrap(resamples=resamples, seed=int(rng.integers(2**31)))
    sums = loss.sums.take(idx)
    r = shift_of_sums(
        sums, loss.site, loss.n_subsets, margin_pct=margin_pct, alpha=alpha, bootstrap=boot
    )
    d = shift_of_sums(sums, loss.site, loss.n_subsets, margin_pct=margin_pct, alpha=alpha)
    q = float(st.t.ppf(1 - alpha, loss.topics - 1))
    half = q * (d.se_known_mean_pct or 0.0)
    known = Interval(d.shift_pct, d.shift_pct - half, d.shift_pct + half, d.ci.df)
    return {
        name: (decide_interval(ci, margin_pct), ci.low, ci.high)
        for name, ci in ((BOOT_T, r.ci), (DELTA, d.ci), (KNOWN_MEAN, known))
    }


@dataclass(frozen=True)
class SiteSample:
    """Per-topic shifts of an archive's sites (topics x sites, score points), moved so the
    mean over sites and topics is ``target_pct`` % of the mean score, and the topics'
    contributions to the mean score."""

    depth: int
    target_pct: float
    zs: np.ndarray
    b: np.ndarray


def site_sample(coded, *, depth: int, target_pct: float) -> SiteSample:
    """:class:`SiteSample` of ``coded``'s depth-``depth`` pools (its own sites)."""

    site = np.asarray(coded.participant_of_run, dtype=np.int64)
    ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=depth)
    zs, b = site_topic_shifts(topic_sums(ps.ap, site, ps.subsets), site, len(ps.subsets))
    zs = zs - zs.mean() + target_pct / 100 * b.mean()
    return SiteSample(depth=depth, target_pct=target_pct, zs=zs, b=b)


def site_case(
    pop: SiteSample,
    rng: np.random.Generator,
    *,
    sites: int,
    alpha: float = defaults.REUSE_ALPHA,
    margin_pct: float = defaults.REUSE_MARGIN_PCT,
    resamples: int = defaults.REUSE_BOOTSTRAP,
    min_sites: int = defaults.REUSE_NEW_SITE_SITES,
) -> dict[str, tuple[str, float, float]]:
    """One case: ``sites`` sites and the topics drawn with replacement; the decision
    (outcome, interval) for a new site with each interval: the verdict's (the wider of
    the pigeonhole bootstrap-t, ``resamples``, and Hall's, "reusable" from ``min_sites``
    sites on; :mod:`litaudit.stats.reuse_sites`), the same interval without the floor,
    the two-way t interval (the verdict's before), and the interval over topics alone
    (the drawn sites taken as fixed)."""

    n_t, m = pop.zs.shape
    ti, si = rng.integers(0, n_t, size=n_t), rng.integers(0, m, size=sites)
    zs, b = pop.zs[ti][:, si], pop.b[ti]
    level = 1 - 2 * alpha
    boot = Bootstrap(resamples=resamples, seed=int(rng.integers(2**31)))
    safe = new_site_interval(zs, b, float(b.mean()), level, boot)[0]
    decided = new_site_outcome(safe, sites, margin_pct, min_sites)[0]
    two = site_sample_interval(zs, b, float(b.mean()), level)
    one = ratio_interval(zs.mean(axis=1), b, float(b.mean()), level, None)[0]
    return {
        f"the verdict's (skew-safe interval, reusable from {min_sites} sites)": (
            decided,
            safe.low,
            safe.high,
        ),
        "skew-safe interval, no floor": (decide_interval(safe, margin_pct), safe.low, safe.high),
        "two-way random effects t (before)": (decide_interval(two, margin_pct), two.low, two.high),
        "topics only (the drawn sites as fixed)": (
            decide_interval(one, margin_pct),
            one.low,
            one.high,
        ),
    }
