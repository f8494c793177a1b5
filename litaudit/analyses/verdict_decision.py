"""The deciding test of the reusability verdict (:mod:`litaudit.analyses.verdict`).

The shift of held-out runs in a pooling simulation (Carterette, Kanoulas, Pavlu, Fang,
SIGIR 2010, Sections 3.1, 3.2.3, 4.3): how much lower a site's runs score, relative to the
other runs, on topics the site did not contribute judgments to, in expectation over the
design's random hold-out assignments (:mod:`litaudit.stats.holdout_shift`; exact, no seed),
tested over topics. The pool depth of an archive is not recorded, so the test is made at
every depth of ``defaults.LOU_DEPTHS`` (and the one asked for), Holm-corrected across them.

Here: the three outcomes; the test at one depth (:class:`ShiftTest`) with the sites whose
runs lose most; the tests on an archive's pools and on a score matrix; and :func:`decide`
(outcome and headline from the tests' adjusted p-values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement_randomization import holdout_design
from litaudit.stats.agreement import adjust_pvalues
from litaudit.stats.holdout_shift import HoldoutShift, holdout_shift

EVIDENCE = "evidence against reuse"
NO_EVIDENCE = "no evidence against reuse in these data"
NOT_ENOUGH = "not enough data"
OUTCOMES = (EVIDENCE, NO_EVIDENCE, NOT_ENOUGH)


@dataclass(frozen=True)
class SiteShift:
    site: str
    runs: int
    shift_pct: float  # mean shift of its runs, % of the mean score


@dataclass(frozen=True)
class ShiftTest:
    """The deciding test at one pool depth (None: scores given, no pooling)."""

    depth: int | None
    result: HoldoutShift
    p_adjusted: float  # Holm across every test entering the verdict
    evidence: bool
    most_affected: tuple[SiteShift, ...]  # the sites whose runs lose most (up to 3)


def decide(
    tests: Sequence[tuple[int | None, HoldoutShift, tuple[SiteShift, ...]]],
    alpha: float,
    correction: str,
) -> tuple[str, str, tuple[ShiftTest, ...]]:
    """Outcome, headline and the tests with their adjusted p-values."""
    if not tests:
        return NOT_ENOUGH, "not enough data: no hold-out test could be made", ()
    p = np.array([t[1].p_value for t in tests])
    adj = adjust_pvalues(p, correction)
    out = tuple(
        ShiftTest(d, r, float(a), bool(a < alpha), sites)
        for (d, r, sites), a in zip(tests, adj, strict=True)
    )
    hit = [t for t in out if t.evidence]
    if not hit:
        return (
            NO_EVIDENCE,
            (
                f"{NO_EVIDENCE}: held-out sites' runs do not score differently "
                f"on the topics they did not judge (smallest adjusted p "
                f"{min(adj):.3g}, alpha {alpha:g}, {correction})"
            ),
            out,
        )
    parts = "; ".join(
        (f"depth {t.depth}: " if t.depth is not None else "")
        + f"{t.result.shift_pct:+.2f}% (adjusted p {t.p_adjusted:.2g})"
        for t in hit
    )
    return (
        EVIDENCE,
        (
            f"{EVIDENCE}: held-out sites' runs score differently, relative to "
            f"the other runs, on the topics they did not judge: {parts}"
        ),
        out,
    )


def site_shifts(r: HoldoutShift, site, names) -> tuple[SiteShift, ...]:
    """The (up to 3) sites whose runs lose most in ``r`` (``site``: each run's index)."""
    per = np.array(r.per_run)
    rows = []
    for s, name in enumerate(names):
        sel = (np.asarray(site) == s) & np.isfinite(per)
        if sel.any():
            rows.append(
                SiteShift(name, int(sel.sum()), 100.0 * float(per[sel].mean()) / r.mean_score)
            )
    rows.sort(key=lambda x: x.shift_pct)
    return tuple(rows[:3])


def pool_shift_tests(coded, depths, notes: list[str], tick, keep: int | None = None):
    """The hold-out design, the shift test at every depth (none under 3 participants,
    with a note) and the pool table at depth ``keep`` (None when not made)."""
    from litaudit.analyses.holdout_pools import design_counts, pool_scores

    site = coded.participant_of_run
    names = coded.participant_names
    m = len(names)
    design = None
    kept = None
    tests = []
    if m < 3:
        notes.append(
            f"{m} participant(s): the hold-out design needs at least 3 sites "
            f"(k = {defaults.AGREEMENT_K} held out of each topic)"
        )
        for _ in depths:
            tick(1)
    else:
        design = holdout_design(m, len(coded.topic_names), defaults.AGREEMENT_K)
        if design.note:
            notes.append(f"hold-out design {design.note}")
        for d in depths:
            ps = pool_scores(coded, site, k=defaults.AGREEMENT_K, depth=d)
            r = holdout_shift(ps.ap, design_counts(ps), site, ps.subsets)
            tests.append((d, r, site_shifts(r, site, names)))
            kept = ps if d == keep else kept
            tick(1)
    return design, tests, kept


def matrix_shift_test(x, site, names) -> tuple[None, HoldoutShift, tuple[SiteShift, ...]]:
    """The shift test on a runs x topics matrix of full-judgment scores (``site``: each
    run's site index), over the round-robin hold-out design of its sites."""
    from itertools import combinations

    from litaudit.stats.design import round_robin
    from litaudit.stats.holdout_shift import round_robin_counts

    m = int(site.max()) + 1
    n_r, n_t = x.shape
    subsets = ((),) + tuple(combinations(range(m), defaults.AGREEMENT_K))
    index = {s: n for n, s in enumerate(subsets)}
    order = [index[tuple(sorted(s))] for s in round_robin(tuple(range(m)), defaults.AGREEMENT_K)]
    table = np.broadcast_to(x.T[:, None, :], (n_t, len(subsets), n_r))
    r = holdout_shift(table, round_robin_counts(subsets, n_t, 0, order), site, subsets)
    return None, r, site_shifts(r, site, names)
