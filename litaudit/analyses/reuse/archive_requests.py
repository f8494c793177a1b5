"""`reuse rao`, `reuse lou` and `reuse subcollections` asked once (issue 37 item 1): each
command's options as one frozen settings object and the one call that answers it on a
stored archive, its progress told in phases (reading the archive, then the audit's pass).
The statistics are those of :mod:`litaudit.analyses.reuse.overlap` (Voorhees, Lin, Efron,
SIGIR 2014) and :mod:`litaudit.analyses.reuse.subcollection_tau` (Sanderson et al., CIKM
2012); nothing is computed here.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from litaudit import defaults
from litaudit.analyses.audits import Audited
from litaudit.analyses.reuse.archive_ranges import load_ranged
from litaudit.analyses.reuse.coded_archive import LOAD_STEPS, load_coded
from litaudit.analyses.reuse.lou import LOUReport, run_lou
from litaudit.analyses.reuse.overlap import RAOReport, run_rao
from litaudit.analyses.reuse.subcollection_tau import (
    SubcollectionReport,
    SubcollectionTest,
    run_subcollections,
)
from litaudit.progress import Progress


@dataclass(frozen=True, kw_only=True)
class RaoRequest:
    """`reuse rao`: Run Average Overlap of every run at pool depth ``depth``."""

    collection: str
    depth: int = defaults.REUSE_DEPTH
    measure: str = defaults.RAO_MEASURE


@dataclass(frozen=True, kw_only=True)
class LouRequest:
    """`reuse lou`: unique relevant documents per participant and leave-out-uniques."""

    collection: str
    depth: int = defaults.REUSE_DEPTH
    measure: str = defaults.LOU_MEASURE
    min_map: float = defaults.LOU_MIN_MAP
    noise_pct: float = defaults.LOU_NOISE_PCT


@dataclass(frozen=True, kw_only=True)
class SubcollectionsRequest:
    """`reuse subcollections`: Kendall's tau between sub-collection rankings."""

    collection: str
    test: SubcollectionTest = SubcollectionTest()
    workers: int = 1


def _ranged(con: duckdb.DuckDBPyConnection, collection: str, what: str, progress):
    """The archive read by topic ranges, its load a phase of ``progress``, then the
    audit's pass over its ranges announced."""
    if progress is not None:
        progress.status(f"{what}: reading the archive", unit="ranges")
        progress(total=1)
    loaded = load_ranged(con, collection, progress=progress)
    if progress is not None:
        n_lines = f"{loaded[1].n_lines:,}"
        progress.status(f"{what} of {n_lines} ranked documents, by topic ranges", unit="ranges")
        progress(total=len(loaded[1].ranges))
    return loaded


def answer_rao(
    con: duckdb.DuckDBPyConnection, req: RaoRequest, progress: Progress | None = None
) -> Audited[RAOReport]:
    loaded = _ranged(con, req.collection, "RAO", progress)
    return run_rao(
        con, req.collection, depth=req.depth, measure=req.measure, loaded=loaded, progress=progress
    )


def answer_lou(
    con: duckdb.DuckDBPyConnection, req: LouRequest, progress: Progress | None = None
) -> Audited[LOUReport]:
    loaded = _ranged(con, req.collection, "LOU", progress)
    return run_lou(
        con,
        req.collection,
        depth=req.depth,
        measure=req.measure,
        min_map=req.min_map,
        noise_pct=req.noise_pct,
        loaded=loaded,
        progress=progress,
    )


def answer_subcollections(
    con: duckdb.DuckDBPyConnection, req: SubcollectionsRequest, progress: Progress | None = None
) -> Audited[SubcollectionReport]:

    def loaded():  # only when no identical audit is stored
        if progress is not None:
            progress.status("sub-collections: loading the archive")
            progress(total=LOAD_STEPS)
        out = load_coded(con, req.collection, progress)
        if progress is not None:
            progress.status(
                f"sub-collections of {len(out[1].run):,} ranked documents: random splits"
            )
            progress(total=req.test.permutations)
        return out

    return run_subcollections(
        con, req.collection, req.test, workers=req.workers, loaded=loaded, progress=progress
    )
