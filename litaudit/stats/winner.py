"""The winner's score corrected for selection: the best of K systems is, on average, above
its own true mean (the winner's curse). Three corrections, each with an interval:

* **Conditional** (Lee, Sun, Sun and Taylor, "Exact post-selection inference", Annals of
  Statistics 44(3), 2016, Theorem 5.2): the means x ~ N(theta, Sigma), Sigma known (the
  covariance of the means over topics, or se^2 I for independent published means).
  Given that w is the winner (x_w >= x_j for all j) and given z = x - c x_w
  (c = Sigma[:, w] / Sigma[w, w]), x_w is a Normal(theta_w, Sigma[w, w]) truncated to
  [V-, V+], V- = max over j with 1 - c_j > 0 of z_j / (1 - c_j) (V+ likewise). Its
  median-unbiased estimate is the theta at which the truncated cdf at x_w is 1/2; the
  (1 - alpha) interval inverts it at 1 - alpha/2 and alpha/2. Exact, but unbounded as the
  winner's margin goes to 0.
* **Hybrid** (Andrews, Kitagawa and McCloskey, "Inference on winners", Quarterly Journal
  of Economics 139(1), 2024, Sec. 4): the conditional law further truncated to the level
  1 - beta projection interval x_w +- c_beta sd_w (c_beta the simultaneous quantile of
  max_j |Z_j|, Z ~ N(0, corr(Sigma)), by Monte Carlo), at the conditional level
  (alpha - beta) / (1 - beta); beta = alpha / 10. Never longer than the projection
  interval; coverage at least 1 - alpha.
* **Bootstrap** bias correction (Efron and Tibshirani, An Introduction to the Bootstrap,
  1993, ch. 10; the iterated form Hall and Martin, Biometrika 75(4), 1988): topics
  resampled with replacement, the bootstrap winner's score minus its observed mean is
  the selection bias in a world whose truth is the observed means; the winner's score
  minus that bias, with a basic-bootstrap interval; ``iterate`` removes the bias left by a
  second level.

honestboard 0.6.1 (``selective.winner_adjusted``/``winner_hybrid``,
``Board.winner_bootstrap``) implements the same three; the tests compare them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError

SIM_DRAWS = 20_000  # Monte Carlo draws of the simultaneous quantile


@dataclass(frozen=True, kw_only=True)
class WinnerEstimate:
    """One correction of the winner's score: ``method`` ('conditional', 'hybrid',
    'bootstrap', 'bootstrap-iterated'), ``estimate`` and ``lower``/``upper`` of the
    (1 - alpha) interval (None where undefined: an exact tie, or an unbounded side)."""

    method: str
    estimate: float | None
    lower: float | None
    upper: float | None


@dataclass(frozen=True, kw_only=True)
class WinnerCorrection:
    """The winner ``winner`` (its index) with ``observed`` mean and ``se``; ``runner_up``
    the second best; ``truncation``: [V-, V+] of its conditional law; ``projection``: the
    hybrid's level 1 - beta interval; ``estimates``: the corrections; ``alpha``,
    ``beta``; ``seed``/``draws``/``resamples``: the Monte Carlo behind the hybrid and the
    bootstrap."""

    winner: int
    observed: float
    se: float
    runner_up: float
    truncation: tuple[float | None, float | None]
    projection: tuple[float, float]
    estimates: tuple[WinnerEstimate, ...]
    alpha: float
    beta: float
    seed: int
    draws: int
    resamples: int | None = None

    def get(self, method: str) -> WinnerEstimate | None:
        return next((e for e in self.estimates if e.method == method), None)


def mean_covariance(scores) -> tuple[np.ndarray, np.ndarray]:
    """(means, covariance of the means) of ``scores`` (systems x units, complete) under
    sampling of units: R R' / (T (T - 1)), R the centred rows."""
    y = np.asarray(scores, dtype=np.float64)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2 or not np.all(np.isfinite(y)):
        raise ParameterError("need complete scores of at least 2 systems on 2 units")
    t = y.shape[1]
    r = y - y.mean(axis=1, keepdims=True)
    return y.mean(axis=1), (r @ r.T) / (t * (t - 1))


def truncation(x: np.ndarray, sigma: np.ndarray, w: int) -> tuple[float, float]:
    """[V-, V+] of the event {x_w >= x_j for all j} given z = x - c x_w (the polyhedral
    lemma; -inf/inf when a side is unbounded)."""
    c = sigma[:, w] / sigma[w, w]
    z = x - c * x[w]
    lo, hi = -math.inf, math.inf
    for j in range(x.size):
        if j == w:
            continue
        slope = 1.0 - c[j]
        if abs(slope) < 1e-12:
            continue
        bound = z[j] / slope
        if slope > 0:
            lo = max(lo, bound)
        else:
            hi = min(hi, bound)
    return float(lo), float(hi)


def _log_ndtr_diff(a: float, b: float) -> float:
    """log(Phi(b) - Phi(a)), a < b, stable in both tails."""
    # start-up: scipy
    from scipy.special import log_ndtr

    if a > 0:
        a, b = -b, -a
    lb, la = float(log_ndtr(b)), float(log_ndtr(a))
    return lb + math.log1p(-math.exp(la - lb)) if la < lb else -math.inf


def truncated_cdf(x: float, theta: float, sd: float, lo: float, hi: float) -> float:
    """P(X <= x) for X ~ Normal(theta, sd) truncated to [lo, hi]."""
    a, b, u = (lo - theta) / sd, (hi - theta) / sd, (x - theta) / sd
    den = _log_ndtr_diff(a, b)
    if den == -math.inf:
        return math.nan
    num = _log_ndtr_diff(a, max(u, a)) if u > a else -math.inf
    return min(1.0, max(0.0, math.exp(num - den)))


def _solve(f, q: float, left: float, right: float) -> float | None:
    """theta in [left, right] with f(theta) = q (f decreasing), or None when q is outside
    f's range there."""
    # start-up: scipy
    from scipy.optimize import brentq

    fl, fr = f(left) - q, f(right) - q
    if not (math.isfinite(fl) and math.isfinite(fr)) or fl < 0 or fr > 0:
        return None
    return float(brentq(lambda t: f(t) - q, left, right, xtol=1e-12, maxiter=300))


def simultaneous_quantile(sigma: np.ndarray, tail: float, *, draws: int, seed: int) -> float:
    """c with P(max_j |Z_j| > c) = ``tail``, Z ~ N(0, corr(sigma)), by ``draws`` Monte
    Carlo draws (from ``numpy.random.default_rng(seed)``, through the eigen decomposition,
    as honestboard draws them); exact for a diagonal ``sigma`` (independent means)."""
    # start-up: scipy
    from scipy.stats import norm

    s = np.asarray(sigma, dtype=np.float64)
    sd = np.sqrt(np.clip(np.diag(s), 0.0, None))
    ok = sd > 0
    m = int(ok.sum())
    if m <= 1:
        return float(norm.ppf(1 - tail / 2))
    if not np.any(s - np.diag(np.diag(s))):  # independent: (2 Phi(c) - 1)^m = 1 - tail
        return float(norm.ppf((1 + (1 - tail) ** (1 / m)) / 2))
    r = s[np.ix_(ok, ok)] / np.outer(sd[ok], sd[ok])
    vals, vecs = np.linalg.eigh((r + r.T) / 2)
    half = vecs * np.sqrt(np.clip(vals, 0.0, None))
    z = np.random.default_rng(seed).standard_normal((draws, m)) @ half.T
    return float(np.quantile(np.abs(z).max(axis=1), 1 - tail))


def conditional(x, sigma, w: int, alpha: float) -> tuple[WinnerEstimate, tuple[float, float]]:
    """The conditional estimate and interval of the winner ``w`` (module doc)."""
    x = np.asarray(x, dtype=np.float64)
    sd = math.sqrt(sigma[w, w])
    lo, hi = truncation(x, sigma, w)
    xw = float(x[w])
    xin = min(max(xw, lo + 1e-9 * sd), hi - 1e-9 * sd)

    def f(t: float) -> float:
        return truncated_cdf(xin, t, sd, lo, hi)

    left, right = xw - 40 * sd, xw + 40 * sd
    est = _solve(f, 0.5, left, right)
    low = _solve(f, 1 - alpha / 2, left, right)
    up = _solve(f, alpha / 2, left, right)
    return WinnerEstimate(method="conditional", estimate=est, lower=low, upper=up), (lo, hi)


def hybrid(x, sigma, w: int, alpha: float, beta: float, c: float) -> WinnerEstimate:
    """The hybrid estimate and interval (module doc) with the projection quantile ``c``."""
    x = np.asarray(x, dtype=np.float64)
    sd = math.sqrt(sigma[w, w])
    lo, hi = truncation(x, sigma, w)
    xw = float(x[w])
    a = (alpha - beta) / (1 - beta)

    def f(t: float) -> float:
        lo_t, hi_t = max(lo, t - c * sd), min(hi, t + c * sd)
        return truncated_cdf(xw, t, sd, lo_t, hi_t) if hi_t > lo_t else math.nan

    left, right = xw - c * sd + 1e-9 * sd, xw + c * sd - 1e-9 * sd
    est, low, up = (_solve(f, q, left, right) for q in (0.5, 1 - a / 2, a / 2))
    if est is None or low is None or up is None:
        return WinnerEstimate(method="hybrid", estimate=None, lower=None, upper=None)
    return WinnerEstimate(method="hybrid", estimate=est, lower=low, upper=up)


def bootstrap(
    scores,
    w: int,
    alpha: float,
    *,
    resamples: int,
    seed: int,
    iterate: bool = False,
    inner: int = 150,
) -> WinnerEstimate:
    """The bootstrap bias correction of the winner ``w`` of ``scores`` (systems x
    units): topics resampled ``resamples`` times (multinomial counts from
    ``default_rng(seed)``; ties broken by ``default_rng(seed + 1)``, as honestboard
    does); ``iterate``: a second level of ``inner`` x ``inner`` resamples."""
    y = np.asarray(scores, dtype=np.float64)
    k, t = y.shape
    p = y.mean(axis=1)
    counts = np.random.default_rng(seed).multinomial(t, np.full(t, 1.0 / t), size=resamples).T
    s = (y @ counts) / counts.sum(axis=0)[None, :]
    rng = np.random.default_rng(seed + 1)
    ws = np.argmax(s + rng.random(s.shape) * 1e-12, axis=0)
    delta = s[ws, np.arange(resamples)] - p[ws]
    rng.random(k)  # honestboard draws its tie-break of the observed winner here
    bias = float(delta.mean())
    est = float(p[w] - bias)
    if iterate:
        outer = rng.multinomial(t, np.full(t, 1.0 / t), size=inner).astype(float)
        b1 = np.empty(inner)
        for b in range(inner):
            pb = (y @ outer[b]) / outer[b].sum()
            cin = rng.multinomial(t, outer[b] / outer[b].sum(), size=inner).astype(float)
            sin = (cin @ y.T) / cin.sum(axis=1, keepdims=True)
            wi = np.argmax(sin + rng.random(sin.shape) * 1e-12, axis=1)
            b1[b] = float((sin[np.arange(inner), wi] - pb[wi]).mean())
        est = float(p[w] - 2 * bias + b1.mean())
    centred = delta - delta.mean()
    return WinnerEstimate(
        method="bootstrap-iterated" if iterate else "bootstrap",
        estimate=est,
        lower=float(est - np.quantile(centred, 1 - alpha / 2)),
        upper=float(est - np.quantile(centred, alpha / 2)),
    )


def correct_winner(
    means,
    sigma,
    *,
    scores=None,
    alpha: float = 0.05,
    seed: int = 0,
    draws: int = SIM_DRAWS,
    resamples: int = 2000,
) -> WinnerCorrection:
    """The winner of ``means`` (covariance ``sigma`` of the means) corrected by the
    conditional and hybrid methods, and by the bootstrap when the per-unit ``scores``
    are given (module doc)."""
    x = np.asarray(means, dtype=np.float64)
    s = np.asarray(sigma, dtype=np.float64)
    if x.ndim != 1 or x.size < 2 or s.shape != (x.size, x.size):
        raise ParameterError("need at least 2 means and their covariance matrix")
    if not (0.0 < alpha < 1.0):
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    w = int(np.argmax(x))
    sd = math.sqrt(s[w, w]) if s[w, w] > 0 else 0.0
    if not sd > 0:
        raise ParameterError("the winner's mean has no standard error")
    beta = alpha / 10
    cond, (lo, hi) = conditional(x, s, w, alpha)
    c = simultaneous_quantile(s, beta, draws=draws, seed=seed)
    ests = [cond, hybrid(x, s, w, alpha, beta, c)]
    if scores is not None:
        ests.append(bootstrap(scores, w, alpha, resamples=resamples, seed=seed))
    return WinnerCorrection(
        winner=w,
        observed=float(x[w]),
        se=sd,
        runner_up=float(np.sort(x)[-2]),
        truncation=(None if math.isinf(lo) else lo, None if math.isinf(hi) else hi),
        projection=(float(x[w] - c * sd), float(x[w] + c * sd)),
        estimates=tuple(ests),
        alpha=alpha,
        beta=beta,
        seed=seed,
        draws=draws,
        resamples=None if scores is None else resamples,
    )
