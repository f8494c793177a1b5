"""The reusability verdict of a collection, stored as an audit (kind 'reuse-verdict').

One of three outcomes, none a proof: "evidence against reuse" (which parts, with effect
sizes), "no evidence against reuse in these data", "not enough data".

What decides (docs/STATISTICS.md, reusability): the shift of held-out runs in a pooling
simulation (Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010, Sections 3.1, 3.2.3, 4.3):
how much lower a site's runs score, relative to the other runs, on topics the site did
not contribute judgments to, in expectation over the design's random hold-out
assignments (:mod:`litaudit.stats.holdout_shift`; exact, no seed), tested over topics.
The pool depth of an archive is not recorded, so the test is made at every depth of
``defaults.LOU_DEPTHS`` (and the one asked for), Holm-corrected across them.

What is shown beside it, never as a gate: the paper's agreement-in-significance analysis
over random assignments (its chi-square p per assignment, and a sign-flip test that keeps
the pairs' dependence: :mod:`litaudit.analyses.agreement_test`); RAO and leave-out-uniques
over the same depths (Voorhees, Lin, Efron, SIGIR 2014); sub-collection tau (Sanderson,
Turpin, Zhang, Scholer, CIKM 2012); each with the papers' reference values.

The deciding test is in :mod:`litaudit.analyses.verdict_decision`, what is shown beside it
in :mod:`litaudit.analyses.verdict_descriptive`; this module assembles them into the stored
:class:`Verdict` (of a run archive, or of a score matrix).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit import defaults
from litaudit.analyses.agreement_test import (
    AgreementTest,
    HoldoutDesign,
    archive_agreement,
    holdout_design,
    matrix_agreement,
)
from litaudit.analyses.audits import Audited
from litaudit.analyses.coded_archive import LOAD_STEPS, load_coded
from litaudit.analyses.reuse import run_lou, run_rao
from litaudit.analyses.subcollection_tau import (
    DEFAULT_SEED as SUBCOLLECTION_SEED,
)
from litaudit.analyses.subcollection_tau import SUBCOLLECTION_PERMUTATIONS
from litaudit.analyses.verdict_decision import (
    EVIDENCE,
    NO_EVIDENCE,
    NOT_ENOUGH,
    OUTCOMES,
    ShiftTest,
    SiteShift,
    decide,
    matrix_shift_test,
    pool_shift_tests,
)
from litaudit.analyses.verdict_descriptive import (
    Coverage,
    LOUDepth,
    RAOSummary,
    Reference,
    SubcollectionSummary,
    coverage,
    lou_depths,
    official_counts,
    references,
    subcollection_summary,
)
from litaudit.errors import ParameterError

__all__ = [
    "EVIDENCE",
    "KIND",
    "NOT_ENOUGH",
    "NO_EVIDENCE",
    "OUTCOMES",
    "SUBCOLLECTION_SEED",
    "Coverage",
    "LOUDepth",
    "RAOSummary",
    "Reference",
    "ShiftTest",
    "SiteShift",
    "SubcollectionSummary",
    "Verdict",
    "decide",
    "matrix_verdict",
    "official_counts",
    "run_verdict",
    "verdict_steps",
]

KIND = "reuse-verdict"


@dataclass(frozen=True)
class Verdict:
    """Reusability verdict of a collection (from its run archive) or of a score matrix."""

    collection_id: str | None
    outcome: str  # one of OUTCOMES
    headline: str
    alpha: float
    correction: str
    measure: str
    coverage: Coverage
    design: HoldoutDesign | None
    tests: tuple[ShiftTest, ...]  # every test entering the verdict
    agreement: AgreementTest | None  # descriptive
    lou: tuple[LOUDepth, ...]
    rao: RAOSummary | None
    subcollections: SubcollectionSummary | None
    references: tuple[Reference, ...]
    audits: tuple[tuple[str, int], ...]  # (kind, audit id) of the components stored
    notes: tuple[str, ...]


# ------------------------------------------------------------------ archive verdict


def verdict_steps(depths, assignments: int, permutations: int, subcollections: bool) -> int:
    """Progress units of :func:`run_verdict` (for a progress bar)."""
    return LOAD_STEPS + 2 * len(depths) + assignments + (permutations if subcollections else 0)


def _depths(depth: int) -> tuple[int, ...]:
    return tuple(sorted(set(defaults.LOU_DEPTHS) | {depth}))


def run_verdict(
    con,
    collection: str,
    *,
    depth: int = defaults.AGREEMENT_DEPTH,
    split: str = "prefix",
    permutations: int = SUBCOLLECTION_PERMUTATIONS,
    split_seed: int = SUBCOLLECTION_SEED,
    seed: int = defaults.AGREEMENT_SEED,
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS,
    alpha: float = defaults.REUSE_ALPHA,
    correction: str = defaults.REUSE_CORRECTION,
    workers: int = 1,
    subcollections: bool = False,
    save: bool = True,
    progress: Callable[[int], None] | None = None,
    loaded=None,
) -> Audited[Verdict]:
    """The verdict of a stored run archive (see the module doc), stored as an audit; an
    identical call (same parameters, seeds, archive and version) hands back the stored one.
    ``loaded``: the (collection id, coded archive) of ``collection`` when the caller has
    it already (as :func:`load_coded` returns it)."""
    from litaudit.analyses.audits import run_or_reuse

    if not 0 < alpha < 1:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    from litaudit.analyses.archive_ranges import RangedArchive, load_ranged

    if loaded is None and not subcollections:  # read by topic ranges (issue 24)
        loaded = load_ranged(con, collection)  # its ranges are read by _archive_verdict
    elif loaded is None:  # the sub-collection analysis needs the whole archive
        loaded = load_coded(con, collection, progress)
    elif progress is not None and not isinstance(loaded[1], RangedArchive):
        progress(LOAD_STEPS)  # loaded by the caller: its steps are done
    cid, coded = loaded
    depths = _depths(depth)
    params = {
        "depth": depth,
        "depths": list(depths),
        "split": split,
        "alpha": alpha,
        "correction": correction,
        "assignments": assignments,
        "split_seed": split_seed,
        "permutations": permutations,
        "flip_seed": defaults.AGREEMENT_FLIP_SEED,
        "subcollections": subcollections,
    }
    if not split.startswith("prefix") and Path(split).is_file():
        # the mapping file is input too (as in run_subcollections)
        params["split_sha256"] = hashlib.sha256(Path(split).read_bytes()).hexdigest()
    return run_or_reuse(
        con,
        KIND,
        collection_id=cid,
        measure=None,
        params=params,
        fingerprint=coded.fingerprint,
        method="expected hold-out shift, topic t-test, Holm",
        seed=seed,
        trials=assignments,
        save=save,
        compute=lambda: _archive_verdict(
            con,
            loaded,
            depth=depth,
            split=split,
            permutations=permutations,
            split_seed=split_seed,
            seed=seed,
            assignments=assignments,
            alpha=alpha,
            correction=correction,
            workers=workers,
            subcollections=subcollections,
            save=save,
            progress=progress,
        ),
    )


def _read_ranges(coded, tick) -> None:
    """The load's steps of a ranged archive: its ranges' first reading, LOAD_STEPS spread
    over them (nothing for a coded archive: loaded already)."""
    from litaudit.analyses.archive_ranges import RangedArchive

    if not isinstance(coded, RangedArchive):
        return
    n_ranges, done = max(len(coded.ranges), 1), [0]

    def read_tick(n: int) -> None:
        before = done[0] * LOAD_STEPS // n_ranges
        done[0] += n
        tick(done[0] * LOAD_STEPS // n_ranges - before)

    coded.read(read_tick)
    tick(LOAD_STEPS - done[0] * LOAD_STEPS // n_ranges)  # (no ranges: all at once)


def _archive_verdict(
    con,
    loaded,
    *,
    depth: int,
    split: str,
    permutations: int,
    split_seed: int,
    seed: int,
    assignments: int,
    alpha: float,
    correction: str,
    workers: int,
    subcollections: bool,
    save: bool,
    progress: Callable[[int], None] | None,
) -> Verdict:
    tick = progress or (lambda n: None)
    cid, coded = loaded
    _read_ranges(coded, tick)
    m = len(coded.participant_names)
    depths = _depths(depth)
    notes: list[str] = []
    audits: list[tuple[str, int | None]] = []
    cov = coverage(len(coded.tags), m, len(coded.topic_names), official_counts(con, cid))
    # descriptive: RAO and LOU at the asked depth (stored), LOU at every depth
    # (each reused when an identical call stored it)
    rao_done = run_rao(con, cid, depth=depth, save=save, loaded=loaded)
    lou_done = run_lou(con, cid, depth=depth, save=save, loaded=loaded)
    audits += [("reuse-rao", rao_done.audit_id), ("reuse-lou", lou_done.audit_id)]
    rao, lou_main = rao_done.result, lou_done.result
    lou = lou_depths(coded, lou_main, depth, depths, tick)
    if lou_main.n_unknown_type:
        notes.append(f"{lou_main.n_unknown_type} run(s) of unknown type are left out of LOU")
    # the deciding tests
    design, tests, pools = pool_shift_tests(coded, depths, notes, tick, keep=depth)
    outcome, headline, shift_tests = decide(tests, alpha, correction)
    # descriptive: the paper's agreement analysis over random assignments
    agreement = None
    if m >= 3:
        agreement = archive_agreement(
            coded,
            depth=depth,
            assignments=assignments,
            seed=seed,
            alpha=alpha,
            progress=tick,
            pools=pools,
        )
    else:
        tick(assignments)
    sub = None
    if subcollections:
        sub, sub_id = subcollection_summary(
            con, cid, split, permutations, split_seed, workers, save, loaded, alpha, notes, tick
        )
        if sub_id is not None:
            audits.append(("reuse-subcollections", sub_id))
    else:
        notes.append("sub-collection tau (descriptive) not computed: add --subcollections")
    v = Verdict(
        collection_id=cid,
        outcome=outcome,
        headline=headline,
        alpha=alpha,
        correction=correction,
        measure="AP",
        coverage=cov,
        design=design,
        tests=shift_tests,
        agreement=agreement,
        lou=tuple(lou),
        rao=RAOSummary(rao.depth, rao.mean_rao, rao.max_rao, rao.lower_bound),
        subcollections=sub,
        references=references(shift_tests, tuple(lou), sub, agreement),
        audits=tuple((k, i) for k, i in audits if i is not None),
        notes=tuple(notes),
    )
    return v


# ------------------------------------------------------------------ score-matrix verdict


def _too_few_sites(m: int, cov, notes: list[str], alpha: float, correction: str) -> Verdict:
    """The score-matrix verdict with fewer than 3 sites: no hold-out design."""
    outcome, headline, tests = decide([], alpha, correction)
    return Verdict(
        None,
        outcome,
        headline,
        alpha,
        correction,
        "AP",
        cov,
        None,
        tests,
        None,
        (),
        None,
        None,
        (),
        (),
        tuple(notes + [f"{m} site(s): the hold-out design needs at least 3"]),
    )


def matrix_verdict(
    scores,
    sites,
    *,
    names=None,
    source: str = "scores",
    seed: int = defaults.AGREEMENT_SEED,
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS,
    alpha: float = defaults.REUSE_ALPHA,
    correction: str = defaults.REUSE_CORRECTION,
    progress: Callable[[int], None] | None = None,
) -> Verdict:
    """The verdict on a runs x topics matrix of full-judgment scores (e.g. the per-topic
    files of shared/data) with run sites: every run is scored with the same judgments
    whichever sites are held out, so the shift is 0 by construction; the agreement
    analysis over random assignments is shown beside it."""
    x = np.asarray(scores, dtype=float)
    site = np.unique(np.asarray(sites), return_inverse=True)[1]
    labels = names or tuple(str(s) for s in sorted(set(sites)))
    m = int(site.max()) + 1
    n_r, n_t = x.shape
    cov = coverage(n_r, m, n_t, (None, None))
    notes = [
        "one score per run and topic: the scores do not depend on which sites are held "
        "out (reusable by construction), so the shift is 0 whatever the data"
    ]
    if m < 3:
        return _too_few_sites(m, cov, notes, alpha, correction)
    design = holdout_design(m, n_t, defaults.AGREEMENT_K)
    if design.note:
        notes.append(f"hold-out design {design.note}")
    outcome, headline, tests = decide([matrix_shift_test(x, site, labels)], alpha, correction)
    agreement = matrix_agreement(
        x, site, assignments=assignments, seed=seed, alpha=alpha, source=source, progress=progress
    )
    return Verdict(
        None,
        outcome,
        headline,
        alpha,
        correction,
        "AP",
        cov,
        design,
        tests,
        agreement,
        (),
        None,
        None,
        references(tests, (), None, agreement),
        (),
        tuple(notes),
    )
