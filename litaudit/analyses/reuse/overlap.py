"""Reusability from a run archive: run average overlap (Voorhees, Lin, Efron, SIGIR 2014,
through ``litaudit.stats.overlap``), saved as audits of kind 'reuse-rao', the thresholds
and defaults it shares with leave-out-uniques (:mod:`litaudit.analyses.reuse.lou`, kind
'reuse-lou'), and the helpers the other reuse analyses share
(sub-collections: :mod:`litaudit.analyses.reuse.subcollection_tau`; the verdict:
:mod:`litaudit.analyses.reuse.verdict`). The ``*_of_archive`` functions take an in-memory
:class:`~litaudit.runs.model.Archive` (or its :class:`CodedArchive`) and do no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
from litaudit.analyses.reuse.lou_ranges import top_rows
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


def check_depth(depth: int) -> None:
    """A pool depth of at least 1 (ParameterError otherwise)."""
    if depth < 1:
        raise ParameterError(f"depth must be at least 1, got {depth}")


def optional_float(x) -> float | None:
    """``x`` as a float, None when it is NaN (JSON has no NaN)."""
    x = float(x)
    return None if math.isnan(x) else x


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
    check_depth(depth)

    measure = str(parse_measure(measure))
    c = archive if isinstance(archive, RangedArchive) else as_coded(archive, coded)
    if isinstance(c, RangedArchive):
        res, eff = _rao_ranged(c, depth, measure, progress)
    else:
        res = overlap.run_average_overlap(*top_rows(c, depth), c.participant_of_run)
        eff = evaluate_means(c, measure)
    rows = tuple(
        RunRAO(t, p, rt, optional_float(r), int(nt), optional_float(e))
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
        mean_rao=optional_float(finite.mean()) if finite.size else None,
        min_rao=optional_float(finite.min()) if finite.size else None,
        max_rao=optional_float(finite.max()) if finite.size else None,
        runs=rows,
    )


def _rao_ranged(r: RangedArchive, depth: int, measure: str, progress):
    """RAO and the runs' mean ``measure`` of a ranged archive: per-topic overlaps and
    evaluations of each range, reduced over topics in the whole archive's order."""
    rt_run, rt_topic, vals = [], [], []
    eff = TopicColumns(len(r.tags), r.topic_names)
    for pos, c in r.parts(progress):
        run, topic, v = overlap.overlap_per_topic(*top_rows(c, depth), c.participant_of_run)
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
