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
import json
from dataclasses import dataclass

from litaudit.analyses.audits import fingerprint, save_audit
from litaudit.curation import fields as F
from litaudit.errors import LitauditError, NotFound, ParameterError
from litaudit.stats import claim as claim_stats
from litaudit.stats import extreme, intervals, sequential

DEFAULT_ALPHA = 0.05   # Carterette 2015, Sec. 3.1: "5% of the distribution is greater"
DEFAULT_P = 0.2        # Sec. 3.1 / Table 3: "with probability 0.2", a 60% interval
DEFAULT_TRIALS = extreme.DEFAULT_TRIALS
DEFAULT_SEED = 2015
# Smallest population audited by `audit summary`: with fewer results the sample sd that
# sets the reference spread is too unstable to be worth a table row (the paper's Table 2
# populations are in the tens to hundreds).
SUMMARY_MIN_N = 5
SOURCE = "Carterette, SIGIR 2015"


# ------------------------------------------------------------------------------- filters
@dataclass(frozen=True)
class Filters:
    """Which results of a collection and measure enter an audit.

    ``source``: 'paper' | 'official' | None (both); ``roles``/``run_types``: allowed
    values (empty = all); ``years``: inclusive (from, to) or None; ``topics``: a topic
    count ('50') or topic-set name ('351-400'), or None for the default rule.
    """

    source: str | None = None
    roles: tuple[str, ...] = ()
    run_types: tuple[str, ...] = ()
    years: tuple[int, int] | None = None
    topics: str | None = None
    include_retracted: bool = False
    include_nonstandard: bool = False

    @classmethod
    def parse(cls, *, source: str | None = None, roles=(), run_types=(),
              years: str | None = None, topics: str | None = None,
              include_retracted: bool = False, include_nonstandard: bool = False) -> Filters:
        """Filters from user text ('papers' for 'paper', '2005-2010' for years ...)."""
        from litaudit.curation.results import parse_years

        src = None
        if source:
            src = source.strip().lower()
            src = {"papers": "paper", "officials": "official"}.get(src, src)
            if src not in F.SOURCES:
                raise LitauditError(f"--source: {source!r} is not one of papers, official")
        rs = tuple(sorted({_choice(r, F.ROLES, "--role") for r in roles or ()}))
        ts = tuple(sorted({_choice(t, F.RUN_TYPES, "--run-type") for t in run_types or ()}))
        return cls(src, rs, ts, parse_years(years), topics.strip() if topics else None,
                   bool(include_retracted), bool(include_nonstandard))


def _choice(value: str, choices, opt: str) -> str:
    v = value.strip().lower()
    if v not in choices:
        raise LitauditError(f"{opt}: {value!r} is not one of {', '.join(choices)}")
    return v


# --------------------------------------------------------------------------- result rows
@dataclass(frozen=True)
class ResultRow:
    """One published result with its provenance.

    ``provenance`` is a one-line citation: the paper's short citation (or the TREC track
    for official runs) and the location in the source.
    """

    id: int
    source: str
    system: str
    participant: str | None
    value: float
    value_text: str
    role: str
    run_type: str | None
    year: int
    n_topics: int
    topic_set: str | None
    standard: bool
    status: str
    location: str | None
    track: str | None
    bibkey: str | None
    citation: str | None
    title: str | None
    venue: str | None
    doi: str | None
    url: str | None
    provenance: str


_SQL = """
SELECT r.id, r.source, r.system, r.participant, r.value, r.value_text, r.role, r.run_type,
       r.year, r.n_topics, r.topic_set, r.standard, r.status, r.location, r.track,
       p.bibkey, p.citation, p.title, p.venue, p.doi, p.url, r.collection_id, r.measure
FROM results r LEFT JOIN papers p ON p.id = r.paper_id
WHERE TRUE
"""


def _provenance(source, citation, track, location) -> str:
    who = citation if source == "paper" and citation else f"TREC {track}" if track else source
    return f"{who}, {location}" if location else who


def load_results(con, collection_id: str, measure: str, filters: Filters) -> list[ResultRow]:
    """The filtered results of a collection and measure, best first (ties by provenance,
    system, id)."""
    return [x.row for x in _load(con, collection_id, measure, filters)]


@dataclass(frozen=True)
class _Loaded:
    collection_id: str
    measure: str
    row: ResultRow


def _load(con, collection_id: str | None, measure: str | None,
          filters: Filters) -> list[_Loaded]:
    """load_results with its collection and measure; None means all (one query)."""
    sql, args = _SQL, []
    if collection_id is not None:
        sql += " AND r.collection_id = ?"
        args.append(collection_id)
    if measure is not None:
        sql += " AND r.measure = ?"
        args.append(measure)
    if filters.source:
        sql += " AND r.source = ?"
        args.append(filters.source)
    if filters.roles:
        sql += f" AND r.role IN ({', '.join('?' * len(filters.roles))})"
        args.extend(filters.roles)
    if filters.run_types:
        sql += f" AND r.run_type IN ({', '.join('?' * len(filters.run_types))})"
        args.extend(filters.run_types)
    if filters.years:
        sql += " AND r.year BETWEEN ? AND ?"
        args.extend(filters.years)
    if not filters.include_retracted:
        sql += " AND r.status <> 'retracted'"
    if not filters.include_nonstandard:
        sql += " AND r.standard"
    rows = [_Loaded(r[-2], r[-1], ResultRow(*r[:-2], provenance=_provenance(r[1], r[16], r[14],
                                                                            r[13])))
            for r in con.execute(sql, args).fetchall()]
    rows.sort(key=lambda x: (-x.row.value, x.row.provenance, x.row.system, x.row.id))
    return rows


def _fingerprint(rows: list[ResultRow]) -> str:
    """Content fingerprint of the input rows, independent of row order and database ids."""
    keys = sorted(json.dumps([r.source, r.bibkey or "", r.track or "", r.system, r.role,
                              r.n_topics, r.value_text, r.value, r.year, r.status, r.standard])
                  for r in rows)
    return fingerprint(keys)


@dataclass(frozen=True)
class _Population:
    collection_id: str
    collection_name: str
    measure: str
    n_topics: int
    rows: list[ResultRow]
    n_other_topics: int


def _population(con, collection: str, measure: str, filters: Filters,
                min_n: int = 2) -> _Population:
    from litaudit.store.refdata import resolve_collection, resolve_measure

    coll = resolve_collection(con, collection)
    meas = resolve_measure(con, measure)
    rows = load_results(con, coll.id, meas, filters)
    return _select(coll.id, coll.name, coll.default_topics, meas, rows, filters, min_n)


def _select(cid: str, cname: str, default_topics: int | None, meas: str,
            rows: list[ResultRow], filters: Filters, min_n: int) -> _Population:
    """Apply the topic rule and the minimum N to the loaded rows (see the module doc)."""
    where = f"{cname} {meas}"
    if filters.topics:
        t = filters.topics
        keep = [r for r in rows if (str(r.n_topics) == t if t.isdigit() else r.topic_set == t)]
        if not keep and rows:
            have = sorted({f"{r.n_topics} ({r.topic_set})" for r in rows})
            raise NotFound(f"{where}: no results on topics {t!r}; they use {', '.join(have)}")
        n_other = len(rows) - len(keep)
        rows = keep
    else:
        counts: dict[int, int] = {}
        for r in rows:
            counts[r.n_topics] = counts.get(r.n_topics, 0) + 1
        n_other = 0
        if len(counts) > 1:
            if default_topics in counts:
                keep = [r for r in rows if r.n_topics == default_topics]
                n_other = len(rows) - len(keep)
                rows = keep
            else:
                have = ", ".join(f"{k} topics: {v}" for k, v in sorted(counts.items()))
                raise ParameterError(f"{where}: results use several topic counts ({have}); "
                                     "choose one with --topics")
    if len(rows) < min_n:
        raise ParameterError(f"{where}: {len(rows)} result(s) after the filters; the "
                             f"extreme-value audit needs at least {min_n}")
    n_topics = rows[0].n_topics
    if any(r.n_topics != n_topics for r in rows):  # a topic-set name spanning counts
        raise ParameterError(f"{where}: topic set {filters.topics!r} has several topic counts")
    return _Population(cid, cname, meas, n_topics, rows, n_other)


def _stored(con, kind: str, pop: _Population, rep, fp: str, params: dict, *, method: str,
            seed: int | None = None, trials: int | None = None):
    """Save ``rep`` as an audit of ``kind`` and return it with its ``audit_id``."""
    aid = save_audit(con, kind=kind, collection_id=pop.collection_id, measure=pop.measure,
                     params=params, method=method, input_fingerprint=fp, result=rep,
                     seed=seed, trials=trials)
    return dataclasses.replace(rep, audit_id=aid)


def _params(pop: _Population, filters: Filters, **kw) -> dict:
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
    pop = _population(con, collection, measure, filters, min_n)
    return _best(con, pop, filters, alpha, p, method, trials, seed, save)


def _best(con, pop: _Population, filters: Filters, alpha: float, p: float, method: str,
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
    fp = _fingerprint(rows)
    rep = BestReport(pop.collection_id, pop.collection_name, pop.measure, filters.source,
                     filters, pop.n_topics, pop.n_other_topics, st, rows[st.candidates[0]],
                     cands, fp, SOURCE)
    if save:
        rep = _stored(con, "best", pop, rep, fp, _params(pop, filters, alpha=alpha, p=p,
                                                         method=method),
                      method=method, seed=seed, trials=trials)
    return rep


# ----------------------------------------------------------------------------- claim
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
    pop = _population(con, collection, measure, filters)
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
    fp = _fingerprint(rows)
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
    pop = _population(con, collection, measure, filters)
    rows = pop.rows
    h = sequential.replay([r.value for r in rows], [r.year for r in rows], pop.n_topics,
                          alpha=alpha, reference=reference)
    fp = _fingerprint(rows)
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
    for x in _load(con, None, None, base):
        groups.setdefault((colls[x.collection_id][0], x.measure, x.row.source, x.collection_id),
                          []).append(x.row)
    out, skipped = [], []
    for (cname, meas, src, cid), rows in sorted(groups.items()):
        f = dataclasses.replace(base, source=src)
        try:
            pop = _select(cid, cname, colls[cid][1], meas, rows, f, min_n)
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
