"""Extreme-value audits of published results on the store (Carterette, SIGIR 2015).

Reads the results of one collection and measure (with filters), runs
``litaudit.stats.extreme`` / ``litaudit.stats.sequential`` and saves each audit with
``litaudit.analyses.audits.save_audit`` under the kinds

* ``best``: Tables 2 and 3 of the paper for the population (:class:`BestReport`);
* ``claim``: a claimed value against the population (:class:`ClaimReport`);
* ``history``: the record replayed year by year (:class:`HistoryReport`).

`audit summary` (every collection, measure and source at once) is in
:mod:`litaudit.analyses.summary`.

Every report states the population it used (:class:`PopulationSummary`: sources, roles,
run types, topic sets, N of each) and the standard error its reference model used, with
where it comes from (:mod:`litaudit.analyses.noise`: the model's sd / sqrt(n), one
measured from stored per-topic scores, or one given); p-values are floored at
``defaults.P_FLOOR``. Every
report carries the rows' provenance (paper citation, bibkey, DOI, URL, or TREC
track; system, value as printed, location) so that a report can cite each candidate.
Retracted results are left out unless ``include_retracted``; results flagged
non-standard (``standard = false``) are left out unless ``include_nonstandard``. The
reference distribution needs one topic count: with mixed counts the collection's default
topic set is used (the others are counted in ``n_other_topics``), or ``topics`` chooses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

from litaudit import defaults
from litaudit.analyses import wording
from litaudit.analyses.audits import Audited, store_or_reuse
from litaudit.analyses.noise import NoiseChoice, RobustCheck, choose_se
from litaudit.analyses.population import (
    Filters,
    Population,
    PopulationSummary,
    ResultRow,
    population,
    results_fingerprint,
    summarize,
)
from litaudit.errors import NotFound, ParameterError
from litaudit.stats import claim as claim_stats
from litaudit.stats import intervals, sequential
from litaudit.stats.noise import Shrinkage, shrink

# the defaults and where they come from: litaudit/defaults.py
DEFAULT_ALPHA = defaults.ALPHA
DEFAULT_P = defaults.P_INTERVAL
DEFAULT_TRIALS = defaults.MONTECARLO_TRIALS
DEFAULT_SEED = defaults.MONTECARLO_SEED
SUMMARY_MIN_N = defaults.MIN_N
SOURCE = "Carterette, SIGIR 2015"
R = TypeVar("R")


def _stored(
    con,
    kind: str,
    pop: Population,
    rep: R,
    fp: str,
    params: dict,
    *,
    method: str,
    seed: int | None = None,
    trials: int | None = None,
) -> Audited[R]:
    """Save ``rep`` as an audit of ``kind`` (or find the identical stored one)."""
    return store_or_reuse(
        con,
        kind,
        collection_id=pop.collection_id,
        measure=pop.measure,
        params=params,
        fingerprint=fp,
        result=rep,
        method=method,
        seed=seed,
        trials=trials,
    )


def filter_params(filters: Filters) -> dict:
    """The filters as stored with an audit (the collection and measure are stored beside)."""
    return {
        k: v
        for k, v in dataclasses.asdict(filters).items()
        if k not in ("collection_id", "measure")
    }


def _params(pop: Population, filters: Filters, **kw) -> dict:
    return {
        "collection": pop.collection_id,
        "measure": pop.measure,
        "filters": filter_params(filters),
        **kw,
    }


# ------------------------------------------------------------------------------ best
@dataclass(frozen=True)
class Candidate:
    """A result that could be the best system (>= the interval's lower bound, Table 3).

    ``rank`` 1 = highest value; ``gap`` = best value minus this value.
    """

    rank: int
    gap: float
    result: ResultRow


@dataclass(frozen=True)
class BestReport:
    """`audit best`: the paper's Tables 2 and 3 for one collection, measure and filter.

    ``stats`` holds every number (``stats.reference``: N, mu, sd, se, min, max;
    ``stats.mxvd``: expected max, sd of the max, Gumbel location/scale, lift;
    ``stats.thresholds``: alpha-thresholds of max and min, counts above/below/within,
    expected false positives; ``stats.interval``: mu0, lower, upper, coverage, drop,
    width; ``stats.values``: the N values sorted). ``best`` is the result whose interval
    is computed (the maximum unless a value was given); ``candidates`` every result at or
    above the lower bound, best first, with provenance. ``n_other_topics`` results were
    left out because they use another topic count. ``population`` states what the audit
    used; ``noise`` the standard error of the reference model and its source;
    ``shrinkage`` the random-effects estimate of the best's true mean (None under the
    model's se, where it would be a function of n alone). ``fingerprint`` identifies the
    input rows.
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    population: PopulationSummary
    stats: intervals.BestAudit
    best: ResultRow
    candidates: tuple[Candidate, ...]
    fingerprint: str
    citation: str
    noise: NoiseChoice | None = None  # (None: stored before issue 19)
    shrinkage: Shrinkage | None = None


def run_best(
    con,
    collection: str,
    measure: str,
    *,
    filters: Filters = Filters(),
    alpha: float = DEFAULT_ALPHA,
    p: float = DEFAULT_P,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
    se: str | float | None = None,
    save: bool = True,
) -> Audited[BestReport]:
    """Audit the best result of a collection and measure; store it unless ``save=False``.
    ``se``: 'model', 'interaction', a value, or None (the default rule of
    :mod:`litaudit.analyses.noise`)."""
    pop = population(con, collection, measure, filters)
    if method == "montecarlo":
        trials = DEFAULT_TRIALS if trials is None else trials
        seed = DEFAULT_SEED if seed is None else seed
    else:
        trials = seed = None
    rep = _best(con, pop, filters, alpha, p, method, trials, seed, se)
    if not save:
        return Audited(rep, None)
    return _stored(
        con,
        "best",
        pop,
        rep,
        rep.fingerprint,
        _params(pop, filters, alpha=alpha, p=p, method=method, se=_se_param(se)),
        method=method,
        seed=seed,
        trials=trials,
    )


def population_noise(con, pop: Population, se, alpha: float) -> NoiseChoice:
    """The standard error of ``pop``'s reference model (:func:`noise.choose_se`)."""
    sets: dict[str | None, int] = {}
    for r in pop.rows:
        sets[r.topic_set] = sets.get(r.topic_set, 0) + 1
    topic_set = max(sets, key=lambda k: sets[k])
    return choose_se(
        con,
        pop.collection_id,
        pop.measure,
        topic_set,
        pop.n_topics,
        [r.value for r in pop.rows],
        se,
        alpha=alpha,
    )


def _shrinkage(noise: NoiseChoice, mu: float, value: float) -> Shrinkage | None:
    """The random-effects estimate of ``value`` where the se is not the model's."""
    if noise.source == "model":
        return None
    return shrink(value, mu, noise.sd, noise.se)


def _se_param(se) -> str | float:
    return "default" if se is None else se


def _best(
    con,
    pop: Population,
    filters: Filters,
    alpha: float,
    p: float,
    method: str,
    trials: int | None,
    seed: int | None,
    se: str | float | None = None,
) -> BestReport:
    """The best audit of ``pop`` (trials and seed as the method needs them), not stored."""
    rows = pop.rows
    noise = population_noise(con, pop, se, alpha)
    st = intervals.audit_best(
        [r.value for r in rows],
        pop.n_topics,
        alpha=alpha,
        p=p,
        method=method,
        trials=trials,
        seed=seed,
        se=noise.se,
    )
    best_value = st.interval.value
    cands = tuple(
        Candidate(k + 1, best_value - rows[i].value, rows[i]) for k, i in enumerate(st.candidates)
    )
    fp = results_fingerprint(rows)
    return BestReport(
        pop.collection_id,
        pop.collection_name,
        pop.measure,
        filters.source,
        filters,
        pop.n_topics,
        pop.n_other_topics,
        summarize(pop, filters),
        st,
        rows[st.candidates[0]],
        cands,
        fp,
        SOURCE,
        noise,
        _shrinkage(noise, st.reference.mu, best_value),
    )


# ----------------------------------------------------------------------------- claim
def _robust_check(values, pop, noise: NoiseChoice, ca, kw: dict) -> RobustCheck | None:
    """The record check with the robust spread (only where the se is the model's)."""
    import math

    if noise.source != "model" or not noise.robust_sd > 0:
        return None
    se = noise.robust_sd / math.sqrt(noise.n_model)
    rob = claim_stats.audit_claim(values, pop.n_topics, se=se, **kw).record
    old = ca.record
    changes = (rob.standing, rob.claim_in_record_interval, rob.record_in_claim_interval) != (
        old.standing,
        old.claim_in_record_interval,
        old.record_in_claim_interval,
    )
    return RobustCheck(noise.robust_sd, se, rob, changes)


@dataclass(frozen=True)
class ClaimReport:
    """`audit claim`: a claim against the record, against chance, and its own interval.

    ``answers``: the audit in plain words, in this order: (a) against the record (with
    the robust-spread sensitivity line when it changes the standing), (b) against chance
    (or "uninformative"), (c) the claim's own interval, how much of the record is luck
    (where the se is measured), then the reference model with its standard error
    (:mod:`litaudit.analyses.wording`). ``stats`` holds every number
    (:class:`litaudit.stats.claim.ClaimAudit`: ``record``, ``chance``, ``interval``,
    ``reference``). ``subject``: the published result audited as one of the N (None for a
    new value, judged as one more draw); ``record_holder``: the best published result
    other than the claim. ``population`` states what the audit used; ``noise`` the se and
    its source; ``robust`` the record check again with the robust spread (model se only);
    ``shrinkage`` the record's random-effects estimate (measured or given se only).
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    population: PopulationSummary
    value: float
    subject: ResultRow | None
    answers: tuple[str, ...]
    record_holder: ResultRow
    stats: claim_stats.ClaimAudit
    fingerprint: str
    citation: str
    noise: NoiseChoice | None = None  # (None: stored before issue 19)
    robust: RobustCheck | None = None
    shrinkage: Shrinkage | None = None


def check_claimed_value(con, measure: str, value: float) -> float:
    """A claimed value within the measure's range (a percentage gets a suggestion)."""
    import math

    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"claimed {measure} must be a finite number, got {value!r}")
    row = con.execute(
        "SELECT min_value, max_value FROM measures WHERE name = ?", [measure]
    ).fetchone()
    lo, hi = (0.0, 1.0) if row is None else (float(row[0]), float(row[1]))
    span = f"{measure} lies between {lo:g} and {hi:g}"
    if value < lo:
        raise ParameterError(
            f"claimed {measure} {value:g} is "
            f"{'negative' if value < 0 else 'below the range'}; {span}"
        )
    if value > hi:
        if lo == 0.0 and hi == 1.0 and value <= 100:
            raise ParameterError(
                f"claimed {measure} {value:g} is not a fraction; did you "
                f"mean {value / 100:g}? ({span})"
            )
        raise ParameterError(f"claimed {measure} {value:g} is above the range; {span}")
    return value


def _subject_index(
    rows: list[ResultRow], where: str, result_id: int | None, system: str | None
) -> int:
    """The position in ``rows`` of the published result named by id or by system."""
    if result_id is not None:
        hit = [i for i, r in enumerate(rows) if r.id == result_id]
        if not hit:
            raise NotFound(
                f"result #{result_id} is not in the population of {where} (another "
                "collection or measure, retracted, non-standard, filtered out, or "
                "on another topic count)"
            )
        return hit[0]
    want = (system or "").strip().lower()
    hit = [i for i, r in enumerate(rows) if r.system.lower() == want]
    if not hit:
        raise NotFound(f"no result of system {system!r} in the population of {where}")
    if len(hit) > 1:
        ex = ", ".join(
            f"#{rows[i].id} {rows[i].value_text} ({wording.who(rows[i])})" for i in hit[:3]
        )
        raise ParameterError(
            f"system {system!r} names {len(hit)} results in the population "
            f"of {where}; choose one with --result ID (e.g. {ex})"
        )
    return hit[0]


def _check_one_subject(value, result_id, system) -> None:
    given = [x is not None for x in (value, result_id, system)]
    if sum(given) != 1:
        raise ParameterError(
            "give exactly one of a claimed value (--value), a result id "
            "(--result) or a system name (--system)"
        )


def _claim_params(pop, filters, value, subject, n, hidden_multiplier, alpha, p, method, se) -> dict:
    """The stored parameters of a claim audit."""
    return _params(
        pop,
        filters,
        value=value,
        result_id=None if subject is None else subject.id,
        n=n,
        hidden_multiplier=hidden_multiplier,
        alpha=alpha,
        p=p,
        method=method,
        se=_se_param(se),
    )


def run_claim(
    con,
    collection: str,
    measure: str,
    value: float | None = None,
    *,
    result_id: int | None = None,
    system: str | None = None,
    n: int | None = None,
    hidden_multiplier: float = 1.0,
    filters: Filters = Filters(),
    alpha: float = DEFAULT_ALPHA,
    p: float = DEFAULT_P,
    method: str = "exact",
    trials: int | None = None,
    seed: int | None = None,
    se: str | float | None = None,
    save: bool = True,
) -> Audited[ClaimReport]:
    """Audit a claim: a new ``value`` (one more draw) or a published result named by
    ``result_id`` or ``system`` (one of the N). ``n`` overrides the number of experiments
    besides the claim (default: N for a new value, N - 1 for a published one). ``se``:
    'model', 'interaction', a value, or None (:mod:`litaudit.analyses.noise`)."""
    _check_one_subject(value, result_id, system)
    pop = population(con, collection, measure, filters)
    rows = pop.rows
    where = f"{pop.collection_name} {pop.measure}"
    index = None
    if value is not None:
        value = check_claimed_value(con, pop.measure, value)
    else:
        index = _subject_index(rows, where, result_id, system)
    if method == "montecarlo":
        trials = DEFAULT_TRIALS if trials is None else trials
        seed = DEFAULT_SEED if seed is None else seed
    else:
        trials = seed = None
    noise = population_noise(con, pop, se, alpha)
    kw: dict[str, Any] = dict(value=value, index=index, n_other=n)
    kw.update(hidden_multiplier=hidden_multiplier, alpha=alpha, p=p, method=method)
    kw.update(trials=trials, seed=seed, p_floor=defaults.P_FLOOR, n_star_cap=defaults.N_STAR_CAP)
    values = [r.value for r in rows]
    ca = claim_stats.audit_claim(values, pop.n_topics, se=noise.se, **kw)
    robust = _robust_check(values, pop, noise, ca, kw)
    holder = next(r for i, r in enumerate(rows) if i != index)
    subject = None if index is None else rows[index]
    fp = results_fingerprint(rows)
    shrunk = _shrinkage(noise, ca.reference.mu, ca.record.record)
    rep = ClaimReport(
        pop.collection_id,
        pop.collection_name,
        pop.measure,
        filters.source,
        filters,
        pop.n_topics,
        pop.n_other_topics,
        summarize(pop, filters),
        ca.value,
        subject,
        wording.claim_answers(ca, holder, subject, noise, robust, shrunk),
        holder,
        ca,
        fp,
        SOURCE,
        noise,
        robust,
        shrunk,
    )
    if not save:
        return Audited(rep, None)
    params = _claim_params(pop, filters, value, subject, n, hidden_multiplier, alpha, p, method, se)
    return _stored(con, "claim", pop, rep, fp, params, method=method, seed=seed, trials=trials)


# ---------------------------------------------------------------------------- history
@dataclass(frozen=True)
class HistoryReport:
    """`audit history`: the record replayed over time (sequential testing, Carterette 2015
    Sec. 2 and Fig. 2).

    ``history.points``: per step (a year, or a date when every result is dated: ``by``)
    N so far, record, expected max, alpha-threshold, p-value, beyond_chance (see
    ``stats.sequential.YearPoint``; p-values floored at ``defaults.P_FLOOR``);
    ``records[i]`` is the result holding the record in ``history.points[i]``.
    ``population`` states what the audit used; ``noise`` the standard error of the
    reference model and its source (for a running reference the model's se of each step
    is that step's sd / sqrt(n); a measured or given se is the same at every step).
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


HISTORY_STEPS = ("auto", "date", "year")


def _steps(rows: list[ResultRow], by: str) -> tuple[list[int] | None, list[str] | None]:
    """(times, labels) of a replay by date (date ordinals and ISO dates), or (None, None)
    for a replay by year."""
    import datetime as dt

    if by != "date":
        return None, None
    days = [dt.date.fromisoformat(str(r.date)[:10]) for r in rows]
    return [d.toordinal() for d in days], [d.isoformat() for d in days]


def run_history(
    con,
    collection: str,
    measure: str,
    *,
    filters: Filters = Filters(),
    alpha: float = DEFAULT_ALPHA,
    reference: str = "running",
    by: str = "auto",
    se: str | float | None = None,
    save: bool = True,
) -> Audited[HistoryReport]:
    """Replay the results of a collection and measure over time, ``by`` date or year;
    ``auto``: by date when every result carries one, else by year. ``reference``:
    'running' (the results so far: no later result is used) or 'final' (all results: a
    look-ahead). ``se``: see :mod:`litaudit.analyses.noise`. Stored unless
    ``save=False``."""
    if by not in HISTORY_STEPS:
        raise ParameterError(f"--by: {by!r} is not one of {', '.join(HISTORY_STEPS)}")
    pop = population(con, collection, measure, filters)
    rows = pop.rows
    undated = sum(1 for r in rows if not r.date)
    if by == "date" and undated:
        raise ParameterError(
            f"{pop.collection_name} {pop.measure}: {undated} of {len(rows)} "
            "results have no date; replay by year, or narrow the population"
        )
    if by == "auto":
        by = "year" if undated else "date"
    times, labels = _steps(rows, by)
    noise = population_noise(con, pop, se, alpha)
    h = sequential.replay(
        [r.value for r in rows],
        [r.year for r in rows],
        pop.n_topics,
        alpha=alpha,
        reference=reference,
        times=times,
        labels=labels,
        p_floor=defaults.P_FLOOR,
        se=None if noise.source == "model" else noise.se,
        n_model=noise.n_model,
    )
    fp = results_fingerprint(rows)
    rep = HistoryReport(
        pop.collection_id,
        pop.collection_name,
        pop.measure,
        filters.source,
        filters,
        pop.n_topics,
        pop.n_other_topics,
        summarize(pop, filters),
        h,
        tuple(rows[pt.record_index] for pt in h.points),
        fp,
        SOURCE,
        by,
        noise,
    )
    if not save:
        return Audited(rep, None)
    return _stored(
        con,
        "history",
        pop,
        rep,
        fp,
        _params(pop, filters, alpha=alpha, reference=reference, by=by, se=_se_param(se)),
        method="exact",
    )
