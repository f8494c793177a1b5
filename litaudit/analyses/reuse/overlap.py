"""Reusability from a run archive: run average overlap and leave-out-uniques (Voorhees,
Lin, Efron, SIGIR 2014, through ``litaudit.stats.overlap``), saved as audits of kinds
'reuse-rao' and 'reuse-lou', and the helpers the other reuse analyses share
(sub-collections: :mod:`litaudit.analyses.reuse.subcollection_tau`; the verdict:
:mod:`litaudit.analyses.reuse.verdict`). The ``*_of_archive`` functions take an in-memory
:class:`~litaudit.runs.model.Archive` (or its :class:`CodedArchive`) and do no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.reuse.archive_ranges import RangedArchive
from litaudit.analyses.reuse.coded_archive import (
    CodedArchive,
    TopicColumns,
    as_coded,
    evaluate_means,
    evaluate_topics,
    load_coded,
)
from litaudit.analyses.reuse.lou_ranges import lou_by_ranges, top_rows
from litaudit.errors import ParameterError
from litaudit.measures import parse_measure
from litaudit.stats import overlap

if TYPE_CHECKING:
    import duckdb

# ---------------------------------------------------------------------- thresholds, defaults

# Pool depth: TREC-8's pools were built from the top 100 of each run (Voorhees et al. 2014,
# Table 1, "K"). The robust03 archive does not record its depth: a parameter.
DEFAULT_DEPTH = defaults.REUSE_DEPTH
# RAO is plotted against R-precision, the primary measure of Microblog 2013 (Voorhees et
# al. 2014, Section 3, Figure 1); the LOU test compares MAP (Section 4, Figure 2).
RAO_MEASURE = defaults.RAO_MEASURE
LOU_MEASURE = defaults.LOU_MEASURE
# Leave-out-uniques: automatic runs with MAP >= 0.1; a change above 1% is beyond evaluation
# noise, and a collection where no such run changes by more than 1% "is regarded as highly
# reusable" (Voorhees et al. 2014, Section 4 and Table 2, on TREC-8).
LOU_MIN_MAP = overlap.LOU_MIN_MAP
LOU_MAX_PCT = overlap.LOU_NOISE_PCT
SOURCE_VOORHEES = "Voorhees, Lin, Efron, SIGIR 2014"


def _check_depth(depth: int) -> None:
    if depth < 1:
        raise ParameterError(f"depth must be at least 1, got {depth}")


def optional_float(x) -> float | None:
    """``x`` as a float, None when it is NaN (JSON has no NaN)."""
    x = float(x)
    return None if math.isnan(x) else x


_f = optional_float


# ----------------------------------------------------------------------------------- RAO


@dataclass(frozen=True)
class RunRAO:
    tag: str
    participant: str
    run_type: str | None
    rao: float | None
    topics: int  # topics averaged (with >= 1 retrieved document)
    effectiveness: float | None  # mean of the measure over topics (R-precision by default)


@dataclass(frozen=True, kw_only=True)
class RAOReport:
    """Run Average Overlap of every run (Voorhees et al. 2014, Section 3, Figure 1)."""

    collection_id: str
    depth: int
    measure: str
    n_runs: int
    n_participants: int
    lower_bound: float  # 1/P
    mean_rao: float | None
    min_rao: float | None
    max_rao: float | None
    runs: tuple[RunRAO, ...]


_top_rows = top_rows


def rao_of_archive(
    archive,
    *,
    depth: int = DEFAULT_DEPTH,
    measure: str = RAO_MEASURE,
    coded: CodedArchive | None = None,
    progress: Callable[[int], None] | None = None,
) -> RAOReport:
    """RAO of every run; ``archive`` may be a :class:`RangedArchive` (read a range of
    topics at a time; ``progress(1)`` after each range)."""
    _check_depth(depth)

    measure = str(parse_measure(measure))
    c = archive if isinstance(archive, RangedArchive) else as_coded(archive, coded)
    if isinstance(c, RangedArchive):
        res, eff = _rao_ranged(c, depth, measure, progress)
    else:
        res = overlap.run_average_overlap(*_top_rows(c, depth), c.participant_of_run)
        eff = evaluate_means(c, measure)
    rows = tuple(
        RunRAO(t, p, rt, _f(r), int(nt), _f(e))
        for t, p, rt, r, nt, e in zip(
            c.tags, c.participants, c.run_types, res.rao, res.n_topics, eff, strict=True
        )
    )
    finite = res.rao[np.isfinite(res.rao)]
    return RAOReport(
        collection_id=c.collection_id,
        depth=depth,
        measure=measure,
        n_runs=len(c.tags),
        n_participants=res.n_participants,
        lower_bound=res.lower_bound,
        mean_rao=_f(finite.mean()) if finite.size else None,
        min_rao=_f(finite.min()) if finite.size else None,
        max_rao=_f(finite.max()) if finite.size else None,
        runs=rows,
    )


def _rao_ranged(r: RangedArchive, depth: int, measure: str, progress):
    """RAO and the runs' mean ``measure`` of a ranged archive: per-topic overlaps and
    evaluations of each range, reduced over topics in the whole archive's order."""
    rt_run, rt_topic, vals = [], [], []
    eff = TopicColumns(len(r.tags), r.topic_names)
    for pos, c in r.parts(progress):
        run, topic, v = overlap.overlap_per_topic(*_top_rows(c, depth), c.participant_of_run)
        rt_run.append(run)
        rt_topic.append(pos[topic])
        vals.append(v)
        eff.add(evaluate_topics(c, measure), measure)
    run, topic = (
        np.concatenate([np.zeros(0, np.int64), *rt_run]),
        np.concatenate([np.zeros(0, np.int64), *rt_topic]),
    )
    order = np.lexsort((topic, run))  # (run, topic): the whole archive's order
    per_topic = np.concatenate([np.zeros(0), *vals])[order]
    return overlap.average_overlap(run[order], per_topic, r.participant_of_run), eff.mean(measure)


# ----------------------------------------------------------------------------------- LOU


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
        RunLOU(t, p, rt, _f(b), _f(a), _f(d), bool(k))
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
    _check_depth(depth)

    measure = str(parse_measure(measure))
    c = archive if isinstance(archive, RangedArchive) else as_coded(archive, coded)
    if isinstance(c, RangedArchive):
        uni, before, after = _lou_ranged(c, depth, measure, before, progress)
    else:
        rel_rows = np.flatnonzero((c.q_rel >= 1) & (c.q_topic >= 0))
        uni = overlap.unique_relevant(
            *_top_rows(c, depth),
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
        _check_depth(d)

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
            _f(uni.share_of_relevant[i]),
            _f(uni.share_of_uniques[i]),
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
        unique_fraction=_f(uni.unique_fraction),
        largest_share=_f(uni.largest_share) if uni.n_unique_total else None,
        largest_participant=(
            c.participant_names[uni.largest_participant] if uni.largest_participant >= 0 else None
        ),
        min_map=min_map,
        noise_pct=noise_pct,
        n_considered=lou.n_considered,
        n_unknown_type=sum(t is None for t in c.run_types),
        mean_abs_pct=_f(lou.mean_abs_pct),
        max_abs_pct=_f(lou.max_abs_pct),
        n_above=lou.n_above,
        participants=parts,
        runs=runs,
    )


def run_rao(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    *,
    depth: int = DEFAULT_DEPTH,
    measure: str = RAO_MEASURE,
    save: bool = True,
    loaded=None,
    progress: Callable[[int], None] | None = None,
) -> Audited[RAOReport]:
    """RAO of a stored archive, stored as an audit (or the stored audit of an identical call).
    ``loaded``: (collection id, coded or ranged archive); ``progress(1)`` after each range
    of a ranged archive."""

    cid, coded = loaded or load_coded(con, collection)
    key = AuditKey(
        kind="reuse-rao",
        collection_id=cid,
        measure=str(parse_measure(measure)),
        params={"depth": depth},
        method="exact",
        input_fingerprint=coded.fingerprint,
    )
    return run_or_reuse(
        con,
        key,
        lambda: rao_of_archive(coded, depth=depth, measure=measure, progress=progress),
        save=save,
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
