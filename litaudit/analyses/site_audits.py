"""The audits a static site of the store is built from (`litaudit site`), run and stored
before it is rendered.

Every population of `audit summary` (each collection, measure and source with at least
``defaults.MIN_N`` results: Carterette, SIGIR 2015, Tables 2-3) gets its `best` audit
(stored by :func:`litaudit.analyses.extreme.summary.run_summary`), its `history` audit
(:func:`litaudit.analyses.extreme.history.run_history`, Sec. 2 and Fig. 2; published
results only where the collection holds reproductions, as `audit history` and `report`
unless asked: :func:`~litaudit.analyses.extreme.history.published_history_filters`) and,
where the
store has shared scores, its `ranks` audit (the confidence set of the best and rank
intervals: :func:`litaudit.analyses.extreme.ranks.run_ranks`), with the
default parameters, so that a second build on the same store runs nothing and reuses the
stored audits (same input fingerprint, parameters and code). :func:`prepare_site` returns
their ids with the curated rows each page lists; :mod:`litaudit.render.site` then reads
only stored audits and these rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.analyses.audits import (
    AuditKey,
    StoredAudit,
    get_audits,
    run_or_reuse_many,
)
from litaudit.analyses.extreme.audit_common import population_key
from litaudit.analyses.extreme.best import DEFAULT_ALPHA, population_params, se_param
from litaudit.analyses.extreme.history import (
    HistoryReport,
    published_only,
    run_history,
)
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Loaded,
    Population,
    ResultRow,
    load_population,
    select_population,
)
from litaudit.analyses.extreme.ranks import run_ranks
from litaudit.analyses.extreme.ranks_input import Preread, dataset_parts
from litaudit.analyses.extreme.record_steps import Preloaded, StepSettings
from litaudit.analyses.extreme.summary import run_summary
from litaudit.defaults import MIN_N
from litaudit.errors import LitauditError, NotFound
from litaudit.runs.archive import count_runs
from litaudit.stats.extreme import Sampling
from litaudit.store.collections import names_and_default_topics
from litaudit.store.zero_shot import zero_shot_pairs

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class SitePopulation:
    """One population of the site: its stored `best` audit, its `history` audit (or why
    there is none), both read back from the store, and the rows the audits read, best
    first."""

    collection_id: str
    collection_name: str
    measure: str
    source: str  # paper | official
    best: StoredAudit
    history: StoredAudit | None
    history_error: str | None
    rows: tuple[ResultRow, ...]
    ranks: StoredAudit | None = None  # the `ranks` audit where the store has shared scores
    history_left_out: int = 0  # reproductions of ``rows`` the history leaves out


@dataclass(frozen=True, kw_only=True)
class SiteAudits:
    """What :func:`prepare_site` ran or found: the populations (in `audit summary` order),
    the groups too small to audit (collection, measure, source, N, why), every result of a
    paper (retracted and non-standard ones too: a paper's page lists them all) and the
    (system, collection id) pairs whose model is declared not trained on the collection."""

    populations: tuple[SitePopulation, ...]
    skipped: tuple[tuple[str, str, str, int, str], ...]
    paper_results: tuple[Loaded, ...]
    zero_shot: frozenset[tuple[str, str]]
    alpha: float
    p: float
    min_n: int


Grouped = dict[tuple[str, str, str], list[ResultRow]]


def _groups(
    con: duckdb.DuckDBPyConnection, loaded: list[Loaded] | None = None
) -> tuple[dict[str, tuple[str, int | None]], Grouped, dict[str, dict[str, list[ResultRow]]]]:
    """The collections (name, default topic count), the audited rows by (collection,
    measure, source), as `audit summary` groups them, and the same rows by measure and
    collection, best first (both sources: what
    :meth:`~litaudit.analyses.extreme.record_steps.Preloaded.part_scores` reads, one query
    of the store ordered totally, so a measure's rows keep its order); ``loaded``: that
    query's rows, when read already."""
    colls = names_and_default_topics(con)
    groups: Grouped = {}
    by_measure: dict[str, dict[str, list[ResultRow]]] = {}
    if loaded is None:
        loaded = load_population(con, None, None, Filters())
    for x in loaded:
        groups.setdefault((x.collection_id, x.measure, x.row.source), []).append(x.row)
        by_measure.setdefault(x.measure, {}).setdefault(x.collection_id, []).append(x.row)
    return colls, groups, by_measure


def _zero_shot(con: duckdb.DuckDBPyConnection) -> frozenset[tuple[str, str]]:
    return zero_shot_pairs(con)


def history_key(pop: Population, filters: Filters) -> AuditKey:
    """The key under which :func:`~litaudit.analyses.extreme.history.run_history` stores
    the default history of ``pop`` (running reference, by date when every result is
    dated, the default se): its stored audit is found without replaying the history."""
    by = "date" if all(r.date for r in pop.rows) else "year"
    params = population_params(
        pop, filters, alpha=DEFAULT_ALPHA, reference="running", by=by, se=se_param(None)
    )
    sampling = Sampling()
    return population_key("history", pop, params, sampling, pop.fingerprint)


def history_filters(filters: Filters, group: list[ResultRow]) -> Filters:
    """The filters of a history: published results only where ``group`` (every result
    ``filters`` keeps of its collection and measure: :func:`_groups`) holds reproductions,
    as :func:`~litaudit.analyses.extreme.history.published_history_filters` decides by
    asking the store (one query a population, which the site's rows already answer)."""
    if filters.roles or not any(r.role == "reproduction" for r in group):
        return filters
    return published_only(filters)


def published_history(
    pop: Population, filters: Filters, group: list[ResultRow]
) -> tuple[Filters, list[ResultRow]]:
    """The filters and rows of ``pop``'s history (:func:`history_filters` of its
    ``group``): published results only where the collection holds reproductions
    (``filters`` itself and every row where it holds none), as `audit history` replays it
    unless asked."""
    hf = history_filters(filters, group)
    if hf is filters or not hf.roles:
        return filters, list(pop.rows)
    return hf, [r for r in pop.rows if r.role in hf.roles]


def _history_population(
    pop: Population, rows: list[ResultRow], hf: Filters, colls: dict[str, tuple[str, int | None]]
) -> Population | None:
    """The population `run_history` replays under the history's filters ``hf``, from the
    rows of its group (``rows``: the population's results of every topic set, best first,
    as the store orders them), as :func:`~litaudit.analyses.extreme.population.population`
    would load it; None when it is too small (`run_history` then loads it and says why)."""
    kept = [r for r in rows if r.role in hf.roles] if hf.roles else rows
    try:
        return select_population(
            pop.collection_id,
            pop.collection_name,
            colls[pop.collection_id][1],
            pop.measure,
            kept,
            hf,
            MIN_N,
        )
    except LitauditError:
        return None


def _ranks(con: duckdb.DuckDBPyConnection, pops, tick) -> list[int | None]:
    """The `ranks` audit (default settings, stored) of each population whose collection
    has shared scores in the store (a benchmark's datasets, a run archive's per-topic
    scores; :mod:`litaudit.analyses.extreme.ranks`), else None."""

    tick(total=len(pops))
    out: list[int | None] = []
    preread = Preread.load(con)  # topic sets and results read once for every population
    has_runs: dict[str, bool] = {}
    for _s, pop, f in pops:
        tick(1)
        cid = pop.collection_id
        if cid not in has_runs:
            has_runs[cid] = count_runs(con, cid) > 0
        if not has_runs[cid] and dataset_parts(con, cid, f.topics, preread) is None:
            # neither a mean of datasets nor a run archive: no shared scores, as
            # run_ranks would find (store_input's NotFound) after resolving the collection
            out.append(None)
            continue
        try:
            done = run_ranks(
                con, measure=pop.measure, collection=pop.collection_id, filters=f, preread=preread
            )
            out.append(done.audit_id)
        except NotFound:  # no shared scores of this population
            out.append(None)
    return out


def prepare_site(
    con: duckdb.DuckDBPyConnection, *, progress: Callable[..., None] | None = None
) -> SiteAudits:
    """Run (or find) the `best`, `history` and (where the store has shared scores)
    `ranks` audits of every population and store them, then read them back;
    ``progress(total=n)`` is told the number of steps, then ``progress(1)`` per step."""

    tick = progress or (lambda *a, **k: None)
    loaded = load_population(con, None, None, Filters())  # read once for both
    summary = run_summary(con, loaded=loaded)
    tick(total=2 * len(summary.rows))
    tick(len(summary.rows))
    colls, groups, by_measure = _groups(con, loaded)
    pops = []
    for s in summary.rows:
        cid, meas = s.collection_id, s.measure
        f = dataclasses.replace(Filters(), source=s.source)
        rows = groups[(cid, meas, s.source)]
        pop = select_population(cid, colls[cid][0], colls[cid][1], meas, rows, f, summary.min_n)
        pops.append((s, pop, f))
    errors: dict[int, str] = {}
    left_out: list[int] = []
    keyed: list[tuple[int, AuditKey]] = []  # (population, its history's key)
    given: dict[int, tuple[Filters, Population | None]] = {}  # its filters and population
    for k, (s, pop, f) in enumerate(pops):
        group = groups[(pop.collection_id, pop.measure, s.source)]
        hf, rows = published_history(pop, f, group)
        left_out.append(len(pop.rows) - len(rows))
        if not rows:  # nothing but reproductions: no published history to replay
            errors[k] = "every result of the population is a reproduction"
            tick(1)
            continue
        try:
            hp = (
                pop
                if hf is f
                else select_population(
                    pop.collection_id,
                    pop.collection_name,
                    colls[pop.collection_id][1],
                    pop.measure,
                    rows,
                    hf,
                    summary.min_n,
                )
            )
        except LitauditError as exc:  # too few published results to replay
            errors[k] = str(exc)
            tick(1)
            continue
        keyed.append((k, history_key(hp, hf)))
        given[k] = (hf, _history_population(pop, group, hf, colls))

    # read once for every history replayed
    shared = Preloaded(NoiseLookups.load(con), by_measure=by_measure)

    def replay(j: int) -> HistoryReport | None:  # a history not stored yet
        tick(1)
        k = keyed[j][0]
        _s, pop, f = pops[k]
        hf, hp = given[k]
        try:
            return run_history(
                con,
                pop.collection_id,
                pop.measure,
                filters=f if hp is None else hf,
                save=False,
                steps=StepSettings(reproductions=False),
                given=hp,
                shared=shared,
            ).result
        except LitauditError as exc:
            errors[k] = str(exc)
            return None

    # the new ones stored in one insert
    stored = run_or_reuse_many(con, [key for _k, key in keyed], replay)
    tick(sum(1 for s in stored if s is not None and s[1]))  # the reused ones
    found = {k: s[0] for (k, _key), s in zip(keyed, stored, strict=True) if s is not None}
    hist: list[tuple[int | None, str | None]] = [
        (found.get(k), errors.get(k)) for k in range(len(pops))
    ]
    ranks = _ranks(con, pops, tick)
    ids = [s.audit_id for s, _p, _f in pops] + [h for h, _e in hist]
    if any(i is None for i in ids[: len(pops)]):  # run_summary stores every audit it reports
        raise LitauditError("audit summary did not store every best audit")
    read = get_audits(con, [i for i in [*ids, *ranks] if i is not None])
    out = tuple(
        SitePopulation(
            collection_id=pop.collection_id,
            collection_name=s.collection_name,
            measure=pop.measure,
            source=s.source,
            best=read[s.audit_id or 0],
            history=read[h] if h is not None else None,
            history_error=err,
            rows=tuple(pop.rows),
            ranks=read[r] if r is not None else None,
            history_left_out=n_out,
        )
        for (s, pop, _f), (h, err), r, n_out in zip(pops, hist, ranks, left_out, strict=True)
    )
    every = Filters(include_retracted=True, include_nonstandard=True, source="paper")
    return SiteAudits(
        populations=out,
        skipped=summary.skipped,
        paper_results=tuple(load_population(con, None, None, every)),
        zero_shot=_zero_shot(con),
        alpha=summary.alpha,
        p=summary.p,
        min_n=summary.min_n,
    )
