"""The population of published results that an extreme-value audit reads (Carterette,
SIGIR 2015): the results of one collection and measure, narrowed by filters, with their
provenance, and a fingerprint of what was read (:mod:`litaudit.analyses.best` audits it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from litaudit.analyses.audits import fingerprint
from litaudit.curation import fields as F
from litaudit.defaults import MIN_N
from litaudit.errors import LitauditError, NotFound, ParameterError


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
    return [x.row for x in load_population(con, collection_id, measure, filters)]


@dataclass(frozen=True)
class Loaded:
    collection_id: str
    measure: str
    row: ResultRow


def load_population(con, collection_id: str | None, measure: str | None,
          filters: Filters) -> list[Loaded]:
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
    rows = [Loaded(r[-2], r[-1], ResultRow(*r[:-2], provenance=_provenance(r[1], r[16], r[14],
                                                                            r[13])))
            for r in con.execute(sql, args).fetchall()]
    rows.sort(key=lambda x: (-x.row.value, x.row.provenance, x.row.system, x.row.id))
    return rows


def results_fingerprint(rows: list[ResultRow]) -> str:
    """Content fingerprint of the input rows, independent of row order and database ids."""
    keys = sorted(json.dumps([r.source, r.bibkey or "", r.track or "", r.system, r.role,
                              r.n_topics, r.value_text, r.value, r.year, r.status, r.standard])
                  for r in rows)
    return fingerprint(keys)


@dataclass(frozen=True)
class Population:
    collection_id: str
    collection_name: str
    measure: str
    n_topics: int
    rows: list[ResultRow]
    n_other_topics: int


def too_few_message(where: str, n: int, min_n: int = MIN_N) -> str:
    """The one message every extreme-value audit gives for a population below ``min_n``."""
    return (f"{where}: {n} result(s) after the filters; an extreme-value audit needs at "
            f"least {min_n} (with fewer, the sample sd that sets the reference spread is "
            "too unstable)")


def check_min_n(min_n: int) -> int:
    """A user's --min-n: at least MIN_N (the floor every audit applies)."""
    if isinstance(min_n, bool) or not isinstance(min_n, int) or min_n < MIN_N:
        raise ParameterError(f"--min-n must be at least {MIN_N}, got {min_n!r}")
    return min_n


def population(con, collection: str, measure: str, filters: Filters,
               min_n: int = MIN_N) -> Population:
    from litaudit.store.refdata import resolve_collection, resolve_measure

    coll = resolve_collection(con, collection)
    meas = resolve_measure(con, measure)
    rows = load_results(con, coll.id, meas, filters)
    return select_population(coll.id, coll.name, coll.default_topics, meas, rows, filters, min_n)


def select_population(cid: str, cname: str, default_topics: int | None, meas: str,
            rows: list[ResultRow], filters: Filters, min_n: int) -> Population:
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
        raise ParameterError(too_few_message(where, len(rows), min_n))
    n_topics = rows[0].n_topics
    if any(r.n_topics != n_topics for r in rows):  # a topic-set name spanning counts
        raise ParameterError(f"{where}: topic set {filters.topics!r} has several topic counts")
    return Population(cid, cname, meas, n_topics, rows, n_other)


# ------------------------------------------------------------------ what the audit used
@dataclass(frozen=True)
class Tally:
    """A label and how many results of the population carry it."""

    label: str
    n: int


@dataclass(frozen=True)
class PopulationSummary:
    """The population an audit used, stated in its output.

    ``n`` results on ``n_topics`` topics; ``sources``: 'papers' and each official track
    ('TREC trec7/adhoc'); ``n_papers`` distinct papers; ``roles``, ``run_types`` ('-' when
    not recorded) and ``topic_sets`` with their counts, largest first; ``n_other_topics``
    results left out for another topic count; ``filters`` the filters as given.
    """

    n: int
    n_topics: int
    sources: tuple[Tally, ...]
    n_papers: int
    roles: tuple[Tally, ...]
    run_types: tuple[Tally, ...]
    topic_sets: tuple[Tally, ...]
    n_other_topics: int
    filters: Filters


def _tally(labels) -> tuple[Tally, ...]:
    counts: dict[str, int] = {}
    for x in labels:
        counts[x] = counts.get(x, 0) + 1
    return tuple(Tally(k, n) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize(pop: Population, filters: Filters) -> PopulationSummary:
    """What ``pop`` is made of (sources, roles, run types, topic sets, N of each)."""
    rows = pop.rows
    return PopulationSummary(
        n=len(rows), n_topics=pop.n_topics,
        sources=_tally("papers" if r.source == "paper" else f"TREC {r.track or r.source}"
                       for r in rows),
        n_papers=len({r.bibkey for r in rows if r.source == "paper"}),
        roles=_tally(r.role for r in rows), run_types=_tally(r.run_type or "-" for r in rows),
        topic_sets=_tally(r.topic_set or "-" for r in rows),
        n_other_topics=pop.n_other_topics, filters=filters)
