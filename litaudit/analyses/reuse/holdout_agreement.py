"""The significance-agreement part of the reusability verdict (Carterette, Kanoulas, Pavlu
and Fang, SIGIR 2010, Sections 3.1, 3.2.1 and 4.3), aggregated over many random hold-out
assignments and tested with a null that keeps the dependence between pairs
(:mod:`litaudit.stats.agreement_null`).

For b = 1..B: draw a hold-out assignment A_b (a random topic order, then the paper's round
robin of k-subsets of sites), score the runs under it (a pooling simulation, or fixed
scores), draw an independent assignment A'_b of the same design, and compute the paper's
X^2 of observed against expected agreement with A_b and with A'_b on the same scores.
Per analysis (within-site, between-site, participant comparison) the mean of
D_b = X^2(A_b) - X^2(A'_b) is tested by sign flips. The per-assignment chi-square(3)
p-values of the paper are kept as a description (their distribution), not as the test.
The design is in :mod:`litaudit.analyses.reuse.holdout_design`, the result types in
:mod:`litaudit.analyses.reuse.holdout_result`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.holdout_design import HoldoutDesign, holdout_design
from litaudit.analyses.reuse.holdout_pools import pool_scores
from litaudit.analyses.reuse.holdout_result import (
    AgreementPart,
    AgreementSettings,
    AgreementTest,
    Quantiles,
    ShiftPart,
)
from litaudit.errors import ParameterError
from litaudit.stats.agreement_null import (
    ANALYSES,
    agreement_statistics_of,
    pair_sets,
    signflip_pvalue,
)
from litaudit.stats.design import assign_holdouts

# runs minus that of the other runs, same topics


def _quantiles(x: np.ndarray) -> Quantiles:
    return Quantiles(float(x.min()), float(np.median(x)), float(x.max()))


def _shift(scores: np.ndarray, held_runs: np.ndarray) -> tuple[float, float, int]:
    """Mean over runs of (mean on held-out topics - mean on the others), the RMSE of the
    two means, and the runs with both; scores centred per topic (each topic's mean over
    runs subtracted), so that topic difficulty does not enter."""
    ok = np.isfinite(scores)
    centre = np.where(ok, scores, 0.0).sum(axis=0, keepdims=True) / np.maximum(
        ok.sum(axis=0, keepdims=True), 1
    )
    x = np.where(ok, scores - centre, 0.0)
    nh, nb = (held_runs & ok).sum(1), (~held_runs & ok).sum(1)
    use = (nh > 0) & (nb > 0)
    if not use.any():
        return float("nan"), float("nan"), 0
    reuse = (x * (held_runs & ok)).sum(1)[use] / nh[use]
    base = (x * (~held_runs & ok)).sum(1)[use] / nb[use]
    return (
        float(np.mean(reuse - base)),
        float(np.sqrt(np.mean((reuse - base) ** 2))),
        int(use.sum()),
    )


def _held_matrix(held_out, topic_pos: dict[str, int], m: int) -> np.ndarray:
    h = np.zeros((m, len(topic_pos)), dtype=bool)
    for t, sites in held_out:
        for s in sites:
            h[int(s), topic_pos[t]] = True
    return h


def _agreement_parts(
    sets,
    pairs: np.ndarray,
    real: np.ndarray,
    null: np.ndarray,
    x2: np.ndarray,
    flip_rng: np.random.Generator,
    settings: AgreementSettings,
) -> list[AgreementPart]:
    """One part per pair set from the per-assignment statistics (sign-flip p-values
    drawn from ``flip_rng`` in set order)."""
    flips, alpha = settings.flips, settings.alpha
    min_topics, min_pairs = settings.min_topics, settings.min_pairs
    parts = []
    for n, ps in enumerate(sets):
        pm = pairs[:, n]
        if pm.mean() < min_pairs:
            parts.append(
                AgreementPart(
                    analysis=ps.analysis,
                    status="not enough data",
                    reason=(
                        f"{pm.mean():.1f} pairs with >= {min_topics} baseline and reuse "
                        f"topics per assignment on average (fewer than {min_pairs})"
                    ),
                    pairs_min=int(pm.min()),
                    pairs_max=int(pm.max()),
                    disagreement_real=None,
                    disagreement_null=None,
                    expected_disagreement=None,
                    x2_real=None,
                    x2_null=None,
                    p_value=None,
                    paper_p=None,
                    paper_rejections=None,
                )
            )
            continue
        ok = pm > 0
        d = x2[ok, n, 0] - x2[ok, n, 1]
        p_paper = null[ok, n, 0]
        parts.append(
            AgreementPart(
                analysis=ps.analysis,
                status="tested",
                reason="",
                pairs_min=int(pm.min()),
                pairs_max=int(pm.max()),
                disagreement_real=float(np.nanmean(real[ok, n, 0])),
                disagreement_null=float(np.nanmean(real[ok, n, 1])),
                expected_disagreement=float(np.nanmean(real[ok, n, 2])),
                x2_real=float(x2[ok, n, 0].mean()),
                x2_null=float(x2[ok, n, 1].mean()),
                p_value=signflip_pvalue(d, flips, flip_rng),
                paper_p=_quantiles(p_paper),
                paper_rejections=int((p_paper < alpha).sum()),
            )
        )
    return parts


def _shift_part(
    shifts: np.ndarray,
    shift_runs: list[int],
    score_fn: Callable[[np.ndarray], np.ndarray],
    last_held: np.ndarray,
    flip_rng: np.random.Generator,
    flips: int,
) -> ShiftPart:
    """The held-out runs' score shift (relative to the mean score under the last
    assignment's hold-outs ``last_held``)."""
    runs_min = min(shift_runs)
    if runs_min < 2:
        shift = ShiftPart(
            status="not enough data",
            reason="fewer than 2 runs with held-out and other topics",
            runs=runs_min,
            shift_real=None,
            shift_null=None,
            effect=None,
            effect_pct=None,
            rmse_real=None,
            rmse_null=None,
            p_value=None,
        )
    else:
        d = shifts[:, 0] - shifts[:, 1]
        effect = float(d.mean())
        mean_score = float(np.nanmean(score_fn(last_held)))
        p = signflip_pvalue(d, flips, flip_rng, two_sided=True)
        shift = ShiftPart(
            status="tested",
            reason="",
            runs=runs_min,
            shift_real=float(shifts[:, 0].mean()),
            shift_null=float(shifts[:, 1].mean()),
            effect=effect,
            effect_pct=100.0 * effect / mean_score if mean_score else None,
            rmse_real=float(shifts[:, 2].mean()),
            rmse_null=float(shifts[:, 3].mean()),
            p_value=p,
        )
    return shift


def _check_test_args(assignments: int, alpha: float) -> None:
    if assignments < 1:
        raise ParameterError("assignments must be at least 1")
    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")


@dataclass
class _Draws:
    """The per-assignment statistics of :func:`agreement_test`, filled row by row."""

    real: np.ndarray
    null: np.ndarray
    x2: np.ndarray
    pairs: np.ndarray
    shifts: np.ndarray
    shift_runs: list[int]
    bias: list[float]

    @classmethod
    def zeros(cls, assignments: int, n_sets: int) -> _Draws:
        return cls(
            real=np.zeros((assignments, n_sets, 4)),
            null=np.zeros((assignments, n_sets, 4)),
            x2=np.zeros((assignments, n_sets, 2)),
            pairs=np.zeros((assignments, n_sets), dtype=int),
            shifts=np.zeros((assignments, 4)),
            shift_runs=assignments * [0],
            bias=[],
        )

    def record(self, b, scores, h, h2, site, sets, alpha, min_topics, full_scores) -> None:
        """Row ``b``: the statistics of ``scores`` under the assignment ``h`` and the
        independent ``h2``."""
        # start-up: scipy.stats (0.9 s; render/audits.py imports this module for every audit)
        from scipy import stats

        st, su = agreement_statistics_of(scores, (h, h2), sets, alpha=alpha, min_topics=min_topics)
        for n, (x, y) in enumerate(zip(st, su, strict=True)):
            self.real[b, n] = (x.disagreement, y.disagreement, x.expected_disagreement, 0)
            self.x2[b, n] = (x.x2, y.x2)
            self.pairs[b, n] = min(x.pairs, y.pairs)
            self.null[b, n, 0] = stats.chi2.sf(x.x2, 3) if x.pairs else np.nan
        sr, rr, nr = _shift(scores, h[site])
        sn, rn, nn = _shift(scores, h2[site])
        self.shifts[b] = (sr, sn, rr, rn)
        self.shift_runs[b] = min(nr, nn)
        if full_scores is not None:
            delta = scores - full_scores
            ok = np.isfinite(delta)
            held_runs = h[site]
            if (held_runs & ok).any() and (~held_runs & ok).any():
                self.bias.append(
                    float(delta[held_runs & ok].mean() - delta[~held_runs & ok].mean())
                )


def agreement_test(
    site_of_run,
    n_topics: int,
    score_fn: Callable[[np.ndarray], np.ndarray],
    settings: AgreementSettings = AgreementSettings(),
    *,
    source: str = "",
    measure: str = "AP",
    depth: int | None = None,
    full_scores: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> AgreementTest:
    """The agreement test over ``settings.assignments`` random hold-out assignments.

    ``site_of_run``: integer site codes 0..m-1. ``score_fn(held)``: the runs x topics
    scores when topic t holds out the sites ``held[:, t]`` (sites x topics bool); return
    the same matrix every time for scores that do not depend on the hold-outs.
    ``full_scores`` (runs x topics, full judgments) adds the held-out runs' mean change.
    """
    k, baseline, alpha = settings.k, settings.baseline, settings.alpha
    assignments, seed, flips = settings.assignments, settings.seed, settings.flips
    site = np.asarray(site_of_run, dtype=np.int64)
    m = int(site.max()) + 1
    _check_test_args(assignments, alpha)
    design = holdout_design(m, n_topics, k, baseline)
    topics = [str(t) for t in range(n_topics)]
    pos = {t: i for i, t in enumerate(topics)}
    names = [str(s) for s in range(m)]
    sets = pair_sets(site)
    rng = np.random.default_rng(seed)
    d = _Draws.zeros(assignments, len(sets))
    for b in range(assignments):
        a = assign_holdouts(topics, names, k, baseline, rng=rng)
        a2 = assign_holdouts(topics, names, k, baseline, rng=rng)
        h = _held_matrix(zip(a.topics, a.held_out, strict=True), pos, m)
        h2 = _held_matrix(zip(a2.topics, a2.held_out, strict=True), pos, m)
        scores = score_fn(h)
        d.record(b, scores, h, h2, site, sets, alpha, settings.min_topics, full_scores)
        if progress is not None:
            progress(1)
    real, null, x2, pairs = d.real, d.null, d.x2, d.pairs
    shifts, shift_runs, bias = d.shifts, d.shift_runs, d.bias
    flip_rng = np.random.default_rng(settings.flip_seed)
    parts = _agreement_parts(sets, pairs, real, null, x2, flip_rng, settings)
    shift = _shift_part(shifts, shift_runs, score_fn, h, flip_rng, flips)
    return AgreementTest(
        source=source,
        measure=measure,
        alpha=alpha,
        k=k,
        depth=depth,
        assignments=assignments,
        flips=flips,
        seed=seed,
        flip_seed=settings.flip_seed,
        min_topics=settings.min_topics,
        min_pairs=settings.min_pairs,
        design=design,
        parts=tuple(parts),
        shift=shift,
        held_out_bias=float(np.mean(bias)) if bias else None,
    )


def archive_agreement(
    coded,
    settings: AgreementSettings = AgreementSettings(),
    *,
    depth: int = defaults.AGREEMENT_DEPTH,
    site_of_run=None,
    full: bool = False,
    pools=None,
    progress: Callable[[int], None] | None = None,
) -> AgreementTest:
    """The agreement test on a run archive: pooling simulations at ``depth`` (sites =
    participants unless ``site_of_run`` is given). ``full=True`` scores every run with
    the full judgments on both sides instead (reusable by construction). ``pools``: the
    :func:`~litaudit.analyses.reuse.holdout_pools.pool_scores` table of these sites, ``k`` and
    ``depth`` when the caller made it already."""

    k = settings.k
    site = coded.participant_of_run if site_of_run is None else np.asarray(site_of_run)
    ps = pools
    if ps is None or (ps.k, ps.depth, ps.n_sites) != (k, depth, int(site.max()) + 1):
        ps = pool_scores(coded, site, k=k, depth=depth)
    index = {s: n for n, s in enumerate(ps.subsets)}
    n_t = ps.ap.shape[0]

    def score_fn(h: np.ndarray) -> np.ndarray:
        if full:
            return ps.full
        sub = [index[tuple(np.flatnonzero(h[:, t]).tolist())] for t in range(n_t)]
        return ps.scores(np.array(sub))

    src = (
        "full judgments on both sides (reusable by construction)"
        if full
        else f"pooling simulation: depth-{depth} pools of the sites not held out"
    )
    return agreement_test(
        site,
        n_t,
        score_fn,
        settings,
        depth=None if full else depth,
        source=src,
        full_scores=None if full else ps.full,
        progress=progress,
    )


def matrix_agreement(
    scores,
    site_of_run,
    settings: AgreementSettings = AgreementSettings(),
    *,
    source: str = "",
    progress: Callable[[int], None] | None = None,
) -> AgreementTest:
    """The agreement test on a fixed runs x topics score matrix (e.g. full judgments)."""
    x = np.asarray(scores, dtype=float)
    return agreement_test(
        site_of_run, x.shape[1], lambda h: x, settings, source=source, progress=progress
    )


__all__ = [
    "ANALYSES",
    "AgreementPart",
    "AgreementSettings",
    "ShiftPart",
    "AgreementTest",
    "HoldoutDesign",
    "Quantiles",
    "agreement_test",
    "archive_agreement",
    "holdout_design",
    "matrix_agreement",
]
