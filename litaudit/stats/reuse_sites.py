"""The relative shift of a new site's runs when few sites, with skewed effects, are the
sample (issue 31; after :func:`litaudit.stats.holdout_intervals.site_sample_interval`).

Input: ``zs`` (topics x sites), each site's mean shift of its held-out runs on each topic
(score points), and ``b`` (topics), each topic's contribution to the mean score
(:func:`~litaudit.stats.holdout_intervals.topic_means`). The quantity is R = mean over the
population of sites and topics of zs / mean score, every site weighing the same.

The symmetric two-way random-effects t interval (Satterthwaite df) assumes the site
effects near normal. robust03's are skewed (at depth 100, re-centred to a mean of -1%:
one site -5.4%, four between -2.7% and -1.4%, ten between -0.9% and +0.2%): a few sites
drawn from them often hold none of the tail, their mean then lies above the truth with a
small spread, and at a true -1% the t interval said "reusable within 1%" in 10.8-17.8% of
the cases (bench/bench_calibration.py, "sites as a sample"). Two corrections, the wider
of which is the interval (:func:`new_site_interval`):

- the studentized pigeonhole bootstrap (bootstrap-t over a crossed design: the topics and
  the sites resampled independently with replacement, McCullagh, Bernoulli 6, 2000; Owen,
  Annals of Applied Statistics 1, 2007), T* = (R* - R) / se*(R*) with se the two-way
  random-effects se, the interval [R - T*_(1-a) se, R - T*_(a) se]. It carries the skew
  the sample shows, in topics and in sites;
- Hall's (1992) skewness-removing transformation of the t statistic over sites (Hall,
  JRSS B 54, "On the removal of skewness by transformation", Section 2): with g the
  sample skewness of the sites' effects and m sites, T is replaced by
  f(T) = T + g T^2 / (3 sqrt m) + g^2 T^3 / (27 m) + g / (6 sqrt m), monotone, inverted
  in closed form, so the interval is [R - f^-1(q) se, R - f^-1(-q) se], q the t quantile
  with m - 1 df.

No interval computed from the sites at hand sees a tail none of them shows. The decision
about a new site therefore says "reusable" only from ``min_sites`` sites on
(``defaults.REUSE_NEW_SITE_SITES``, ours: the smallest number of sites at which the bench's
family holds its 5%); with fewer it is :data:`FEW_SITES` and names that number. "Lose more
than the margin" needs no such floor (its error is 0.3-1.7% at 4-32 sites).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from litaudit.stats.holdout_intervals import (
    INCONCLUSIVE,
    LOSE,
    REUSABLE,
    Bootstrap,
    Interval,
    decide_interval,
    site_sample_interval,
)
from litaudit.stats.holdout_shift import HoldoutShift
from litaudit.stats.holdout_sums import TopicSums, site_topic_shifts

FEW_SITES = "undecided: too few sites"  # a new site's outcome within the margin, < min_sites
TWO_WAY_T = "two-way random effects t interval (Satterthwaite df)"
SKEW_SAFE = "wider of the pigeonhole bootstrap-t and Hall's skewness-corrected t"


def _two_way(zs: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R and its two-way random-effects se (delta method, as
    :func:`~litaudit.stats.holdout_intervals.site_sample_interval`) along the last two axes
    (topics, sites); leading axes are resamples."""
    n, m = zs.shape[-2:]
    mb = b.mean(axis=-1)
    r = zs.mean(axis=(-2, -1)) / mb
    d = zs - r[..., None, None] * b[..., :, None]
    g = d.mean(axis=(-2, -1))
    dt, ds = d.mean(axis=-1), d.mean(axis=-2)
    ss_s = n * ((ds - g[..., None]) ** 2).sum(axis=-1)
    ss_t = m * ((dt - g[..., None]) ** 2).sum(axis=-1)
    ss = ((d - g[..., None, None]) ** 2).sum(axis=(-2, -1))
    ms_s, ms_t = ss_s / (m - 1), ss_t / (n - 1)
    ms_e = np.maximum(ss - ss_s - ss_t, 0.0) / ((n - 1) * (m - 1))  # the residual's
    total = np.maximum(ms_s + ms_t - ms_e, np.maximum(ms_s, ms_t))
    return r, np.sqrt(total / (n * m)) / np.abs(mb)


def canonical_columns(zs: np.ndarray) -> np.ndarray:
    """The sites (columns) in an order set by their values alone, so that the bootstrap's
    draws do not depend on the sites' names."""
    return zs[:, np.lexsort(zs[::-1])]


def pigeonhole_t(
    zs: np.ndarray, b: np.ndarray, level: float, boot: Bootstrap
) -> tuple[float, float]:
    """The studentized pigeonhole bootstrap interval of 100 R (module doc): ``boot``'s
    resamples, drawn from ``default_rng([seed, 2])`` (a stream apart from the topics'
    bootstrap), topics and sites resampled independently."""
    zs = canonical_columns(zs)
    n, m = zs.shape
    r0, se0 = _two_way(zs, b)
    r, se = float(r0), float(se0)
    rng = np.random.default_rng([boot.seed, 2])
    out = []
    for start in range(0, boot.resamples, 128):
        k = min(128, boot.resamples - start)
        ti = rng.integers(0, n, size=(k, n))
        si = rng.integers(0, m, size=(k, m))
        rb, seb = _two_way(zs[ti[:, :, None], si[:, None, :]], b[ti])
        ok = seb > 0
        out.append((rb[ok] - r) / seb[ok])
    t = np.sort(np.concatenate(out))
    if t.size == 0 or not se > 0:
        return 100 * r, 100 * r
    q_lo, q_hi = np.quantile(t, [0.5 - level / 2, 0.5 + level / 2])
    return 100 * (r - float(q_hi) * se), 100 * (r - float(q_lo) * se)


def hall_t(zs: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float]:
    """Hall's (1992) skewness-corrected t interval of 100 R over sites (module doc): the
    skewness g of the sites' effects (mean over topics of zs - R b, bias-corrected), the
    two-way se, the t quantile with m - 1 df."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    n, m = zs.shape
    r0, se0 = _two_way(zs, b)
    r, se = float(r0), float(se0)
    eff = (zs - r * b[:, None]).mean(axis=0)
    g = float(stats.skew(eff, bias=False)) if m > 2 and eff.std() > 0 else 0.0
    a = g / np.sqrt(m)
    q = float(stats.t.ppf(0.5 + level / 2, m - 1))

    def inverse(u: float) -> float:
        # f(t) = ((1 + a t / 3)^3 - 1) / a + a / 6, so
        # f^-1(u) = (3 / a) (cbrt(1 + a (u - a / 6)) - 1)
        if abs(a) < 1e-12:
            return u
        return float((3.0 / a) * (np.cbrt(1.0 + a * (u - a / 6.0)) - 1.0))

    return 100 * (r - inverse(q) * se), 100 * (r - inverse(-q) * se)


def new_site_interval(
    zs: np.ndarray, b: np.ndarray, mean_score: float, level: float, boot: Bootstrap | None
) -> tuple[Interval, str]:
    """The interval of a new site's relative shift in percent and how it was computed:
    without ``boot`` the two-way t interval
    (:func:`~litaudit.stats.holdout_intervals.site_sample_interval`), with it the wider of
    the pigeonhole bootstrap-t and Hall's interval (module doc); the estimate and the
    degrees of freedom (Satterthwaite's) are the two-way t interval's."""
    zs = canonical_columns(zs)  # every sum in an order set by the values: order-free
    two = site_sample_interval(zs, b, mean_score, level)
    if boot is None or zs.shape[1] < 3 or zs.shape[0] < 3:
        return two, TWO_WAY_T
    p_lo, p_hi = pigeonhole_t(zs, b, level, boot)
    h_lo, h_hi = hall_t(zs, b, level)
    return Interval(two.estimate, min(p_lo, h_lo), max(p_hi, h_hi), two.df), SKEW_SAFE


def new_site_outcome(
    ci: Interval, sites: int, margin_pct: float, min_sites: int | None
) -> tuple[str, int | None]:
    """The decision about a new site's runs and, when it is not decided, about how many
    sites would decide it (None: no figure): REUSABLE only from ``min_sites`` sites on,
    else :data:`FEW_SITES` naming ``min_sites``; LOSE and INCONCLUSIVE from the interval
    (:func:`~litaudit.stats.holdout_intervals.decide_interval`)."""
    out = decide_interval(ci, margin_pct)
    if out == REUSABLE and min_sites is not None and sites < min_sites:
        return FEW_SITES, min_sites
    if out == INCONCLUSIVE:
        half = (ci.high - ci.low) / 2
        est = ci.estimate
        gap = (-margin_pct - est) if est < -margin_pct else (margin_pct - abs(est))
        if gap > 0 and half > 0:
            need = int(-(-sites * (half / gap) ** 2 // 1))
            if -margin_pct < est < margin_pct and min_sites is not None:
                need = max(need, min_sites)
            return INCONCLUSIVE, need
        return INCONCLUSIVE, None
    assert out in (REUSABLE, LOSE)
    return out, None


def with_new_site(
    r: HoldoutShift,
    sums: TopicSums,
    site_of_run,
    n_subsets: int,
    boot: Bootstrap,
    min_sites: int | None,
) -> HoldoutShift:
    """``r`` (:func:`~litaudit.stats.holdout_shift.shift_of_sums` of ``sums``) with a new
    site's interval, outcome and the sites that would decide it as this module computes
    them (unchanged when it has no new-site interval: under 2 sites)."""
    if r.new_site_ci is None:
        return r
    zs, b = site_topic_shifts(sums, site_of_run, n_subsets)
    ci, how = new_site_interval(zs, b, r.mean_score, r.level, boot)
    out, need = new_site_outcome(ci, len(r.sites), r.margin_pct, min_sites)
    return dataclasses.replace(
        r,
        new_site_ci=ci,
        new_site_outcome=out,
        new_site_method=how,
        new_site_min_sites=min_sites,
        new_site_needs=need,
    )
