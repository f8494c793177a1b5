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

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

_CELLS_PER_CHUNK = 4_000_000  # ours: K*K*resamples per matrix product (16 MB of singles)
_CELLS_PER_BLOCK = 131_072  # ours: K*K*resamples per elementwise array (512 KB of singles)
_LEAST_SE = np.sqrt(np.float32(1e-18))  # the least se of a difference, 1e-9
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

    def pair_parts(self, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """What :meth:`pair_se` finishes a block at a time, for the resamples ``rows``, in
        single precision on the scores centred by system (the same variance, less
        cancellation): sum_d w_d r_id r_jd (c x K x K: W (c x T) @ the units' outer
        products (T x K^2), one matrix product), its diagonal (c x K), the resampled means
        of the centred scores (c x K, noise left out) and the noise variance (c x K, or
        None)."""
        f4 = np.float32
        w = self.counts[rows].astype(f4)
        k, n = self.y.shape
        rt, outer = self._centred
        var = (w @ outer).reshape(-1, k, k)
        dq = np.einsum("bii->bi", var).copy()
        m0 = (w @ rt) / float(n)
        nv = self.noise_var(rows)
        return var, dq, m0, None if nv is None else nv.astype(f4)

    def pair_se(
        self, parts, block: slice, scratch: np.ndarray, floor: np.ndarray, clamps: bool
    ) -> np.ndarray:
        """Each resample's own se of every difference (c x K x K) of the resamples
        ``block`` of :meth:`pair_parts`'s, in place of their sums: the paired variance of
        the resampled units, plus the resample's noise (the bootstrap-t's
        studentization), at least ``floor`` (K x K) and sqrt(1e-18) (``clamps``: the floor
        is never below it); ``scratch``: room for one more c x K x K."""
        var, dq, m0, nv = parts
        t = float(self.y.shape[1])
        v = var[block]
        v *= -2.0
        v += dq[block, :, None]
        v += dq[block, None, :]
        d = np.subtract(m0[block, :, None], m0[block, None, :], out=scratch)
        d *= d
        d *= t
        v -= d
        v /= t * (t - 1.0)
        if nv is not None:
            v += nv[block, :, None]
            v += nv[block, None, :]
        if clamps:  # the floor alone clamps (sqrt's NaN below 0 dropped): one pass less
            with np.errstate(invalid="ignore"):
                np.sqrt(v, out=v)
            return np.fmax(v, floor[None, :, :], out=v)
        np.maximum(v, self._tiny, out=v)
        np.sqrt(v, out=v)
        return np.maximum(v, floor[None, :, :], out=v)

    @cached_property
    def _tiny(self) -> np.ndarray:
        """The least variance, 1e-18, as a K x K array (np.maximum is faster with an array
        than with a scalar)."""
        k = self.y.shape[0]
        return np.full((k, k), 1e-18, dtype=np.float32)


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
) -> Iterator[tuple[int, np.ndarray]]:
    """Z[b, i, j] = [(S*_i - S*_j) - (m_i - m_j)] / se_ij for the resamples ``rows``
    (``gap[i, j]`` = m_i - m_j), se_ij the resample's own (bootstrap-t) or, given
    ``inv_se``, the sample's; the diagonal -inf. Yielded a block of resamples at a time
    (its offset in ``rows``, its Z: a view valid until the next), each block's arrays
    small enough for the cache; the matrix products are of all of ``rows`` at once (their
    digits depend on how many)."""
    st = r.means(rows)
    c, k = st.shape
    if inv_se is None:  # single precision: a quantile to 1e-3 needs no more, and it is faster
        st = st.astype(np.float32)
        gap, floor = gap.astype(np.float32), floor.astype(np.float32)
        parts = r.pair_parts(rows)
        clamps = bool(floor.min() >= _LEAST_SE)
    step = max(1, _CELLS_PER_BLOCK // (k * k))
    zbuf = np.empty((min(step, c), k, k), dtype=st.dtype)
    sbuf = np.empty_like(zbuf) if inv_se is None else zbuf
    idx = np.arange(k)
    for a in range(0, c, step):
        block = slice(a, a + step)
        n = min(c, a + step) - a
        z = np.subtract(st[block, :, None], st[block, None, :], out=zbuf[:n])
        z -= gap[None, :, :]
        if inv_se is None:
            z /= r.pair_se(parts, block, sbuf[:n], floor, clamps)
        else:
            z *= inv_se[None, :, :]
        z[:, idx, idx] = -np.inf
        yield block.start, z


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
        for o, z in studentized(r, slice(a, a + step), gap, inv_se, floor):
            at = slice(a + o, a + o + z.shape[0])
            m[:, at] = z.max(axis=1).T
            flat = z.reshape(z.shape[0], k * k)
            am = flat.argmax(axis=1)
            arg[at] = am
            top[at] = flat[np.arange(flat.shape[0]), am]
    return m, top, arg


def column_max(r: Resamples, gap, inv_se, floor, active, cols: np.ndarray):
    """Per resample in ``cols``: the max of Z over the active pairs and its flat pair."""
    k = gap.shape[0]
    top = np.empty(cols.size)
    arg = np.empty(cols.size, dtype=np.int64)
    cap = np.where(active, np.inf, -np.inf).astype(np.float32 if inv_se is None else np.float64)
    step = _chunk(k)
    for a in range(0, cols.size, step):
        for o, z in studentized(r, cols[a : a + step], gap, inv_se, floor):
            at = slice(a + o, a + o + z.shape[0])
            np.minimum(z, cap[None, :, :], out=z)
            flat = z.reshape(z.shape[0], k * k)
            am = flat.argmax(axis=1)
            arg[at] = am
            top[at] = flat[np.arange(flat.shape[0]), am]
    return top, arg


def p_first(s: np.ndarray) -> np.ndarray:
    """The share of resamples in which each system is first (ties at the top split)."""
    top = s >= s.max(axis=0, keepdims=True) - _TIE
    return (top / top.sum(axis=0, keepdims=True)).mean(axis=1)
