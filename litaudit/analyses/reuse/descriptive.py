"""What the reusability verdict shows beside its deciding test, never as a gate
(:mod:`litaudit.analyses.reuse.verdict`).

The archive's coverage against the official run list; leave-out-uniques over the depths
tested and RAO (Voorhees, Lin, Efron, SIGIR 2014); the summary of sub-collection tau
(Sanderson, Turpin, Zhang, Scholer, CIKM 2012); and the papers' reference values beside
ours (:func:`references`), shown, never enforced. The paper's agreement-in-significance
analysis is :mod:`litaudit.analyses.reuse.holdout_agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from litaudit.analyses.reuse.holdout_result import AgreementTest
from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest, run_subcollections
from litaudit.errors import ParameterError
from litaudit.stats.agreement import adjust_pvalues
from litaudit.store.results_counts import official_count

if TYPE_CHECKING:
    import duckdb

SOURCE_2010 = "Carterette, Kanoulas, Pavlu, Fang, SIGIR 2010"
SOURCE_2014 = "Voorhees, Lin, Efron, SIGIR 2014"
SOURCE_2012 = "Sanderson, Turpin, Zhang, Scholer, CIKM 2012"


@dataclass(frozen=True)
class Coverage:
    """What the verdict used, against the official run list when the store has it."""

    runs: int
    participants: int  # the sites of the hold-out design
    topics: int
    official_runs: int | None  # runs NIST lists for the collection (seeded results)
    official_participants: int | None
    subset: bool | None  # the archive holds fewer runs than the official list
    note: str


@dataclass(frozen=True)
class LOUDepth:
    """Leave-out-uniques at one depth (Voorhees et al. 2014, Table 2 rows 1, 3-5)."""

    depth: int
    unique_fraction: float | None
    considered: int
    mean_abs_pct: float | None
    max_abs_pct: float | None
    above_noise: int


@dataclass(frozen=True)
class RAOSummary:
    depth: int
    mean_rao: float | None
    max_rao: float | None
    lower_bound: float


@dataclass(frozen=True)
class SubcollectionSummary:
    """Sanderson et al. 2012: descriptive (differences across sub-collections are common
    in collections taken as reusable)."""

    pairs: int
    significant: int  # p < alpha, uncorrected (as the paper counts)
    significant_holm: int  # after Holm within the family
    mean_tau: float | None
    permutations: int
    seed: int


@dataclass(frozen=True)
class Reference:
    """A number the papers give, beside ours: shown, never enforced."""

    quantity: str
    ours: str
    paper: str
    source: str


# ------------------------------------------------------------------ coverage


def official_counts(con: duckdb.DuckDBPyConnection, cid: str) -> tuple[int | None, int | None]:
    """Distinct official runs and participants the store lists for the collection."""
    try:
        runs, participants = official_count(con, cid)
    except Exception:  # noqa: BLE001 - a store without results has no official list
        return None, None
    return runs or None, participants or None


def coverage(runs: int, participants: int, topics: int, official) -> Coverage:
    o_runs, o_parts = official
    if o_runs is None:
        return Coverage(
            runs,
            participants,
            topics,
            None,
            None,
            None,
            "the official run list of this collection is not in the database",
        )
    subset = runs < o_runs
    note = (
        f"the archive holds {runs} of the {o_runs} official runs ({participants} of "
        f"{o_parts} participants): the verdict is about these runs' pools, not the "
        "collection's"
        if subset
        else f"the archive holds all {o_runs} official runs"
    )
    return Coverage(runs, participants, topics, o_runs, o_parts, subset, note)


# ------------------------------------------------------------------ references


def references(
    tests,
    lou: tuple[LOUDepth, ...],
    sub: SubcollectionSummary | None,
    agreement: AgreementTest | None,
) -> tuple[Reference, ...]:
    out = []
    for t in tests:
        out.append(
            Reference(
                "held-out runs' score shift" + (f", depth {t.depth}" if t.depth else ""),
                f"{t.result.shift_pct:+.2f}%",
                "differences within 1% are evaluation noise (Section 4, on TREC-8)",
                SOURCE_2014,
            )
        )
    for x in lou:
        out.append(
            Reference(
                f"LOU, depth {x.depth}: runs above 1% / considered; max |% change|",
                f"{x.above_noise} / {x.considered}; "
                + ("-" if x.max_abs_pct is None else f"{x.max_abs_pct:.2f}%"),
                "TREC-8: 0 runs above 1% ('highly reusable'); MB2013: 15 of 57, max about 8%",
                SOURCE_2014,
            )
        )
    if sub is not None:
        share = f"{sub.significant} of {sub.pairs}" if sub.pairs else "-"
        out.append(
            Reference(
                "sub-collection pairs with p < 0.05",
                share,
                "55 of 68 pairs (81%) over TRECs 2-8, TREC-8 included",
                SOURCE_2012,
            )
        )
    if agreement is not None:
        for p in agreement.parts:
            if p.status == "tested" and p.paper_p is not None:
                out.append(
                    Reference(
                        f"{p.analysis}: chi-square p (pairs as independent)",
                        f"median {p.paper_p.median:.3f} over {agreement.assignments} assignments",
                        "Tables 3-5: 0.58, 0.36 (MQ 2008 within, participant), 0.74 (Robust "
                        "2004 within), 0 (MQ 2009 between)",
                        SOURCE_2010,
                    )
                )
    return tuple(out)


def lou_depths(reports: dict, lou_main, depth: int, depths) -> list[LOUDepth]:
    """LOU at every depth of ``depths``: ``lou_main`` (stored) at ``depth``, ``reports``
    (:func:`~litaudit.analyses.reuse.lou.lou_depths_of_archive`) at the others."""
    reps = {**reports, depth: lou_main}
    return [
        LOUDepth(
            d,
            reps[d].unique_fraction,
            reps[d].n_considered,
            reps[d].mean_abs_pct,
            reps[d].max_abs_pct,
            reps[d].n_above,
        )
        for d in depths
    ]


def subcollection_summary(
    con: duckdb.DuckDBPyConnection,
    cid,
    test: SubcollectionTest,
    workers,
    save,
    loaded,
    alpha,
    notes,
    tick,
):
    """Sub-collection tau (its own audit, reused when an identical call stored it) as the
    verdict summarises it, with its audit id; (None, None) and a note when it cannot be
    made."""
    try:
        done = run_subcollections(
            con, cid, test, workers=workers, save=save, loaded=loaded, progress=tick
        )
    except ParameterError as exc:
        notes.append(f"sub-collections: {exc}")
        tick(test.permutations)
        return None, None
    rep, sub_id = done.result, done.audit_id
    if done.reused:
        tick(test.permutations)
    p = np.array([x.p_value for x in rep.pairs if x.p_value is not None])
    adj = adjust_pvalues(p, "holm") if p.size else p
    return SubcollectionSummary(
        len(rep.pairs),
        int((p < alpha).sum()),
        int((adj < alpha).sum()),
        rep.mean_tau,
        rep.permutations,
        rep.seed,
    ), sub_id
