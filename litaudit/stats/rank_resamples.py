"""The resampling engine of the rank resolution (:mod:`litaudit.stats.ranks`): the paired
bootstrap over units (Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993,
Ch. 6) and its studentized statistics.

:class:`Resamples` holds B multinomial resamples of the T units, the same for every system,
with each unit's own noise when given; from them the resampled means, each resample's own
se of every difference (the bootstrap-t's studentization, Hall 1992, Sec. 3.5), and the
studentized differences Z[b, i, j] that the set of the best (:func:`first_pass`: the MCB
statistics) and the step-down of the rank intervals (:func:`column_max`) take their
quantiles of; :func:`mean_covariance` is Sigma and :func:`difference_se` the se of a
difference (equations in :mod:`litaudit.stats.ranks`). Work is done a chunk of resamples
at a time (K^2 x columns cells per temporary array). Pure: arrays in, arrays out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

_CELLS_PER_CHUNK = 4_000_000  # ours: K*K*columns per temporary array (32 MB of doubles)
_TIE = 1e-12  # ours: resampled means this close to the top are tied for first


@dataclass(frozen=True)
class Resamples:
    """The B resamples: unit ``counts`` (B x T, the same units for every system) and,
    with each unit's own se, the standard Normal draws of the added noise (B x K)."""

    y: np.ndarray
    counts: np.ndarray
    unit_var: np.ndarray | None
    draws: np.ndarray | None

    @classmethod
    def draw(cls, y, resamples: int, rng: np.random.Generator, unit_se) -> Resamples:
        k, t = y.shape
        counts = rng.multinomial(t, np.full(t, 1.0 / t), size=resamples).astype(np.float64)
        if unit_se is None:
            return cls(y, counts, None, None)
        return cls(y, counts, unit_se**2, rng.standard_normal((k, resamples)).T.copy())

    def noise_var(self, rows) -> np.ndarray | None:
        """Per resample and system, the variance of the added noise (c x K)."""
        if self.unit_var is None:
            return None
        return (self.counts[rows] @ self.unit_var.T) / float(self.y.shape[1]) ** 2

    def means(self, rows) -> np.ndarray:
        """The resampled means (c x K) of the resamples ``rows``."""
        w = self.counts[rows]
        s = (w @ self.y.T) / w.sum(axis=1)[:, None]
        nv = self.noise_var(rows)
        if nv is not None and self.draws is not None:
            s = s + self.draws[rows] * np.sqrt(nv)
        return s

    @cached_property
    def _centred(self) -> tuple[np.ndarray, np.ndarray]:
        """The scores centred by system (T x K, single precision) and the units' outer
        products (T x K^2), computed once for every chunk of resamples."""
        k, n = self.y.shape
        r = (self.y - self.y.mean(axis=1, keepdims=True)).astype(np.float32)
        return r.T, (r.T[:, :, None] * r.T[:, None, :]).reshape(n, k * k)

    def pair_se(self, rows, s: np.ndarray) -> np.ndarray:
        """Each resample's own se of every difference (c x K x K): the paired variance of
        the resampled units, plus the resample's noise (the bootstrap-t's studentization);
        computed on the scores centred by system (the same variance, less cancellation)."""
        f4 = np.float32
        w = self.counts[rows].astype(f4)
        k, n = self.y.shape
        t = float(n)
        rt, outer = self._centred
        # sum_d w_d r_id r_jd for every resample at once: W (c x T) @ the units' outer
        # products (T x K^2), one matrix product
        var = (w @ outer).reshape(-1, k, k)
        dq = np.einsum("bii->bi", var).copy()
        var *= -2.0
        var += dq[:, :, None]
        var += dq[:, None, :]
        m0 = (w @ rt) / t  # the resampled mean of the centred scores, noise left out
        d = m0[:, :, None] - m0[:, None, :]
        d *= d
        d *= t
        var -= d
        var /= t * (t - 1.0)
        nv = self.noise_var(rows)
        if nv is not None:
            nv = nv.astype(f4)
            var += nv[:, :, None]
            var += nv[:, None, :]
        np.maximum(var, 1e-18, out=var)
        return np.sqrt(var, out=var)


def bootstrap_means(
    y: np.ndarray, resamples: int, rng: np.random.Generator, unit_se: np.ndarray | None = None
) -> np.ndarray:
    """K x B resampled means: units drawn with replacement (one multinomial draw of counts
    per resample, the same units for every system), plus each unit's own noise."""
    r = Resamples.draw(y, resamples, rng, unit_se)
    return r.means(slice(None)).T


def mean_covariance(y: np.ndarray, unit_se: np.ndarray | None = None) -> np.ndarray:
    """Sigma, the K x K covariance of the K means under unit sampling
    (:mod:`litaudit.stats.ranks`)."""
    t = y.shape[1]
    r = y - y.mean(axis=1, keepdims=True)
    sig = (r @ r.T) / (t * (t - 1))
    if unit_se is not None:
        sig = sig + np.diag((unit_se**2).sum(axis=1) / float(t) ** 2)
    return sig


def difference_se(sig: np.ndarray) -> np.ndarray:
    """se_ij = sqrt(Sigma_ii + Sigma_jj - 2 Sigma_ij) of every pair (the diagonal 1)."""
    d = np.diag(sig)
    se = np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * sig, 1e-18))
    np.fill_diagonal(se, 1.0)
    return se


def _chunk(k: int) -> int:
    return max(1, _CELLS_PER_CHUNK // (k * k))


def studentized(
    r: Resamples, rows, gap: np.ndarray, inv_se: np.ndarray | None, floor: np.ndarray
) -> np.ndarray:
    """Z[b, i, j] = [(S*_i - S*_j) - (m_i - m_j)] / se_ij for the resamples ``rows``
    (``gap[i, j]`` = m_i - m_j), se_ij the resample's own (bootstrap-t) or, given
    ``inv_se``, the sample's; the diagonal -inf."""
    st = r.means(rows)
    if inv_se is None:  # single precision: a quantile to 1e-3 needs no more, and it is faster
        st = st.astype(np.float32)
        gap, floor = gap.astype(np.float32), floor.astype(np.float32)
    z = st[:, :, None] - st[:, None, :]
    z -= gap[None, :, :]
    if inv_se is None:
        se = r.pair_se(rows, st)
        np.maximum(se, floor[None, :, :], out=se)
        z /= se
    else:
        z *= inv_se[None, :, :]
    idx = np.arange(st.shape[1])
    z[:, idx, idx] = -np.inf
    return z


def first_pass(
    r: Resamples, gap: np.ndarray, inv_se: np.ndarray | None, floor: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pass over the resamples: (M[i, b] = max_j Z[b, j, i], the MCB statistic of i;
    the max of Z over all pairs per resample; its flat pair)."""
    k = gap.shape[0]
    b = r.counts.shape[0]
    m = np.empty((k, b))
    top = np.empty(b)
    arg = np.empty(b, dtype=np.int64)
    step = _chunk(k)
    for a in range(0, b, step):
        z = studentized(r, slice(a, a + step), gap, inv_se, floor)
        m[:, a : a + step] = z.max(axis=1).T
        flat = z.reshape(z.shape[0], k * k)
        am = flat.argmax(axis=1)
        arg[a : a + step] = am
        top[a : a + step] = flat[np.arange(flat.shape[0]), am]
    return m, top, arg


def column_max(r: Resamples, gap, inv_se, floor, active, cols: np.ndarray):
    """Per resample in ``cols``: the max of Z over the active pairs and its flat pair."""
    k = gap.shape[0]
    top = np.empty(cols.size)
    arg = np.empty(cols.size, dtype=np.int64)
    step = _chunk(k)
    for a in range(0, cols.size, step):
        z = studentized(r, cols[a : a + step], gap, inv_se, floor)
        z[:, ~active] = -np.inf
        flat = z.reshape(z.shape[0], k * k)
        am = flat.argmax(axis=1)
        arg[a : a + step] = am
        top[a : a + step] = flat[np.arange(flat.shape[0]), am]
    return top, arg


def p_first(s: np.ndarray) -> np.ndarray:
    """The share of resamples in which each system is first (ties at the top split)."""
    top = s >= s.max(axis=0, keepdims=True) - _TIE
    return (top / top.sum(axis=0, keepdims=True)).mean(axis=1)
