"""The reusability verdict's form for a score matrix (``reuse verdict --scores``): a
runs x topics matrix of full-judgment scores with the runs' sites, in the
:class:`~litaudit.analyses.reuse.verdict.Verdict` of a run archive. Every run is scored
with the same judgments whichever sites are held out, so the held-out shift (Carterette,
Kanoulas, Pavlu, Fang, SIGIR 2010, Sections 3.1 and 4.3) is 0 by construction and decides
nothing; the agreement over random assignments (Section 3.2.1) is shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from litaudit import defaults
from litaudit.analyses.reuse.decision import (
    NO_POOLS,
    NOT_ENOUGH,
    DepthShift,
    matrix_shift,
)
from litaudit.analyses.reuse.descriptive import (
    coverage,
    references,
)
from litaudit.analyses.reuse.holdout_agreement import matrix_agreement
from litaudit.analyses.reuse.holdout_design import holdout_design
from litaudit.analyses.reuse.holdout_result import AgreementSettings
from litaudit.analyses.reuse.verdict import Verdict


def matrix_verdict(
    scores,
    sites,
    *,
    names=None,
    source: str = "scores",
    margin_pct: float = defaults.REUSE_MARGIN_PCT,
    seed: int = defaults.AGREEMENT_SEED,
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS,
    alpha: float = defaults.REUSE_ALPHA,
    progress: Callable[[int], None] | None = None,
) -> Verdict:
    """The verdict on a runs x topics matrix of full-judgment scores (e.g. the per-topic
    files of shared/data) with run sites: every run is scored with the same judgments
    whichever sites are held out, so the shift is 0 by construction and decides nothing
    (outcome NO_POOLS, its row shown); the agreement analysis over random assignments is
    shown beside it."""
    x = np.asarray(scores, dtype=float)
    site = np.unique(np.asarray(sites), return_inverse=True)[1]
    labels = names or tuple(str(s) for s in sorted(set(sites)))
    m = int(site.max()) + 1
    n_r, n_t = x.shape
    cov = coverage(n_r, m, n_t, (None, None))
    notes = [
        "one score per run and topic: the scores do not depend on which sites are held "
        "out, so the shift is 0 whatever the data: no decision"
    ]
    design = agreement = None
    rows: tuple[DepthShift, ...] = ()
    if m < 3:
        notes.append(f"{m} site(s): the hold-out design needs at least 3")
    else:
        design = holdout_design(m, n_t, defaults.AGREEMENT_K)
        rows = (matrix_shift(x, site, labels, margin_pct=margin_pct, alpha=alpha),)
        agreement = matrix_agreement(
            x,
            site,
            AgreementSettings(assignments=assignments, seed=seed, alpha=alpha),
            source=source,
            progress=progress,
        )
    outcome = NO_POOLS if rows else NOT_ENOUGH
    decision = None
    return Verdict(
        collection_id=None,
        outcome=outcome,
        alpha=alpha,
        margin_pct=margin_pct,
        measure="AP",
        depth=None,
        depth_source=None,
        coverage=cov,
        design=design,
        tests=rows,
        decision=decision,
        agreement=agreement,
        lou=(),
        rao=None,
        subcollections=None,
        references=references(rows, (), None, agreement),
        audits=(),
        notes=tuple(notes),
    )
