"""Extreme-value audits of published results on the store (Carterette, SIGIR 2015).

Reads the results of one collection and measure (with filters), runs
``litaudit.stats.extreme`` / ``litaudit.stats.sequential`` and saves each audit with
``litaudit.analyses.audits.save_audit`` under the kinds

* ``best``: Tables 2 and 3 of the paper for the population (:class:`BestReport`);
* ``claim``: a claimed value against the population (:class:`ClaimReport`);
* ``history``: the record replayed year by year (:class:`HistoryReport`).

Every report carries the rows' provenance (paper citation, bibkey, DOI, URL, or TREC
track; system, value as printed, location) so that a report can cite each candidate.
Retracted results are left out unless ``include_retracted``; results flagged
non-standard (``standard = false``) are left out unless ``include_nonstandard``. The
reference distribution needs one topic count: with mixed counts the collection's default
topic set is used (the others are counted in ``n_other_topics``), or ``topics`` chooses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from litaudit import defaults
from litaudit.analyses.audits import register_kind, store_or_reuse
from litaudit.analyses.population import (
    Filters,
    Population,
    ResultRow,
    load_population,
    population,
    results_fingerprint,
    select_population,
)
from litaudit.errors import NotFound, ParameterError
from litaudit.stats import claim as claim_stats
from litaudit.stats import extreme, intervals, sequential

# the defaults and where they come from: litaudit/defaults.py
DEFAULT_ALPHA = defaults.ALPHA
DEFAULT_P = defaults.P_INTERVAL
DEFAULT_TRIALS = defaults.MONTECARLO_TRIALS
DEFAULT_SEED = defaults.MONTECARLO_SEED
SUMMARY_MIN_N = defaults.MIN_N
SOURCE = "Carterette, SIGIR 2015"


def _stored(con, kind: str, pop: Population, rep, fp: str, params: dict, *, method: str,
            seed: int | None = None, trials: int | None = None):
    """Save ``rep`` as an audit of ``kind`` (or find the identical stored one) and return it
    with its ``audit_id``."""
    done = store_or_reuse(con, kind, collection_id=pop.collection_id, measure=pop.measure,
                          params=params, fingerprint=fp, result=rep, method=method,
                          seed=seed, trials=trials)
    return dataclasses.replace(rep, audit_id=done.audit_id)


def _params(pop: Population, filters: Filters, **kw) -> dict:
    return {"collection": pop.collection_id, "measure": pop.measure,
            "filters": dataclasses.asdict(filters), **kw}


# ------------------------------------------------------------------------------ best
@dataclass(frozen=True)
class Candidate:
    """A result that could be the best system (>= the interval's lower bound, Table 3).

    ``rank`` 1 = highest value; ``gap`` = best value minus this value.
    """

    rank: int
    gap: float
    result: ResultRow


@register_kind("best")
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
    left out because they use another topic count. ``fingerprint`` identifies the input
    rows; ``audit_id`` the stored audit (None when not saved).
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    stats: intervals.BestAudit
    best: ResultRow
    candidates: tuple[Candidate, ...]
    fingerprint: str
    citation: str
    audit_id: int | None = None


def run_best(con, collection: str, measure: str, *, filters: Filters = Filters(),
             alpha: float = DEFAULT_ALPHA, p: float = DEFAULT_P, method: str = "exact",
             trials: int | None = None, seed: int | None = None, save: bool = True,
             min_n: int = 2) -> BestReport:
    """Audit the best result of a collection and measure; store it unless ``save=False``."""
    pop = population(con, collection, measure, filters, min_n)
    return _best(con, pop, filters, alpha, p, method, trials, seed, save)


def _best(con, pop: Population, filters: Filters, alpha: float, p: float, method: str,
          trials: int | None, seed: int | None, save: bool) -> BestReport:
    rows = pop.rows
    if method == "montecarlo":
        trials = DEFAULT_TRIALS if trials is None else trials
        seed = DEFAULT_SEED if seed is None else seed
    else:
        trials = seed = None
    st = intervals.audit_best([r.value for r in rows], pop.n_topics, alpha=alpha, p=p,
                            method=method, trials=trials, seed=seed)
    best_value = st.interval.value
    cands = tuple(Candidate(k + 1, best_value - rows[i].value, rows[i])
                  for k, i in enumerate(st.candidates))
    fp = results_fingerprint(rows)
    rep = BestReport(pop.collection_id, pop.collection_name, pop.measure, filters.source,
                     filters, pop.n_topics, pop.n_other_topics, st, rows[st.candidates[0]],
                     cands, fp, SOURCE)
    if save:
        rep = _stored(con, "best", pop, rep, fp, _params(pop, filters, alpha=alpha, p=p,
                                                         method=method),
                      method=method, seed=seed, trials=trials)
    return rep


# ----------------------------------------------------------------------------- claim
@register_kind("claim")
@dataclass(frozen=True)
class ClaimReport:
    """`audit claim`: is a claimed value beyond chance against the current population?

    ``reference``: the population (N, mu, sd, se); ``claim``: the test (p-value of the
    value as the max of N+1 draws, beyond_chance, its mu0 and interval, N*);
    ``current_best`` and ``current_lower``: the population's best result and its
    candidate-set lower bound (Table 3, same p); ``in_candidate_set``: value >=
    current_lower; ``n_at_or_above``: published results at or above the value.
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    reference: extreme.Reference
    claim: claim_stats.ClaimTest
    current_best: ResultRow
    current_lower: float
    in_candidate_set: bool
    n_at_or_above: int
    fingerprint: str
    citation: str
    audit_id: int | None = None


def run_claim(con, collection: str, measure: str, value: float, *, n: int | None = None,
              hidden_multiplier: float = 1.0, filters: Filters = Filters(),
              alpha: float = DEFAULT_ALPHA, p: float = DEFAULT_P, method: str = "exact",
              trials: int | None = None, seed: int | None = None,
              save: bool = True) -> ClaimReport:
    """Test a claimed ``value``; ``n`` overrides the number of earlier experiments."""
    pop = population(con, collection, measure, filters)
    rows = pop.rows
    ref = extreme.reference([r.value for r in rows], pop.n_topics)
    if method == "montecarlo":
        trials = DEFAULT_TRIALS if trials is None else trials
        seed = DEFAULT_SEED if seed is None else seed
    else:
        trials = seed = None
    n_pub = ref.n_results if n is None else n
    ct = claim_stats.claim_test(value, ref.mu, ref.se, n_pub, alpha=alpha, p=p,
                            hidden_multiplier=hidden_multiplier, method=method,
                            trials=trials, seed=seed)
    cur = intervals.intrinsic_interval(ref.maximum, ref.se, ref.n_results, p=p)
    fp = results_fingerprint(rows)
    rep = ClaimReport(pop.collection_id, pop.collection_name, pop.measure, filters.source,
                      filters, pop.n_topics, pop.n_other_topics, ref, ct, rows[0], cur.lower,
                      bool(ct.value >= cur.lower), sum(r.value >= ct.value for r in rows), fp,
                      SOURCE)
    if save:
        rep = _stored(con, "claim", pop, rep, fp,
                      _params(pop, filters, value=value, n=n,
                              hidden_multiplier=hidden_multiplier, alpha=alpha, p=p,
                              method=method),
                      method=method, seed=seed, trials=trials)
    return rep


# ---------------------------------------------------------------------------- history
@register_kind("history")
@dataclass(frozen=True)
class HistoryReport:
    """`audit history`: the record replayed in year order (sequential testing).

    ``history.points``: per year N so far, record, expected max, alpha-threshold, p-value,
    beyond_chance (see ``stats.sequential.YearPoint``); ``records[i]`` is the result
    holding the record in ``history.points[i]``.
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    history: sequential.History
    records: tuple[ResultRow, ...]
    fingerprint: str
    citation: str
    audit_id: int | None = None


def run_history(con, collection: str, measure: str, *, filters: Filters = Filters(),
                alpha: float = DEFAULT_ALPHA, reference: str = "final",
                save: bool = True) -> HistoryReport:
    """Replay the results of a collection and measure by year; store unless ``save=False``."""
    pop = population(con, collection, measure, filters)
    rows = pop.rows
    h = sequential.replay([r.value for r in rows], [r.year for r in rows], pop.n_topics,
                          alpha=alpha, reference=reference)
    fp = results_fingerprint(rows)
    rep = HistoryReport(pop.collection_id, pop.collection_name, pop.measure, filters.source,
                        filters, pop.n_topics, pop.n_other_topics, h,
                        tuple(rows[pt.record_index] for pt in h.points), fp, SOURCE)
    if save:
        rep = _stored(con, "history", pop, rep, fp,
                      _params(pop, filters, alpha=alpha, reference=reference), method="exact")
    return rep


# ---------------------------------------------------------------------------- summary
@dataclass(frozen=True)
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
    audit_id: int | None


@dataclass(frozen=True)
class Summary:
    """`audit summary`: every group with at least ``min_n`` results, and those skipped."""

    rows: tuple[SummaryRow, ...]
    skipped: tuple[tuple[str, str, str, int, str], ...]  # collection, measure, source, N, why
    min_n: int
    alpha: float
    p: float


def run_summary(con, *, min_n: int = SUMMARY_MIN_N, alpha: float = DEFAULT_ALPHA,
                p: float = DEFAULT_P, include_retracted: bool = False,
                include_nonstandard: bool = False, save: bool = True) -> Summary:
    """`audit best` for every collection, measure and source in the store (exact method)."""
    if min_n < 2:
        raise ParameterError(f"--min-n must be at least 2, got {min_n}")
    colls = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT c.id, c.name, t.n_topics FROM collections c LEFT JOIN topic_sets t "
        "ON t.collection_id = c.id AND t.is_default").fetchall()}
    base = Filters(include_retracted=include_retracted, include_nonstandard=include_nonstandard)
    groups: dict[tuple[str, str, str, str], list[ResultRow]] = {}
    for x in load_population(con, None, None, base):
        groups.setdefault((colls[x.collection_id][0], x.measure, x.row.source, x.collection_id),
                          []).append(x.row)
    out, skipped = [], []
    for (cname, meas, src, cid), rows in sorted(groups.items()):
        f = dataclasses.replace(base, source=src)
        try:
            pop = select_population(cid, cname, colls[cid][1], meas, rows, f, min_n)
        except (ParameterError, NotFound) as exc:
            skipped.append((cname, meas, src, len(rows), str(exc)))
            continue
        rep = _best(con, pop, f, alpha, p, "exact", None, None, save)
        s = rep.stats
        out.append(SummaryRow(cid, cname, meas, src, s.reference.n_results, rep.n_topics,
                              s.reference.mu, s.reference.sd, s.interval.value,
                              rep.best.value_text, rep.best.system, rep.best.provenance,
                              s.interval.mu0, s.interval.lower, s.n_candidates,
                              s.thresholds.max_threshold, s.thresholds.n_above,
                              s.mxvd.expected_max, rep.audit_id))
    return Summary(tuple(out), tuple(skipped), min_n, alpha, p)
