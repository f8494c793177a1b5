"""The reusability verdict of a collection, stored as an audit (kind 'reuse-verdict').

The question it answers: would a new system's score be off by more than evaluation noise?
One of "reusable within 1%", "new systems lose more than 1%", "inconclusive" (with the
interval), or no decision ("pool depth unknown", "not enough data").

What decides (docs/STATISTICS.md, reusability; :mod:`litaudit.analyses.reuse.decision`):
the shift of held-out runs in a pooling simulation at the collection's pool depth
(Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010, Sections 3.1, 3.2.3, 4.3), exact over
every k-subset of sites held out with equal weight, its 90% interval over topics set
against a margin of 1% of the mean score (Voorhees, Lin, Efron, SIGIR 2014, Section 4) by
two one-sided tests. The depth is the collection's recorded pool depth (with its source)
or the one given; when neither is known the shift is shown at every depth of
``defaults.LOU_DEPTHS`` and nothing is decided.

What is shown beside it, never as a gate: the same shift with the sites as the unit; the
paper's agreement-in-significance analysis over random assignments
(:mod:`litaudit.analyses.reuse.holdout_agreement`); RAO and leave-out-uniques over the same depths
(Voorhees, Lin, Efron, SIGIR 2014); sub-collection tau (Sanderson, Turpin, Zhang,
Scholer, CIKM 2012); each with the papers' reference values (in
:mod:`litaudit.analyses.reuse.descriptive`). This module assembles them into the stored
:class:`Verdict` of a run archive (of a score matrix:
:mod:`litaudit.analyses.reuse.verdict_matrix`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.reuse.archive_ranges import RangedArchive, load_ranged
from litaudit.analyses.reuse.coded_archive import LOAD_STEPS, load_coded
from litaudit.analyses.reuse.decision import (
    NO_DEPTH,
    NO_POOLS,
    NOT_ENOUGH,
    OUTCOMES,
    DepthShift,
    pool_shifts,
    topic_positions,
)
from litaudit.analyses.reuse.descriptive import (
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
from litaudit.analyses.reuse.holdout_agreement import archive_agreement
from litaudit.analyses.reuse.holdout_design import HoldoutDesign
from litaudit.analyses.reuse.holdout_result import AgreementSettings, AgreementTest
from litaudit.analyses.reuse.lou import lou_depths_of_archive, store_lou
from litaudit.analyses.reuse.overlap import run_rao
from litaudit.analyses.reuse.progress import PASS_STEPS, PASSES, Pass, n_parts, read_ranges
from litaudit.analyses.reuse.subcollection_tau import (
    DEFAULT_SEED as SUBCOLLECTION_SEED,
)
from litaudit.analyses.reuse.unjudged import MeasureShift, unjudged_shifts
from litaudit.analyses.reuse.verdict_settings import (
    VerdictSettings,
    collection_depth,
    verdict_depths,
)
from litaudit.analyses.reuse.wording import decision_sentence
from litaudit.errors import ParameterError
from litaudit.stats.holdout_intervals import INCONCLUSIVE, LOSE, REUSABLE, Bootstrap
from litaudit.stats.reuse_sites import FEW_SITES

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "INCONCLUSIVE",
    "KIND",
    "LOSE",
    "NOT_ENOUGH",
    "NO_DEPTH",
    "NO_POOLS",
    "OUTCOMES",
    "REUSABLE",
    "SUBCOLLECTION_SEED",
    "Coverage",
    "DepthShift",
    "LOUDepth",
    "RAOSummary",
    "Reference",
    "SubcollectionSummary",
    "Verdict",
    "decision_sentence",
    "official_counts",
    "run_verdict",
]

KIND = "reuse-verdict"


@dataclass(frozen=True)
class Verdict:
    """Reusability verdict of a collection (from its run archive) or of a score matrix."""

    collection_id: str | None
    outcome: str  # one of OUTCOMES
    alpha: float  # each one-sided test's level; the intervals are 1 - 2 alpha
    margin_pct: float  # evaluation noise, % of the mean score
    measure: str
    depth: int | None  # the pool depth decided at (None: unknown, or scores given)
    depth_source: str | None  # where that depth comes from
    coverage: Coverage
    design: HoldoutDesign | None
    tests: tuple[DepthShift, ...]  # the shift at every depth computed
    decision: DepthShift | None  # the row that decides (None: no decision)
    agreement: AgreementTest | None  # descriptive
    lou: tuple[LOUDepth, ...]
    rao: RAOSummary | None
    subcollections: SubcollectionSummary | None
    references: tuple[Reference, ...]
    audits: tuple[tuple[str, int], ...]  # (kind, audit id) of the components stored
    notes: tuple[str, ...]
    topics: str | None = None  # the topics decided on (--topic-ids; None: all)
    unjudged: tuple[MeasureShift, ...] = ()  # inconclusive: bpref, condensed AP, Judged@10


# ------------------------------------------------------------------ archive verdict


def run_verdict(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    settings: VerdictSettings = VerdictSettings(),
    *,
    workers: int = 1,
    save: bool = True,
    progress: Callable[[int], None] | None = None,
    loaded=None,
) -> Audited[Verdict]:
    """The verdict of a stored run archive (see the module doc) as ``settings`` ask it,
    stored as an audit; an identical call (same parameters, seeds, archive and version)
    hands back the stored one. ``loaded``: the (collection id, coded archive) of
    ``collection`` when the caller has it already (as :func:`load_coded` returns it)."""

    depth, margin_pct, alpha = settings.depth, settings.margin_pct, settings.alpha
    seed, assignments, subcollections = settings.seed, settings.assignments, settings.subcollections
    split, permutations = settings.splits.split, settings.splits.permutations
    split_seed = settings.splits.seed
    if not 0 < alpha < 0.5:
        raise ParameterError(f"alpha must be in (0, 0.5), got {alpha}")
    if not margin_pct > 0:
        raise ParameterError(f"the margin must be a positive percentage, got {margin_pct}")

    if loaded is None and not subcollections:  # read by topic ranges (issue 24)
        loaded = load_ranged(con, collection)  # its ranges are read by _archive_verdict
    elif loaded is None:  # the sub-collection analysis needs the whole archive
        loaded = load_coded(con, collection, progress and Pass(progress, LOAD_STEPS))
    elif progress is not None and not isinstance(loaded[1], RangedArchive):
        progress(PASS_STEPS)  # loaded by the caller: its steps are done
    cid, coded = loaded
    decide_at, source = collection_depth(con, cid, depth)
    depths = verdict_depths(decide_at)
    params = _params(decide_at, source, depths, margin_pct, split, alpha, assignments)
    params.update(split_seed=split_seed, permutations=permutations, subcollections=subcollections)
    if settings.topics is not None:
        params["topics"] = settings.topics
    params.update(resamples=settings.resamples, boot_seed=settings.boot_seed)
    params["new_site_sites"] = defaults.REUSE_NEW_SITE_SITES
    if not split.startswith("prefix") and Path(split).is_file():
        # the mapping file is input too (as in run_subcollections)
        params["split_sha256"] = hashlib.sha256(Path(split).read_bytes()).hexdigest()
    key = AuditKey(
        kind=KIND,
        collection_id=cid,
        measure=None,
        params=params,
        method=METHOD,
        input_fingerprint=coded.fingerprint,
        seed=seed,
        trials=assignments,
    )
    return run_or_reuse(
        con,
        key,
        lambda: _archive_verdict(
            con,
            loaded,
            dataclasses.replace(settings, depth=decide_at),
            depth_source=source,
            workers=workers,
            save=save,
            progress=progress,
        ),
        save=save,
    )


def _params(depth, source, depths, margin_pct, split, alpha, assignments) -> dict:
    return {
        "depth": depth,
        "depth_source": source,
        "depths": list(depths),
        "margin_pct": margin_pct,
        "split": split,
        "alpha": alpha,
        "assignments": assignments,
        "flip_seed": defaults.AGREEMENT_FLIP_SEED,
    }


METHOD = (
    "hold-out shift over equally weighted site subsets, equivalence (TOST) to a margin; "
    "relative shift's interval by the studentized bootstrap over topics; a new site's by "
    "the wider of the pigeonhole bootstrap-t and Hall's skewness-corrected t"
)


def _outcome(rows: tuple[DepthShift, ...], depth: int | None) -> tuple[str, DepthShift | None]:
    """The outcome and the deciding row (at ``depth``; none when it is unknown)."""
    if not rows:
        return NOT_ENOUGH, None
    if depth is None:
        return NO_DEPTH, None
    row = next(r for r in rows if r.depth == depth)
    r = row.result
    if r.new_site_outcome is None or r.new_site_outcome == FEW_SITES:
        return r.outcome, row  # about these sites' runs (a new site's: too few sites)
    return r.new_site_outcome, row  # about a new site's runs


def _depth_notes(cid: str, depth: int | None, depths, shown: int) -> list[str]:
    if depth is not None:
        return []
    return [
        f"the pool depth of {cid} is not recorded: the shift is shown at depths "
        f"{', '.join(map(str, depths))} and nothing is decided; RAO, leave-out-uniques "
        f"and the agreement analysis are at depth {shown} (TREC-8's pool depth, "
        "Voorhees et al. 2014, Table 1)"
    ]


def _agreement(coded, m: int, shown: int, assignments: int, seed: int, alpha: float, tick, pools):
    """The paper's agreement analysis over random assignments (descriptive)."""
    if m < 3:
        tick(assignments)
        return None
    return archive_agreement(
        coded,
        AgreementSettings(assignments=assignments, seed=seed, alpha=alpha),
        depth=shown,
        progress=tick,
        pools=pools,
    )


def _archive_verdict(
    con: duckdb.DuckDBPyConnection,
    loaded,
    settings: VerdictSettings,
    *,
    depth_source: str | None,
    workers: int,
    save: bool,
    progress: Callable[[int], None] | None,
) -> Verdict:
    """The verdict of ``loaded`` at ``settings.depth`` (the depth decided at)."""
    depth, margin_pct, alpha = settings.depth, settings.margin_pct, settings.alpha
    seed, assignments, subcollections = settings.seed, settings.assignments, settings.subcollections
    tick = progress or (lambda n: None)
    cid, coded = loaded
    read_ranges(coded, tick)
    m = len(coded.participant_names)
    depths = verdict_depths(depth)
    shown = depth or defaults.REUSE_DEPTH  # the depth of what is shown beside
    notes = _depth_notes(cid, depth, depths, shown)
    audits: list[tuple[str, int | None]] = []
    cov = coverage(len(coded.tags), m, len(coded.topic_names), official_counts(con, cid))
    # descriptive: RAO at the shown depth, LOU at every depth in one pass; both at the
    # shown depth stored (an identical stored audit handed back instead)
    passes = [Pass(tick, n_parts(coded)) for _ in range(PASSES - 1)]
    rao_done = run_rao(con, cid, depth=shown, save=save, loaded=loaded, progress=passes[0])
    passes[0].finish()
    lou_at = lou_depths_of_archive(coded, sorted({*depths, shown}), progress=passes[1])
    passes[1].finish()
    lou_done = store_lou(con, lou_at[shown], coded.fingerprint, save=save)
    audits += [("reuse-rao", rao_done.audit_id), ("reuse-lou", lou_done.audit_id)]
    rao, lou_main = rao_done.result, lou_done.result
    lou = lou_depths(lou_at, lou_main, shown, depths)
    if lou_main.n_unknown_type:
        notes.append(f"{lou_main.n_unknown_type} run(s) of unknown type are left out of LOU")
    # the decision
    chosen = None
    if settings.topics is not None:
        chosen = topic_positions(coded.topic_names, settings.topics)
        notes.append(
            f"the shift is computed on topics {settings.topics} ({chosen.size} of "
            f"{len(coded.topic_names)}); the descriptive analyses on all topics"
        )
    design, rows, pools = pool_shifts(
        coded,
        depths,
        notes,
        passes[2],
        margin_pct=margin_pct,
        alpha=alpha,
        keep=shown,
        bootstrap=Bootstrap(resamples=settings.resamples, seed=settings.boot_seed),
        topics=chosen,
    )
    passes[2].finish()
    outcome, decision = _outcome(rows, depth)
    unjudged: tuple[MeasureShift, ...] = ()
    if outcome == INCONCLUSIVE and depth is not None:  # the next step's figures
        unjudged = unjudged_shifts(
            coded,
            depth,
            margin_pct=margin_pct,
            alpha=alpha,
            bootstrap=Bootstrap(resamples=settings.resamples, seed=settings.boot_seed),
            topics=chosen,
        )
    # descriptive: the paper's agreement analysis over random assignments
    agreement = _agreement(coded, m, shown, assignments, seed, alpha, tick, pools)
    sub = None
    if subcollections:
        sub, sub_id = subcollection_summary(
            con, cid, settings.splits, workers, save, loaded, alpha, notes, tick
        )
        if sub_id is not None:
            audits.append(("reuse-subcollections", sub_id))
    else:
        notes.append("sub-collection tau (descriptive) not computed: add --subcollections")
    return Verdict(
        collection_id=cid,
        outcome=outcome,
        alpha=alpha,
        margin_pct=margin_pct,
        measure="AP",
        depth=depth,
        depth_source=depth_source,
        coverage=cov,
        design=design,
        tests=rows,
        decision=decision,
        agreement=agreement,
        lou=tuple(lou),
        rao=RAOSummary(rao.depth, rao.mean_rao, rao.max_rao, rao.lower_bound),
        subcollections=sub,
        references=references(rows, tuple(lou), sub, agreement),
        audits=tuple((k, i) for k, i in audits if i is not None),
        notes=tuple(notes),
        topics=settings.topics,
        unjudged=unjudged,
    )
