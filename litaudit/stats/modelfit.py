"""Does the reference model of Carterette (SIGIR 2015) fit the published results?

Carterette, "The Best Published Result is Random", SIGIR 2015, Sec. 3.1: "We assume that
each mean is drawn from a normal distribution with mean [mu] and standard deviation
[sd / sqrt(n)]", where ``sd`` is the standard deviation *among the N published means* and
``n`` the number of topics. Taken literally, the N means are then N draws of
Normal(mu, se) with ``se = sd / sqrt(n)``: their own spread ``sd`` is ``sqrt(n)`` times
the spread the model gives them (7.1 for 50 topics, 15.8 for 249). The model describes
"N systems as good as the average result", not the published population.

Two checks, each a test at level alpha, not part of the paper (which proposes no test):

* spread: ``(N - 1) * sd**2 / se**2`` (= ``(N - 1) * n``) against chi-square with N - 1
  degrees of freedom (the variance test of a normal sample against a known variance);
* shape: the Shapiro-Wilk test of normality on the N values (scale-free), via scipy.

``rejected`` when either rejects. Any p-value below ``p_floor`` is reported as the floor
with its ``*_below_floor`` flag (see :func:`litaudit.stats.extreme.floor_p`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from litaudit.stats.extreme import check_prob, floor_p, reference


@dataclass(kw_only=True, frozen=True)
class ModelFit:
    """The reference model Normal(mu, se) held against the N values it is fitted to.

    ``sd``: the N values' standard deviation (ddof=1); ``se``: the per-result standard
    error the model assumes (``sd / sqrt(n_topics)``); ``spread_ratio = sd / se``.
    ``variance_p``: chi-square variance test of sd against se; ``shapiro_w``/``shapiro_p``:
    Shapiro-Wilk on the values (None for N < 3). ``spread_rejected``/``normality_rejected``
    at ``alpha``; ``rejected`` = either. ``p_floor``: the resolution of the p-values
    (None: unfloored).
    """

    n_results: int
    n_topics: int
    sd: float
    se: float
    spread_ratio: float
    variance_statistic: float
    variance_df: int
    variance_p: float
    variance_p_below_floor: bool
    shapiro_w: float | None
    shapiro_p: float | None
    shapiro_p_below_floor: bool
    alpha: float
    p_floor: float | None
    spread_rejected: bool
    normality_rejected: bool
    rejected: bool


def model_fit(
    values, n_topics: int, *, alpha: float = 0.05, p_floor: float | None = None
) -> ModelFit:
    """Check the reference model of the N ``values`` over ``n_topics`` topics (see module)."""
    from scipy import stats as sps  # imported here: a stored audit never needs it

    alpha = check_prob("alpha", alpha)
    v = np.sort(np.asarray(values, dtype=np.float64).ravel())
    ref = reference(v, n_topics)
    df = ref.n_results - 1
    ratio = ref.sd / ref.se
    stat = df * ratio * ratio
    vp_raw = float(sps.chi2.sf(stat, df))
    vp, v_low = floor_p(vp_raw, p_floor)
    w = sp = None
    s_low = False
    if v.size >= 3:
        with warnings.catch_warnings():  # N > 5000: scipy warns its p may be inaccurate
            warnings.simplefilter("ignore")
            res = sps.shapiro(v)
        w = float(res.statistic)
        sp_raw = float(res.pvalue)
        sp, s_low = floor_p(sp_raw if math.isfinite(sp_raw) else 1.0, p_floor)
        sp_rej = sp_raw < alpha
    else:
        sp_rej = False
    spread_rej = vp_raw < alpha
    return ModelFit(
        n_results=ref.n_results,
        n_topics=ref.n_topics,
        sd=ref.sd,
        se=ref.se,
        spread_ratio=ratio,
        variance_statistic=stat,
        variance_df=df,
        variance_p=vp,
        variance_p_below_floor=v_low,
        shapiro_w=w,
        shapiro_p=sp,
        shapiro_p_below_floor=s_low,
        alpha=alpha,
        p_floor=p_floor,
        spread_rejected=spread_rej,
        normality_rejected=sp_rej,
        rejected=spread_rej or sp_rej,
    )
