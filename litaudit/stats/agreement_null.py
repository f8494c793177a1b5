"""A calibrated test of agreement in significance (Carterette, Kanoulas, Pavlu and Fang,
SIGIR 2010, Section 3.2.1) whose null keeps the dependence between system pairs.

The paper's statistic is the chi-square discrepancy X^2 between the observed 2x2 table
(baseline significant?, reuse significant?) summed over pairs of runs and the expected
table from the power of each pair's two t-tests. Its chi-square(3) reference treats the
pairs as independent counts, but thousands of pairs share one topic split (the same
baseline and reuse topics), so the counts move together and the reference is far too
narrow: on collections reusable by construction it rejects most of the time.

Here X^2 is only the *statistic*. Its null distribution comes from the design itself:
topics are assigned to held-out sites at random (the paper's round robin after a random
topic order), so when the scores do not depend on which sites were held out (the null
hypothesis of reusability), the real assignment is one draw among all assignments of the
same design. Two tests follow:

- :func:`randomization_pvalue` (one real design, fixed scores): X^2 with the real
  assignment against X^2 with R other assignments of the same scores,
  p = (1 + #{X^2_r >= X^2_obs}) / (1 + R);
- :func:`signflip_pvalue` (a pooling simulation, where every simulated assignment A_b has
  its own scores S_b): D_b = X^2(S_b, A_b) - X^2(S_b, A'_b) with A'_b a fresh
  assignment; under the null D_b is symmetric about 0 and the D_b are independent, so
  the mean of D is tested by random sign flips (one-sided: non-reusability makes the real
  hold-outs fit worse than random ones).

Every pair of runs is counted once per analysis: within-site (same site; reuse topics =
the site held out), between-site (different sites; reuse topics = both held out) and
participant comparison (different sites a < b in site order, a the new site: reuse
topics = a held out and b not; baseline topics = neither held out, as in the paper's
Table 2). Pairs with fewer than ``min_topics`` baseline or reuse topics are left out.
The powers come from the noncentral t (:mod:`litaudit.stats.power`), interpolated on a
grid of the noncentrality for speed (:func:`fast_power`; the tests bound its error).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from litaudit.errors import ParameterError

ANALYSES = ("within-site", "between-site", "participant-comparison")
_NCP_MAX = 40.0
_NCP_STEP = 0.02


@dataclass(frozen=True)
class PairSet:
    """The pairs of runs (i, j) of one analysis; ``a``/``b`` their sites (a: the new site)."""

    analysis: str
    i: np.ndarray
    j: np.ndarray
    a: np.ndarray
    b: np.ndarray


def pair_sets(site_of_run, which=ANALYSES) -> tuple[PairSet, ...]:
    """Every unordered pair of runs once, in the analyses ``which`` (see module doc)."""
    s = np.asarray(site_of_run, dtype=np.int64)
    unknown = [w for w in which if w not in ANALYSES]
    if unknown:
        raise ParameterError(f"unknown analysis {unknown[0]!r}; choose from {', '.join(ANALYSES)}")
    i, j = np.triu_indices(s.size, k=1)
    same = s[i] == s[j]
    out = []
    for w in which:
        if w == "within-site":
            ii, jj = i[same], j[same]
        else:
            ii, jj = i[~same], j[~same]
            # the run of the lower site first: its site is the new one
            swap = s[ii] > s[jj]
            ii, jj = np.where(swap, jj, ii), np.where(swap, ii, jj)
        out.append(PairSet(w, ii, jj, s[ii], s[jj]))
    return tuple(out)


@lru_cache(maxsize=4096)
def _power_grid(df: int, alpha: float) -> np.ndarray:
    # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
    from scipy import stats

    ncp = np.arange(0.0, _NCP_MAX + _NCP_STEP, _NCP_STEP)
    crit = stats.t.isf(alpha / 2.0, df)
    return np.clip(stats.nct.sf(crit, df, ncp) + stats.nct.sf(crit, df, -ncp), 0.0, 1.0)


def fast_power(effect, n, alpha: float) -> np.ndarray:
    """Power of the two-sided paired t-test (as :func:`litaudit.stats.power.paired_t_power`)
    from a per-df grid of the noncentrality (step 0.02 up to 40, linear interpolation;
    power 1 beyond)."""
    d = np.abs(np.asarray(effect, dtype=float))
    n = np.asarray(n, dtype=np.int64)
    out = np.ones(d.shape)
    ncp = d * np.sqrt(n)
    for df in np.unique(n - 1):
        sel = (n - 1 == df) & np.isfinite(ncp) & (ncp < _NCP_MAX)
        if sel.any():
            grid = _power_grid(int(df), float(alpha))
            out[sel] = np.interp(ncp[sel], np.arange(grid.size) * _NCP_STEP, grid)
    return out


@dataclass(frozen=True)
class AgreementStatistic:
    """Observed and expected agreement tables of one analysis and their X^2."""

    analysis: str
    pairs: int
    observed: tuple[int, int, int, int]  # both, omission, commission, neither
    expected: tuple[float, float, float, float]
    x2: float  # Pearson X^2 (cells with expected > 0)
    disagreement: float  # (omission + commission) / pairs observed
    expected_disagreement: float


def _ttests(dsum, dsq, n):
    """mean, sd, two-sided p of paired t-tests from sums; sd 0 gives p 0 or 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = dsum / n
        var = np.maximum((dsq - n * mean * mean) / (n - 1), 0.0)
        sd = np.sqrt(var)
        tiny = sd <= 1e-12 * np.maximum(1.0, np.abs(mean))
        t = mean / (sd / np.sqrt(n))
        p = 2.0 * special.stdtr(n - 1, -np.abs(t))
        p = np.where(tiny, np.where(mean == 0, 1.0, 0.0), p)
        eff = np.where(tiny, np.where(mean == 0, 0.0, np.inf), mean / sd)
    return eff, p


def agreement_statistics(
    scores, held, sets: tuple[PairSet, ...], *, alpha: float = 0.05, min_topics: int = 5
) -> tuple[AgreementStatistic, ...]:
    """X^2 of observed against expected agreement, per analysis (one per ``sets``).

    ``scores``: runs x topics (NaN: missing); ``held``: sites x topics, True where the
    site was held out of the topic.
    """
    return agreement_statistics_of(scores, (held,), sets, alpha=alpha, min_topics=min_topics)[0]


def agreement_statistics_of(
    scores, helds, sets: tuple[PairSet, ...], *, alpha: float = 0.05, min_topics: int = 5
) -> tuple[tuple[AgreementStatistic, ...], ...]:
    """:func:`agreement_statistics` of the same ``scores`` under each assignment of
    ``helds``: the pairs' score differences are taken once for all of them."""
    x = np.asarray(scores, dtype=float)
    hs = [np.asarray(h, dtype=bool) for h in helds]
    ok = np.isfinite(x)
    every = bool(ok.all())
    x0 = x if every else np.where(ok, x, 0.0)
    out: list[list[AgreementStatistic]] = [[] for _ in hs]
    for ps in sets:
        if ps.i.size == 0:
            for o in out:
                o.append(_no_pairs(ps.analysis))
            continue
        valid = None if every else ok[ps.i] & ok[ps.j]  # None: every score there
        d = x0[ps.i] - x0[ps.j]
        d2 = d * d
        for o, h in zip(out, hs, strict=True):
            o.append(_statistic(ps, h, valid, d, d2, alpha, min_topics))
    return tuple(tuple(o) for o in out)


def _no_pairs(analysis: str) -> AgreementStatistic:
    return AgreementStatistic(
        analysis, 0, (0, 0, 0, 0), (0.0,) * 4, 0.0, float("nan"), float("nan")
    )


def _statistic(ps: PairSet, h, valid, d, d2, alpha: float, min_topics: int) -> AgreementStatistic:
    """One analysis under one assignment ``h`` (its pairs' differences ``d`` given)."""
    ha, hb = h[ps.a], h[ps.b]
    if ps.analysis == "within-site":
        base, reuse = ~ha, ha
    elif ps.analysis == "between-site":
        base, reuse = ~ha & ~hb, ha & hb
    else:
        base, reuse = ~ha & ~hb, ha & ~hb
    if valid is not None:
        base &= valid
        reuse &= valid
    nb, nr = base.sum(1), reuse.sum(1)
    keep = (nb >= min_topics) & (nr >= min_topics)
    if not keep.any():
        return _no_pairs(ps.analysis)
    # each pair's sums are its row's alone: taken over every pair, then the kept ones
    # picked (no copies of the pairs x topics arrays)
    nb, nr = nb[keep], nr[keep]
    eff, pb = _ttests((d * base).sum(1)[keep], (d2 * base).sum(1)[keep], nb)
    _, pr = _ttests((d * reuse).sum(1)[keep], (d2 * reuse).sum(1)[keep], nr)
    wb, wr = fast_power(eff, nb, alpha), fast_power(eff, nr, alpha)
    sb, sr = pb < alpha, pr < alpha
    obs = np.array([np.sum(sb & sr), np.sum(sb & ~sr), np.sum(~sb & sr), np.sum(~sb & ~sr)])
    exp = np.array(
        [
            np.sum(wb * wr),
            np.sum(wb * (1 - wr)),
            np.sum((1 - wb) * wr),
            np.sum((1 - wb) * (1 - wr)),
        ]
    )
    pos = exp > 0
    x2 = float(np.sum((obs[pos] - exp[pos]) ** 2 / exp[pos]))
    m = int(keep.sum())
    return AgreementStatistic(
        ps.analysis,
        m,
        (int(obs[0]), int(obs[1]), int(obs[2]), int(obs[3])),
        (float(exp[0]), float(exp[1]), float(exp[2]), float(exp[3])),
        x2,
        float((obs[1] + obs[2]) / m),
        float((exp[1] + exp[2]) / m),
    )


def randomization_pvalue(observed: float, null) -> float:
    """p = (1 + #{null >= observed}) / (1 + R), never 0 (smallest 1 / (1 + R))."""
    z = np.asarray(null, dtype=float)
    return float((1 + np.sum(z >= observed - 1e-12 * max(1.0, abs(observed)))) / (1 + z.size))


def signflip_pvalue(
    differences, flips: int, rng: np.random.Generator, two_sided: bool = False
) -> float:
    """Sign-flip test that the mean of ``differences`` is above 0 (``two_sided``: not 0).

    p = (1 + #{mean of randomly signed differences >= observed mean}) / (1 + flips), with
    absolute values when two-sided.
    """
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        raise ParameterError("no differences to test")
    if flips < 1:
        raise ParameterError("flips must be at least 1")
    obs = float(d.mean())
    signs = rng.choice(np.array([-1.0, 1.0]), size=(flips, d.size))
    null = (signs * d).mean(axis=1)
    if two_sided:
        return randomization_pvalue(abs(obs), np.abs(null))
    return randomization_pvalue(obs, null)
