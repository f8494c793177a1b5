"""Score shift of held-out runs in a pooling simulation, and its equivalence test against a
practical margin (after Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Sections 3.1,
3.2.3 and 4.3; the margin after Voorhees, Lin and Efron, SIGIR 2014, Section 4).

Input: ``ap[t, S, r]``, the score of run r on topic t when the k-subset S of sites is held
out of t's judging (S = 0: none), from a pooling simulation (NaN: no relevant document
left). Every topic holds out one k-subset drawn uniformly from all C(m, k), so every
subset weighs 1 / C(m, k) whatever the sites are called (no round-robin order). Scores are
centred per topic and subset (each run's score minus the mean over runs), so topic
difficulty and a loss shared by all runs drop out.

For run r of site s, the expected mean of its centred score over the topics its site is
held out of, minus the expected mean over the other topics, is exactly
    shift_r = sum_t g_tr / n_r - sum_t h_tr / n'_r,
    g_tr = sum_{S contains s} y[t, S, r] / C,  h_tr likewise over S without s,
with n_r, n'_r the expected numbers of scored topics of each kind. Writing the mean over
runs as a mean over topics, z_t = mean_r (N g_tr / n_r - N h_tr / n'_r), gives
mean_t z_t = mean_r shift_r, and the topics, the sampling unit of a test collection, give
its standard error (N - 1 degrees of freedom). No Monte Carlo: no seed. Sums over subsets
and over sites are taken in sorted order, so renaming the sites changes no digit.

The relative shift R = shift / mean score (the mean score with nothing held out) is a
ratio of two means over the same topics, and both are estimated: its standard error is
the delta method's for a ratio estimator (Cochran, Sampling Techniques, 3rd ed. 1977,
Section 6.3, eq. 6.9; Fieller 1954 for the exact interval),
    se(R) = sd_t(z_t - R b_t) / (sqrt(N) mean score),
with b_t topic t's contribution to the mean score (its mean over runs when every run is
scored on every topic; in general N S_t / C + mean (1 - N C_t / C), S_t and C_t the sum
and count of topic t's scored runs, C the count over all topics, so that the mean over
topics of b_t is the mean score). Taking the mean score as known (se(shift) / mean score)
leaves out the second term: at a true shift of -1% its 90% interval covered the truth in
83% of resamples of robust03's topics (bench/bench_calibration.py). The losses are
skewed (a few topics lose much, most nothing), and the estimate and its se move together
(correlation -0.88 over resamples of robust03's depth-100 topics): the symmetric t
interval R +- t se(R) then says "reusable" at a true -1% in 6-8% of cases. The verdict's
interval is therefore the studentized bootstrap's (bootstrap-t; Efron and Tibshirani,
An Introduction to the Bootstrap, 1993, Section 12.5): the topics resampled B times with
replacement (:class:`Bootstrap`: B and the seed, stored in the audit), T* = (R* - R) /
se(R*) each time, and [R - T*_(1-a) se(R), R - T*_(a) se(R)] with T*_(q) the q quantile
of the T*. Without a bootstrap (:func:`holdout_shift`'s default, the tests) the interval
is the delta method's R +- t_(N-1) se(R).

The decision is an equivalence test (two one-sided tests, Schuirmann 1987) of the relative
shift 100 R against a margin of ``margin`` percent: with the 100 (1 - 2 alpha)% interval
[lo, hi],
    reusable within the margin  <=>  -margin < lo and hi < margin
        (both one-sided tests, H0: shift <= -margin and H0: shift >= margin, reject),
    new systems lose more       <=>  hi < -margin (the one-sided test of H0: shift >=
        -margin rejects at alpha),
    inconclusive otherwise.
The same interval over sites (each site's mean shift, m - 1 degrees of freedom) and each
site's own interval over topics (the delta method as above) treat the sites as the unit.

Sites as a sample: the interval above is about these sites' runs (the topics the only
sample). A new site's runs differ from these by the site's own effect, so the decision
about a new site (:func:`site_sample_interval`, ``new_site_ci``) takes the sites as a
sample too: the two-way crossed random-effects interval of the mean over sites and
topics, each site weighing the same; the verdict widens it against skewed site effects
and sets a floor on the sites a "reusable" needs (:mod:`litaudit.stats.reuse_sites`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats.holdout_intervals import (
    Bootstrap,
    Interval,
    decide_interval,
    ratio_interval,
    site_sample_interval,
    topic_means,
)
from litaudit.stats.holdout_sums import (
    TopicSums,
    site_topic_shifts,
    sorted_sum,
    topic_run_shifts,
    topic_sums,
)

KNOWN_MEAN = "mean score taken as known"  # what audits stored before issue 31 used
DELTA = "delta method, mean score estimated"
BOOT_T = "studentized bootstrap over topics, mean score estimated"


@dataclass(frozen=True)
class SiteShift:
    """One site's runs: their mean shift (% of the mean score) and its interval over
    topics."""

    site: str
    runs: int
    shift_pct: float
    low: float
    high: float
    loses: bool  # the interval lies wholly below -margin


@dataclass(frozen=True)
class HoldoutShift:
    """Expected shift of held-out runs (centred scores), its interval over topics, the
    equivalence decision, and the same over sites."""

    topics: int
    runs: int
    mean_score: float  # mean score with nothing held out
    shift: float  # mean over runs of shift_r (score points)
    shift_pct: float  # 100 * shift / mean_score
    se: float  # standard error over topics (score points)
    level: float  # confidence of the intervals, 1 - 2 alpha
    margin_pct: float
    ci: Interval  # over topics, % of the mean score
    outcome: str  # REUSABLE, LOSE or INCONCLUSIVE
    p_equivalence: float  # max of the two one-sided p-values (TOST)
    p_loss: float  # one-sided p of H0: shift >= -margin
    sites: tuple[SiteShift, ...]  # by shift, most negative first
    site_ci: Interval | None  # over sites (None under 2 sites)
    per_run: tuple[float, ...]  # shift_r (score points; NaN: not scored)
    interval: str = KNOWN_MEAN  # how ci was computed (DELTA or BOOT_T since issue 31)
    resamples: int | None = None  # BOOT_T: the bootstrap's resamples and seed
    boot_seed: int | None = None
    se_pct: float | None = None  # se of the relative shift, % (None: stored before it)
    se_known_mean_pct: float | None = None  # 100 se / mean score, beside it
    new_site_ci: Interval | None = None  # sites and topics as samples (None: stored before)
    new_site_outcome: str | None = None  # the decision for a new site's runs
    new_site_method: str | None = None  # how new_site_ci was computed (None: two-way t)
    new_site_min_sites: int | None = None  # sites a "reusable" about a new site needs
    new_site_needs: int | None = None  # sites that would decide it (not decided; else None)


def _interval(values: np.ndarray, level: float, scale: float) -> tuple[Interval, float, float]:
    """Mean of ``values`` with its t interval in units of ``scale``; the mean and se."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    v = np.sort(values)
    n = v.size
    mean = float(v.mean())
    se = float(v.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    q = float(stats.t.ppf(0.5 + level / 2, n - 1)) if n > 1 else float("nan")
    lo, hi = float(scale * (mean - q * se)), float(scale * (mean + q * se))
    return Interval(scale * mean, lo, hi, n - 1), mean, se


def _site_shifts(zr, use, site, labels, level, b, margin_pct) -> tuple[SiteShift, ...]:
    """Each site's runs: their mean shift with its interval over topics (``zr``: topics x
    runs; ``b``: :func:`topic_means`), most negative first."""
    sites = []
    for s in range(len(labels)):
        cols = np.flatnonzero(use & (site == s))
        if cols.size == 0:
            continue
        zs = sorted_sum(zr[:, cols], 1) / cols.size
        sc = ratio_interval(zs, b, float(np.mean(b)), level, None)[0]
        if not np.isfinite(sc.low):
            sc = Interval(sc.estimate, sc.estimate, sc.estimate, sc.df)
        if abs(sc.high - sc.low) <= 1e-10 and abs(sc.estimate) <= 1e-10:  # percent
            sc = Interval(0.0, 0.0, 0.0, sc.df)  # no spread, a rounding residue of 0
        sites.append(
            SiteShift(
                labels[s], int(cols.size), sc.estimate, sc.low, sc.high, bool(sc.high < -margin_pct)
            )
        )
    sites.sort(key=lambda x: (x.shift_pct, x.site))
    return tuple(sites)


def holdout_shift(
    ap,
    site_of_run,
    subsets,
    *,
    names=None,
    margin_pct: float = 1.0,
    alpha: float = 0.05,
    bootstrap: Bootstrap | None = None,
) -> HoldoutShift:
    """The shift of :mod:`this module <litaudit.stats.holdout_shift>` from the score table
    ``ap`` (topics x subsets x runs; ``subsets[0]`` is the empty one)."""
    y = np.asarray(ap, dtype=float)
    site = np.asarray(site_of_run, dtype=np.int64)
    n_t, n_s, n_r = y.shape
    if len(subsets) != n_s or site.size != n_r or n_s < 2 or len(subsets[0]) != 0:
        raise ParameterError("ap, subsets and site_of_run do not fit together")
    _check(n_t, margin_pct, alpha)
    return shift_of_sums(
        topic_sums(y, site, subsets),
        site,
        n_s,
        names=names,
        margin_pct=margin_pct,
        alpha=alpha,
        bootstrap=bootstrap,
    )


def _check(n_t: int, margin_pct: float, alpha: float) -> None:
    if n_t < 2:
        raise ParameterError("the shift needs at least 2 topics")
    if not 0 < alpha < 0.5:
        raise ParameterError(f"alpha must be in (0, 0.5), got {alpha}")
    if not margin_pct > 0:
        raise ParameterError(f"the margin must be positive, got {margin_pct}")


def _tost_p(t_low: float, t_high: float, n_t: int, boot_t: np.ndarray | None):
    """The one-sided p-values of H0: R <= -margin, H0: R >= margin and H0: R >= -margin
    from the studentized statistics at the margins: Student's t with N - 1 degrees of
    freedom, or the bootstrap's (with the +1 correction, never 0)."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    if boot_t is None:
        sf, cdf = stats.t.sf, stats.t.cdf
        return (
            float(sf(t_low, n_t - 1)),
            float(cdf(t_high, n_t - 1)),
            float(cdf(t_low, n_t - 1)),
        )
    # T* approximates (R - rho) / se: P(T* >= t) is the p of H0: rho <= R - t se
    n = boot_t.size + 1.0
    upper = float(1 + boot_t.size - np.searchsorted(boot_t, t_low, side="left")) / n
    lower_h = float(1 + np.searchsorted(boot_t, t_high, side="right")) / n
    lower_l = float(1 + np.searchsorted(boot_t, t_low, side="right")) / n
    return upper, lower_h, lower_l


def shift_of_sums(
    sums: TopicSums,
    site_of_run,
    n_subsets: int,
    *,
    names=None,
    margin_pct: float = 1.0,
    alpha: float = 0.05,
    bootstrap: Bootstrap | None = None,
) -> HoldoutShift:
    """:func:`holdout_shift` from the table's :class:`TopicSums` (``n_subsets`` subsets,
    the empty one included): the same result to the digit. With ``bootstrap`` the
    interval of the relative shift is the studentized bootstrap's over topics, else the
    delta method's (module doc); a new site's interval is the two-way t
    (:func:`litaudit.stats.reuse_sites.with_new_site` replaces it by the skew-safe one)."""
    site = np.asarray(site_of_run, dtype=np.int64)
    n_t = sums.g.shape[0]
    _check(n_t, margin_pct, alpha)
    m = int(site.max()) + 1
    labels = tuple(names) if names is not None else tuple(str(s) for s in range(m))
    zr, use = topic_run_shifts(sums, n_subsets)
    per_run = np.full(site.size, np.nan)
    per_run[use] = sorted_sum(zr[:, use], 0) / n_t
    z = zr[:, use].mean(axis=1)
    base = sums.base
    mean_score = float(np.nanmean(base)) if np.isfinite(base).any() else float("nan")
    if not mean_score > 0:
        raise ParameterError("the mean score with nothing held out is not positive")
    level = 1.0 - 2.0 * alpha
    scale = 100.0 / mean_score
    _, shift, se = _interval(z, level, scale)
    b = topic_means(base)
    ci, se_pct, boot_t = ratio_interval(z, b, mean_score, level, bootstrap)
    pct = ci.estimate
    if se > 1e-12 * max(1.0, abs(shift)) and se_pct > 0:
        t_low, t_high = (pct + margin_pct) / se_pct, (pct - margin_pct) / se_pct
        p_low, p_high, p_loss = _tost_p(t_low, t_high, n_t, boot_t)
    else:  # no spread: the interval is the point (a rounding residue of 0 is 0)
        margin = margin_pct / scale
        if abs(shift) <= 1e-12 * mean_score:
            shift = 0.0
        p_low = 0.0 if shift > -margin else 1.0
        p_high = 0.0 if shift < margin else 1.0
        p_loss = 0.0 if shift < -margin else 1.0
        ci = Interval(shift * scale, shift * scale, shift * scale, ci.df)
    sites = _site_shifts(zr, use, site, labels, level, b, margin_pct)
    site_ci = new_ci = None
    if len(sites) >= 2:
        site_ci = _interval(np.array([x.shift_pct for x in sites]), level, 1.0)[0]
        zs = site_topic_shifts(sums, site, n_subsets)[0]
        new_ci = site_sample_interval(zs, b, mean_score, level)
    return HoldoutShift(
        topics=n_t,
        runs=int(use.sum()),
        mean_score=mean_score,
        shift=shift,
        shift_pct=ci.estimate,
        se=se,
        level=level,
        margin_pct=float(margin_pct),
        ci=ci,
        outcome=decide_interval(ci, margin_pct),
        p_equivalence=max(p_low, p_high),
        p_loss=p_loss,
        sites=sites,
        site_ci=site_ci,
        per_run=tuple(float(v) for v in per_run),
        interval=DELTA if boot_t is None else BOOT_T,
        resamples=None if bootstrap is None else bootstrap.resamples,
        boot_seed=None if bootstrap is None else bootstrap.seed,
        se_pct=float(se_pct) if np.isfinite(se_pct) else None,
        se_known_mean_pct=float(scale * se) if np.isfinite(se) else None,
        new_site_ci=new_ci,
        new_site_outcome=None if new_ci is None else decide_interval(new_ci, margin_pct),
    )
