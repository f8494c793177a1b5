"""`audit history`: the record of a collection and measure replayed over time, each step
against the extreme-value reference of the results so far (Carterette, SIGIR 2015, Sec. 2
and Fig. 2; :func:`litaudit.stats.sequential.replay`). The population, the standard error
and the stored audit are those of :mod:`litaudit.analyses.extreme.best`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.audits import Audited, run_or_reuse
from litaudit.analyses.extreme.audit_common import population_key
from litaudit.analyses.extreme.best import (
    DEFAULT_ALPHA,
    SOURCE,
    population_fields,
    population_noise,
    population_params,
    se_param,
    spread_of,
)
from litaudit.analyses.extreme.noise import NoiseChoice
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Population,
    ResultRow,
    population,
)
from litaudit.analyses.extreme.population_summary import PopulationSummary
from litaudit.analyses.extreme.record_steps import (
    Preloaded,
    RecordSteps,
    StepSettings,
    record_steps,
)
from litaudit.curation.fields import ROLES
from litaudit.errors import ParameterError
from litaudit.stats import sequential
from litaudit.stats.extreme import Sampling
from litaudit.stats.noise import SpreadCheck
from litaudit.store.results import holds_any

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class HistoryReport:
    """`audit history`: the record replayed over time (sequential testing, Carterette 2015
    Sec. 2 and Fig. 2).

    ``history.points``: per step (a year, or a date when every result is dated: ``by``)
    N so far, record, expected max, alpha-threshold, p-value, beyond_chance (see
    ``stats.sequential.YearPoint``; p-values floored at ``defaults.P_FLOOR``);
    ``records[i]`` is the result holding the record in ``history.points[i]``.
    ``population`` states what the audit used; ``noise`` the standard error of the
    reference model and its source (for a running reference the model's se of each step
    is that step's sd / sqrt(n); a measured, bound or given se is the same at every step);
    ``spread`` whether the null of equally good systems is false by inspection for all the
    results (None under the model's se).
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    population: PopulationSummary
    history: sequential.History
    records: tuple[ResultRow, ...]
    fingerprint: str
    citation: str
    by: str = "year"
    noise: NoiseChoice | None = None  # (None: stored before issue 19)
    record_steps: RecordSteps | None = None  # (None: stored before issue 34)
    spread: SpreadCheck | None = None  # (None: stored before issue 30, or the model's se)


HISTORY_STEPS = ("auto", "date", "year")


def _steps(rows: list[ResultRow], by: str) -> tuple[list[int], list[str]] | None:
    """(times, labels) of a replay by date (date ordinals and ISO dates), or None for a
    replay by year."""

    if by != "date":
        return None
    days = [dt.date.fromisoformat(str(r.date)[:10]) for r in rows]
    return [d.toordinal() for d in days], [d.isoformat() for d in days]


def run_history(  # noqa: PLR0913 - `given`: the site passes its rows through
    con: duckdb.DuckDBPyConnection,
    collection: str,
    measure: str,
    *,
    filters: Filters = Filters(),
    alpha: float = DEFAULT_ALPHA,
    reference: str = "running",
    se: str | float | None = None,
    save: bool = True,
    steps: StepSettings = StepSettings(),
    given: Population | None = None,
    shared: Preloaded | None = None,
) -> Audited[HistoryReport]:
    """Replay the results of a collection and measure over time, ``steps.by`` date or
    year; ``auto``: by date when every result carries one, else by year. ``reference``:
    'running' (the results so far: no later result is used) or 'final' (all results: a
    look-ahead). ``se``: see :mod:`litaudit.analyses.extreme.noise`. Each record step is
    tested against the record it replaced (:mod:`~litaudit.analyses.extreme.record_steps`,
    ``steps``: its alpha is ``alpha``; its online rule and sign patterns).
    ``steps.reproductions=False``: published results only where the collection holds
    reproductions (:func:`published_only`; `audit history` and `report` unless asked).
    Stored unless ``save=False``. ``given``: the population of ``filters`` (the published
    ones already, as :func:`published_history_filters` gives them), as :func:`population`
    would load it, when the caller holds its rows (`litaudit site`): neither is read
    again; ``shared``: the lookups many histories read once
    (:class:`~litaudit.analyses.extreme.record_steps.Preloaded`)."""
    if not steps.reproductions and given is None:
        filters = published_history_filters(con, collection, filters, measure)
    by = steps.by
    if by not in HISTORY_STEPS:
        raise ParameterError(f"--by: {by!r} is not one of {', '.join(HISTORY_STEPS)}")
    pop = given if given is not None else population(con, collection, measure, filters)
    rows = pop.rows
    undated = sum(1 for r in rows if not r.date)
    if by == "date" and undated:
        raise ParameterError(
            f"{pop.collection_name} {pop.measure}: {undated} of {len(rows)} "
            "results have no date; replay by year, or narrow the population"
        )
    if by == "auto":
        by = "year" if undated else "date"
    fp = pop.fingerprint
    st = dataclasses.replace(steps, alpha=alpha)

    def compute() -> HistoryReport:
        # read once for the se and the record steps' pairing
        lookups = NoiseLookups.load(con) if shared is None else shared.lookups
        noise = population_noise(con, pop, se, alpha, lookups)
        h = sequential.replay(
            [r.value for r in rows],
            [r.year for r in rows],
            pop.n_topics,
            alpha=alpha,
            reference=reference,
            steps=_steps(rows, by),
            p_floor=defaults.P_FLOOR,
            se=None if noise.source == "model" else noise.se,
            n_model=noise.n_model,
        )
        holders = tuple(rows[pt.record_index] for pt in h.points)
        return HistoryReport(
            **population_fields(pop, filters),
            history=h,
            records=holders,
            fingerprint=fp,
            citation=SOURCE,
            by=by,
            noise=noise,
            record_steps=record_steps(con, pop, h, holders, noise, st, shared, lookups),
            spread=spread_of(noise, [r.value for r in rows]),
        )

    if not save:
        return Audited(compute(), None)
    params = population_params(
        pop, filters, alpha=alpha, reference=reference, by=by, se=se_param(se), **st.params()
    )
    # the key before the audit: an identical call's stored audit is found uncomputed
    return run_or_reuse(con, population_key("history", pop, params, Sampling(), fp), compute)


def published_history_filters(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    filters: Filters,
    measure: str | None = None,
) -> Filters:
    """``filters`` without the reproductions where the results they keep of ``collection``
    (and ``measure``) hold any; else as given, so a history without reproductions (a
    collection without them, or a track, paper or window without them) keeps its stored
    audit and its caption says nothing of reproductions left out."""

    if filters.roles:
        return filters
    probe = dataclasses.replace(filters, roles=("reproduction",))
    if not holds_any(con, probe.resolved(con, collection, measure)):
        return filters
    return published_only(filters)


def published_only(filters: Filters) -> Filters:
    """The history's filters: published results only, reproductions left out unless roles
    are asked for. A reproduction re-runs a model published earlier: Pyserini's are dated
    by the commit that added each value (2021-2026), so a record line through them would
    show a re-run of a 2019 system as a 2025 result (issue 32)."""

    if filters.roles:
        return filters
    return dataclasses.replace(filters, roles=tuple(r for r in ROLES if r != "reproduction"))
