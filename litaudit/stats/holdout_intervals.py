"""The intervals and the decision of the hold-out shift (after Carterette, Kanoulas, Pavlu
and Fang, SIGIR 2010; the margin after Voorhees, Lin and Efron, SIGIR 2014, Section 4).

The relative shift R = shift / mean score with its interval over topics: the delta
method's for a ratio estimator (Cochran, Sampling Techniques, 3rd ed. 1977, Section 6.3,
eq. 6.9) or the studentized bootstrap's over topics (Efron and Tibshirani, 1993, Section
12.5; :class:`Bootstrap`); a new site's interval with the sites and the topics as samples
(:func:`site_sample_interval`); and the equivalence decision against the margin
(:func:`decide_interval`, two one-sided tests, Schuirmann 1987). The model and its
equations: :mod:`litaudit.stats.holdout_shift`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REUSABLE = "reusable"


LOSE = "lose"


INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Interval:
    """A shift in percent of the mean score with its two-sided interval."""

    estimate: float
    low: float
    high: float
    df: int


@dataclass(frozen=True, kw_only=True)
class Bootstrap:
    """The studentized bootstrap over topics (stats.holdout_shift): ``resamples`` resamples drawn
    from ``numpy.random.default_rng(seed)``."""

    resamples: int
    seed: int


def _ratio_se(z: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R = mean(z) / mean(b) and its delta-method se along the last axis (stats.holdout_shift)."""
    n = z.shape[-1]
    mb = b.mean(axis=-1, keepdims=True)
    r = z.mean(axis=-1, keepdims=True) / mb
    se = (z - r * b).std(axis=-1, ddof=1) / np.sqrt(n) / np.abs(mb[..., 0])
    return r[..., 0], se


def _boot_t(z: np.ndarray, b: np.ndarray, r: float, se: float, boot: Bootstrap) -> np.ndarray:
    """The sorted studentized statistics (R* - R) / se* of ``boot.resamples`` resamples
    of the topics (a resample with no spread is left out)."""
    rng = np.random.default_rng(boot.seed)
    n = z.size
    out = []
    for start in range(0, boot.resamples, 256):
        j = rng.integers(0, n, size=(min(256, boot.resamples - start), n))
        rs, ses = _ratio_se(z[j], b[j])
        ok = ses > 0
        out.append((rs[ok] - r) / ses[ok])
    return np.sort(np.concatenate(out))


def ratio_interval(
    z: np.ndarray, b: np.ndarray, mean_score: float, level: float, boot: Bootstrap | None
) -> tuple[Interval, float, np.ndarray | None]:
    """100 mean(z) / mean score with its interval (stats.holdout_shift), in percent, and its se
    (%): the delta method's t interval, or with ``boot`` the studentized bootstrap's
    (then also the sorted bootstrap statistics). ``z`` and ``b`` (:func:`topic_means`):
    one value per topic."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    n = z.size
    r = float(np.sort(z).sum() / n) / mean_score
    d = np.sort(z - r * b)
    se = float(d.std(ddof=1)) / np.sqrt(n) / mean_score if n > 1 else float("nan")
    if boot is not None and n > 2 and se > 0:
        t = _boot_t(z, b, r, se, boot)
        q_lo, q_hi = np.quantile(t, [0.5 - level / 2, 0.5 + level / 2])
        lo, hi = r - float(q_hi) * se, r - float(q_lo) * se
        return Interval(100 * r, 100 * lo, 100 * hi, n - 1), 100 * se, t
    q = float(stats.t.ppf(0.5 + level / 2, n - 1)) if n > 1 else float("nan")
    return Interval(100 * r, 100 * (r - q * se), 100 * (r + q * se), n - 1), 100 * se, None


def site_sample_interval(
    zs: np.ndarray, b: np.ndarray, mean_score: float, level: float
) -> Interval:
    """The relative shift of a new site's runs, in percent, with its interval when both the
    topics and the sites are samples (stats.holdout_shift, "sites as a sample"): ``zs`` is topics x
    sites (each site's mean shift on each topic), ``b`` the topics' :func:`topic_means`.

    The estimate is R = mean_ts zs / mean score (every site weighs the same). Its
    variance is that of the grand mean of d_ts = zs_ts - R b_t in the two-way crossed
    random-effects model without replication (Searle, Casella, McCulloch, Variance
    Components, 1992, Section 4.5): (MS_sites + MS_topics - MS_residual) / (N m), with
    Satterthwaite's (1946) degrees of freedom, divided by the mean score (the delta
    method, as for the topics' interval)."""
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    n, m = zs.shape
    r = float(np.sort(zs.ravel()).sum() / zs.size) / mean_score
    d = zs - r * b[:, None]
    grand = d.mean()
    dt, ds = d.mean(axis=1), d.mean(axis=0)
    ms_s = n * float(((ds - grand) ** 2).sum()) / (m - 1)
    ms_t = m * float(((dt - grand) ** 2).sum()) / (n - 1)
    e = d - dt[:, None] - ds[None, :] + grand
    ms_e = float((e**2).sum()) / ((n - 1) * (m - 1))
    total = max(ms_s + ms_t - ms_e, max(ms_s, ms_t))  # a negative component counts as 0
    df_den = ms_s**2 / (m - 1) + ms_t**2 / (n - 1) + ms_e**2 / ((n - 1) * (m - 1))
    df = total**2 / df_den if df_den > 0 else float(n * m - 1)
    se = np.sqrt(total / (n * m)) / mean_score
    q = float(stats.t.ppf(0.5 + level / 2, df))
    return Interval(100 * r, 100 * (r - q * se), 100 * (r + q * se), int(round(df)))


def topic_means(base: np.ndarray) -> np.ndarray:
    """b_t of stats.holdout_shift: topic t's contribution to the mean score (``base``: topics x
    runs, NaN: not scored), whose mean over topics is the mean score."""
    ok = np.isfinite(base)
    c_t = ok.sum(axis=1).astype(float)
    s_t = np.sort(np.where(ok, base, 0.0), axis=1).sum(axis=1)
    n, c = base.shape[0], float(c_t.sum())
    mean = float(np.sort(s_t).sum()) / c
    return n * s_t / c + mean * (1.0 - n * c_t / c)


def decide_interval(ci: Interval, margin_pct: float) -> str:
    """REUSABLE, LOSE or INCONCLUSIVE from the interval (stats.holdout_shift)."""
    if ci.high < -margin_pct:
        return LOSE
    if -margin_pct < ci.low and ci.high < margin_pct:
        return REUSABLE
    return INCONCLUSIVE
