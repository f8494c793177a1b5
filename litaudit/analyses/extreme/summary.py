"""`audit summary`: the `best` audit (Carterette, SIGIR 2015, Tables 2-3) of every
collection, measure and source in the store, with the groups too small to audit.

Each group's audit is the one :mod:`litaudit.analyses.extreme.best` computes (exact method); an
identical stored audit is reused and the new ones are stored in one insert.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.analyses.audits import AuditKey, run_or_reuse_many
from litaudit.analyses.extreme.best import (
    DEFAULT_ALPHA,
    DEFAULT_P,
    SUMMARY_MIN_N,
    AuditModel,
    compute_best,
    population_params,
)
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    ResultRow,
    check_min_n,
    load_population,
    select_population,
)
from litaudit.analyses.extreme.population_summary import PopulationSummary
from litaudit.errors import NotFound, ParameterError
from litaudit.store.collections import names_and_default_topics

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class SummaryRow:
    """One line of `audit summary`: a `best` audit of a collection, measure and source."""

    collection_id: str
    collection_name: str
    measure: str
    source: str
    N: int
    n_topics: int
    mu: float
    sd: float
    best: float
    best_text: str
    best_system: str
    best_provenance: str
    mu0: float
    lower: float
    n_candidates: int
    threshold: float
    n_above: int
    expected_max: float
    population: PopulationSummary
    gap_sd: float  # (threshold - mu) / sd, descriptive
    audit_id: int | None
    se_source: str = "model"  # the se of the group's reference model (analyses.extreme.noise)
    se_kind: str = "model"  # measured, bound, model or given
    se: float = float("nan")  # the se the audit used
    reliability: float | None = None  # B = tau^2 / (tau^2 + se^2) (None under the model)
    false_by_inspection: bool = False  # the spread is >= BY_INSPECTION_RATIO x se_max


@dataclass(frozen=True)
class Summary:
    """`audit summary`: every group with at least ``min_n`` results, and those skipped."""

    rows: tuple[SummaryRow, ...]
    skipped: tuple[tuple[str, str, str, int, str], ...]  # collection, measure, source, N, why
    min_n: int
    alpha: float
    p: float


def _summary_audit_ids(
    con: duckdb.DuckDBPyConnection, reps, model: AuditModel, save: bool
) -> list[int | None]:
    """The audit ids of the summary's reports (None each without ``save``)."""
    ids: list[int | None] = [None] * len(reps)
    if save:  # an identical stored audit is reused; the others go in one insert
        keys = [
            AuditKey(
                kind="best",
                collection_id=pop.collection_id,
                measure=pop.measure,
                params=population_params(pop, rep.filters, **model.params()),
                method="exact",
                input_fingerprint=rep.fingerprint,
            )
            for pop, _src, rep in reps
        ]
        stored = run_or_reuse_many(con, keys, lambda i: reps[i][2])
        ids = [None if s is None else s[0] for s in stored]
    return ids


def run_summary(
    con: duckdb.DuckDBPyConnection,
    *,
    min_n: int = SUMMARY_MIN_N,
    alpha: float = DEFAULT_ALPHA,
    p: float = DEFAULT_P,
    include_retracted: bool = False,
    include_nonstandard: bool = False,
    filters: Filters | None = None,
    save: bool = True,
    progress: Callable[..., None] | None = None,
) -> Summary:
    """`audit best` for every collection, measure and source in the store (exact method);
    ``filters`` (a date window, reporters ...) narrows every group. ``progress(total=n)``
    is told the number of groups, then ``progress(1)`` as each is audited."""
    check_min_n(min_n)
    colls = names_and_default_topics(con)
    base = (
        filters
        if filters is not None
        else Filters(include_retracted=include_retracted, include_nonstandard=include_nonstandard)
    )
    groups: dict[tuple[str, str, str, str], list[ResultRow]] = {}
    for x in load_population(con, None, None, base):
        groups.setdefault(
            (colls[x.collection_id][0], x.measure, x.row.source, x.collection_id), []
        ).append(x.row)
    out, skipped, reps = [], [], []
    model = AuditModel(alpha=alpha, p=p)
    tick = progress or (lambda *a, **k: None)
    tick(total=len(groups))
    lookups = NoiseLookups.load(con)  # once, not once a population
    for (cname, meas, src, cid), rows in sorted(groups.items()):
        tick(1)
        f = dataclasses.replace(base, source=src)
        try:
            pop = select_population(cid, cname, colls[cid][1], meas, rows, f, min_n)
        except (ParameterError, NotFound) as exc:
            skipped.append((cname, meas, src, len(rows), str(exc)))
            continue
        reps.append((pop, src, compute_best(con, pop, f, model, lookups=lookups)))
    ids = _summary_audit_ids(con, reps, model, save)
    for (_pop, src, rep), aid in zip(reps, ids, strict=True):
        s = rep.stats
        out.append(
            SummaryRow(
                collection_id=rep.collection_id,
                collection_name=rep.collection_name,
                measure=rep.measure,
                source=src,
                N=s.reference.n_results,
                n_topics=rep.n_topics,
                mu=s.reference.mu,
                sd=s.reference.sd,
                best=s.interval.value,
                best_text=rep.best.value_text,
                best_system=rep.best.system,
                best_provenance=rep.best.provenance,
                mu0=s.interval.mu0,
                lower=s.interval.lower,
                n_candidates=s.n_candidates,
                threshold=s.thresholds.max_threshold,
                n_above=s.thresholds.n_above,
                expected_max=s.mxvd.expected_max,
                population=rep.population,
                gap_sd=s.thresholds.gap_sd,
                audit_id=aid,
                se_source=rep.noise.source if rep.noise is not None else "model",
                se_kind=rep.noise.kind if rep.noise is not None else "model",
                se=s.reference.se,
                reliability=None if rep.shrinkage is None else rep.shrinkage.weight,
                false_by_inspection=rep.spread is not None and rep.spread.false_by_inspection,
            )
        )
    return Summary(tuple(out), tuple(skipped), min_n, alpha, p)
