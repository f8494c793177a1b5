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
    BestParts,
    BestReport,
    best_parts,
    compute_best,
    population_params,
)
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Loaded,
    Population,
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
    con: duckdb.DuckDBPyConnection,
    audited: list[tuple[Population, Filters, BestParts]],
    model: AuditModel,
    lookups: NoiseLookups,
) -> list[int | None]:
    """The audit ids of the summary's populations: an identical stored audit's (all of
    them located in one query), else that of its report computed and stored (all the new
    ones in one insert)."""
    keys = [
        AuditKey(
            kind="best",
            collection_id=pop.collection_id,
            measure=pop.measure,
            params=population_params(pop, f, **model.params()),
            method="exact",
            input_fingerprint=parts.fingerprint,
        )
        for pop, f, parts in audited
    ]

    def report(i: int) -> BestReport:
        pop, f, parts = audited[i]
        return compute_best(con, pop, f, model, lookups=lookups, parts=parts)

    return [None if s is None else s[0] for s in run_or_reuse_many(con, keys, report)]


def run_summary(  # noqa: PLR0913 - ``loaded``: what the site reads once
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
    loaded: list[Loaded] | None = None,
) -> Summary:
    """`audit best` for every collection, measure and source in the store (exact method);
    ``filters`` (a date window, reporters ...) narrows every group. ``progress(total=n)``
    is told the number of groups, then ``progress(1)`` as each is audited. ``loaded``:
    the store's results under these filters, ``load_population(con, None, None,
    filters)``, when the caller has read them already (`litaudit site`)."""
    check_min_n(min_n)
    colls = names_and_default_topics(con)
    base = (
        filters
        if filters is not None
        else Filters(include_retracted=include_retracted, include_nonstandard=include_nonstandard)
    )
    groups: dict[tuple[str, str, str, str], list[ResultRow]] = {}
    for x in load_population(con, None, None, base) if loaded is None else loaded:
        groups.setdefault(
            (colls[x.collection_id][0], x.measure, x.row.source, x.collection_id), []
        ).append(x.row)
    out, skipped, audited, sources = [], [], [], []
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
        audited.append((pop, f, best_parts(con, pop, f, model, lookups=lookups)))
        sources.append(src)
    # a stored audit is not decoded (its report is larger than what a row prints): the
    # rows are made of the parts, its full report computed only to store a new audit
    ids = _summary_audit_ids(con, audited, model, lookups) if save else [None] * len(audited)
    for (pop, _f, parts), src, aid in zip(audited, sources, ids, strict=True):
        s, best = parts.stats, pop.rows[parts.best]
        out.append(
            SummaryRow(
                collection_id=pop.collection_id,
                collection_name=pop.collection_name,
                measure=pop.measure,
                source=src,
                N=s.reference.n_results,
                n_topics=pop.n_topics,
                mu=s.reference.mu,
                sd=s.reference.sd,
                best=s.interval.value,
                best_text=best.value_text,
                best_system=best.system,
                best_provenance=best.provenance,
                mu0=s.interval.mu0,
                lower=s.interval.lower,
                n_candidates=s.n_candidates,
                threshold=s.thresholds.max_threshold,
                n_above=s.thresholds.n_above,
                expected_max=s.mxvd.expected_max,
                population=parts.population,
                gap_sd=s.thresholds.gap_sd,
                audit_id=aid,
                se_source=parts.noise.source,
                se_kind=parts.noise.kind,
                se=s.reference.se,
                reliability=None if parts.shrinkage is None else parts.shrinkage.weight,
                false_by_inspection=parts.spread is not None and parts.spread.false_by_inspection,
            )
        )
    return Summary(tuple(out), tuple(skipped), min_n, alpha, p)
