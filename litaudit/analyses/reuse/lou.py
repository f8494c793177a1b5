"""Leave-out-uniques from a run archive (Voorhees, Lin, Efron, SIGIR 2014, Section 3,
through ``litaudit.stats.overlap``), saved as audits of kind 'reuse-lou': each
participant's unique relevant documents left out of the qrels, every run re-scored, and
the runs whose score or rank moves beyond the noise threshold named. The ``*_of_archive``
functions take an in-memory :class:`~litaudit.runs.model.Archive` (or its
:class:`~litaudit.analyses.reuse.coded_archive.CodedArchive`) and do no I/O; a large
archive is taken a range of topics at a time (:mod:`litaudit.analyses.reuse.lou_ranges`).
Run average overlap and the thresholds both share: :mod:`litaudit.analyses.reuse.overlap`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.reuse.archive_ranges import RangedArchive
from litaudit.analyses.reuse.coded_archive import (
    CodedArchive,
    as_coded,
    evaluate_means,
    load_coded,
)
from litaudit.analyses.reuse.lou_ranges import lou_by_ranges, top_rows
from litaudit.analyses.reuse.overlap import (
    DEFAULT_DEPTH,
    LOU_MAX_PCT,
    LOU_MEASURE,
    LOU_MIN_MAP,
    check_depth,
    optional_float,
)
from litaudit.measures import parse_measure
from litaudit.stats import overlap

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class ParticipantUniques:
    participant: str
    runs: int
    unique_relevant: int
    share_of_relevant: float | None
    share_of_uniques: float | None


@dataclass(frozen=True)
class RunLOU:
    tag: str
    participant: str
    run_type: str | None
    before: float | None  # mean of the measure with the full qrels
    after: float | None  # ... without the participant's unique relevant documents
    pct_change: float | None  # 100 * (after - before) / before
    considered: bool  # automatic, before >= min_map (Table 2 population)


@dataclass(frozen=True)
class LOUReport:
    """Unique relevant documents and the leave-out-uniques test (Voorhees et al. 2014)."""

    collection_id: str
    depth: int
    measure: str
    n_relevant: int
    n_retrieved_relevant: int  # relevant documents in some run's top K
    n_unique: int
    unique_fraction: float | None  # Table 2 row 1
    largest_share: float | None  # Table 2 row 2 (share of the unique relevant documents)
    largest_participant: str | None
    min_map: float
    noise_pct: float
    n_considered: int
    n_unknown_type: int  # runs without a run type (never considered)
    mean_abs_pct: float | None  # Table 2 row 3
    max_abs_pct: float | None  # Table 2 row 4
    n_above: int  # Table 2 row 5
    participants: tuple[ParticipantUniques, ...]
    runs: tuple[RunLOU, ...]


def _means_without_own_uniques(c: CodedArchive, measure: str, rel_rows, uni) -> np.ndarray:
    """Every run's mean ``measure`` with its participant's unique relevant documents
    left out of the qrels (NaN for runs of no participant)."""
    after = np.full(len(c.tags), np.nan)
    for p in range(len(c.participant_names)):
        runs_p = np.flatnonzero(c.participant_of_run == p)
        if not runs_p.size:
            continue
        drop = np.zeros(len(c.q_rel), dtype=bool)
        drop[rel_rows[uni.owner == p]] = True
        after[runs_p] = evaluate_means(c, measure, runs=runs_p, qrels_keep=~drop)
    return after


def _lou_ranged(r: RangedArchive, depth: int, measure: str, before, progress):
    """Unique relevant documents, and every run's mean ``measure`` before and after, of a
    ranged archive (:func:`litaudit.analyses.reuse.lou_ranges.lou_by_ranges` at one depth)."""
    return lou_by_ranges(r, (depth,), measure, before, progress)[depth]


def _lou_runs(c: CodedArchive | RangedArchive, lou) -> tuple[RunLOU, ...]:
    return tuple(
        RunLOU(t, p, rt, optional_float(b), optional_float(a), optional_float(d), bool(k))
        for t, p, rt, b, a, d, k in zip(
            c.tags,
            c.participants,
            c.run_types,
            lou.before,
            lou.after,
            lou.pct_change,
            lou.considered,
            strict=True,
        )
    )


def lou_of_archive(
    archive,
    *,
    depth: int = DEFAULT_DEPTH,
    measure: str = LOU_MEASURE,
    min_map: float = LOU_MIN_MAP,
    noise_pct: float = LOU_MAX_PCT,
    coded: CodedArchive | None = None,
    before: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> LOUReport:
    """``before``: every run's mean ``measure`` with the full qrels, when already known
    (it does not depend on the depth). ``archive`` may be a :class:`RangedArchive` (read a
    range of topics at a time; ``progress(1)`` after each range)."""
    check_depth(depth)

    measure = str(parse_measure(measure))
    c = archive if isinstance(archive, RangedArchive) else as_coded(archive, coded)
    if isinstance(c, RangedArchive):
        uni, before, after = _lou_ranged(c, depth, measure, before, progress)
    else:
        rel_rows = np.flatnonzero((c.q_rel >= 1) & (c.q_topic >= 0))
        uni = overlap.unique_relevant(
            *top_rows(c, depth),
            c.participant_of_run,
            c.q_topic[rel_rows],
            c.q_doc[rel_rows],
        )
        if before is None:
            before = evaluate_means(c, measure)
        after = _means_without_own_uniques(c, measure, rel_rows, uni)
    return _lou_report(c, depth, measure, min_map, noise_pct, uni, before, after)


def lou_depths_of_archive(
    archive,
    depths,
    *,
    measure: str = LOU_MEASURE,
    min_map: float = LOU_MIN_MAP,
    noise_pct: float = LOU_MAX_PCT,
    before: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[int, LOUReport]:
    """:func:`lou_of_archive` at every depth of ``depths``: a ranged archive is read once
    for all of them (``progress(1)`` after each range), a coded one depth by depth."""
    for d in depths:
        check_depth(d)

    measure = str(parse_measure(measure))
    kw: dict[str, Any] = dict(measure=measure, min_map=min_map, noise_pct=noise_pct)
    if not isinstance(archive, RangedArchive):
        c = as_coded(archive, None)
        if before is None:  # the same at every depth
            before = evaluate_means(c, measure)
        return {d: lou_of_archive(c, depth=d, before=before, **kw) for d in depths}
    got = lou_by_ranges(archive, tuple(depths), measure, before, progress)
    return {d: _lou_report(archive, d, measure, min_map, noise_pct, *got[d]) for d in depths}


def _lou_report(c, depth, measure, min_map, noise_pct, uni, before, after) -> LOUReport:
    automatic = np.array([t == "automatic" for t in c.run_types])
    lou = overlap.leave_out_uniques(before, after, automatic, min_map=min_map, noise_pct=noise_pct)
    n_runs_of = np.bincount(c.participant_of_run, minlength=len(c.participant_names))
    parts = tuple(
        ParticipantUniques(
            name,
            int(n_runs_of[i]),
            int(uni.n_unique[i]),
            optional_float(uni.share_of_relevant[i]),
            optional_float(uni.share_of_uniques[i]),
        )
        for i, name in enumerate(c.participant_names)
    )
    runs = _lou_runs(c, lou)
    return LOUReport(
        collection_id=c.collection_id,
        depth=depth,
        measure=measure,
        n_relevant=uni.n_relevant,
        n_retrieved_relevant=uni.n_retrieved_relevant,
        n_unique=uni.n_unique_total,
        unique_fraction=optional_float(uni.unique_fraction),
        largest_share=optional_float(uni.largest_share) if uni.n_unique_total else None,
        largest_participant=(
            c.participant_names[uni.largest_participant] if uni.largest_participant >= 0 else None
        ),
        min_map=min_map,
        noise_pct=noise_pct,
        n_considered=lou.n_considered,
        n_unknown_type=sum(t is None for t in c.run_types),
        mean_abs_pct=optional_float(lou.mean_abs_pct),
        max_abs_pct=optional_float(lou.max_abs_pct),
        n_above=lou.n_above,
        participants=parts,
        runs=runs,
    )


def run_lou(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    *,
    depth: int = DEFAULT_DEPTH,
    measure: str = LOU_MEASURE,
    min_map: float = LOU_MIN_MAP,
    noise_pct: float = LOU_MAX_PCT,
    save: bool = True,
    loaded=None,
    progress: Callable[[int], None] | None = None,
) -> Audited[LOUReport]:
    """Leave-out-uniques of a stored archive, stored as an audit (or reused, as run_rao)."""

    cid, coded = loaded or load_coded(con, collection)
    key = AuditKey(
        kind="reuse-lou",
        collection_id=cid,
        measure=str(parse_measure(measure)),
        params=_lou_params(depth, min_map, noise_pct),
        method="exact",
        input_fingerprint=coded.fingerprint,
    )
    return run_or_reuse(
        con,
        key,
        lambda: lou_of_archive(
            coded,
            depth=depth,
            measure=measure,
            min_map=min_map,
            noise_pct=noise_pct,
            progress=progress,
        ),
        save=save,
    )


def _lou_params(depth: int, min_map: float, noise_pct: float) -> dict:
    return {"depth": depth, "min_map": min_map, "noise_pct": noise_pct}


def store_lou(
    con: duckdb.DuckDBPyConnection, report: LOUReport, fingerprint: str, *, save: bool = True
) -> Audited[LOUReport]:
    """``report`` stored as :func:`run_lou` stores its own (the stored one of an identical
    call handed back instead): for a caller that computed it already (the verdict's
    pass over every depth)."""
    key = AuditKey(
        kind="reuse-lou",
        collection_id=report.collection_id,
        measure=report.measure,
        params=_lou_params(report.depth, report.min_map, report.noise_pct),
        method="exact",
        input_fingerprint=fingerprint,
    )
    return run_or_reuse(con, key, lambda: report, save=save)
