"""The population of published results that an extreme-value audit reads (Carterette,
SIGIR 2015): the results of one collection and measure, narrowed by filters, with their
provenance, and a fingerprint of what was read (:mod:`litaudit.analyses.best` audits it).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from litaudit.analyses.audits import fingerprint
from litaudit.curation.filters import Filters, where
from litaudit.errors import NotFound, ParameterError
from litaudit.stats.shape import Shape

__all__ = ["Filters", "ResultRow", "Loaded", "Population", "PopulationNote", "load_results",
           "load_population", "population", "select_population", "results_fingerprint",
           "track_label", "describe_population"]


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
    date: str | None = None
    reporter: str | None = None
    link: str | None = None
    code_url: str | None = None


# provenance as _provenance() writes it, computed in SQL so that the rows come sorted
_PROVENANCE = """
    CASE WHEN r.source = 'paper' AND p.citation IS NOT NULL THEN p.citation
         WHEN r.track IS NOT NULL AND regexp_matches(r.track, '^trec[0-9-]')
              THEN 'TREC ' || r.track
         ELSE coalesce(r.track, r.source) END
    || CASE WHEN r.location IS NOT NULL THEN ', ' || r.location ELSE '' END"""
_SQL = f"""
SELECT r.id, r.source, r.system, r.participant, r.value, r.value_text, r.role, r.run_type,
       r.year, r.n_topics, r.topic_set, r.standard, r.status, r.location, r.track,
       p.bibkey, p.citation, p.title, p.venue, p.doi, p.url, {_PROVENANCE} AS provenance,
       CAST(r.date AS VARCHAR), r.reporter, r.url, r.code_url, r.collection_id, r.measure
FROM results r LEFT JOIN papers p ON p.id = r.paper_id
"""
# best first; ties by provenance, system, id (byte order, as Python compares str)
_ORDER = " ORDER BY r.value DESC, provenance, r.system, r.id"


def track_label(track: str | None) -> str | None:
    """How a track is cited: TREC tracks as 'TREC trec7/adhoc', others (leaderboards,
    benchmarks: 'msmarco-passage/leaderboard/full-ranking', 'mteb/retrieval') as they are."""
    if not track:
        return None
    return f"TREC {track}" if re.match(r"trec[\d-]", track) else track


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
    cond, args = where(dataclasses.replace(filters, collection_id=collection_id,
                                           measure=measure))
    sql = _SQL + (f" WHERE {cond}" if cond else "") + _ORDER
    return [Loaded(r[26], r[27], ResultRow(*r[:26])) for r in con.execute(sql, args).fetchall()]


def results_fingerprint(rows: list[ResultRow]) -> str:
    """Content fingerprint of the input rows, independent of row order and database ids."""
    keys = sorted(f"{r.source}\x1f{r.bibkey or ''}\x1f{r.track or ''}\x1f{r.system}\x1f"
                  f"{r.role}\x1f{r.n_topics}\x1f{r.value_text}\x1f{r.value!r}\x1f{r.year}\x1f"
                  f"{r.status}\x1f{r.standard}\x1f{r.date or ''}\x1f{r.reporter or ''}"
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


def population(con, collection: str, measure: str, filters: Filters,
                min_n: int = 2) -> Population:
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
        raise ParameterError(f"{where}: {len(rows)} result(s) after the filters; the "
                             f"extreme-value audit needs at least {min_n}")
    n_topics = rows[0].n_topics
    if any(r.n_topics != n_topics for r in rows):  # a topic-set name spanning counts
        raise ParameterError(f"{where}: topic set {filters.topics!r} has several topic counts")
    return Population(cid, cname, meas, n_topics, rows, n_other)


# ------------------------------------------------------------------- how it was chosen
@dataclass(frozen=True)
class PopulationNote:
    """How an audit's population was chosen, and how far it is from the Normal model.

    ``text``: one line (N, collection, measure, topic count, filters, where the results
    come from, who reported them, the dates they span); ``by_origin``/``by_reporter``:
    (label, count) pairs; ``first_date``/``last_date``/``n_undated``: the date span;
    ``shape``: skewness and excess kurtosis; ``warning``: set when the values
    are far from a Normal distribution (litaudit.defaults NORMAL_FIT_*), else None.
    """

    text: str
    by_origin: tuple[tuple[str, int], ...]
    by_reporter: tuple[tuple[str, int], ...]
    first_date: str | None
    last_date: str | None
    n_undated: int
    shape: Shape
    warning: str | None


def _counts(labels) -> tuple[tuple[str, int], ...]:
    c: dict[str, int] = {}
    for x in labels:
        c[x] = c.get(x, 0) + 1
    return tuple(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def describe_population(pop: Population, filters: Filters) -> PopulationNote:
    """The population in words, with a warning when it is far from the Normal model."""
    from litaudit import defaults as D
    from litaudit.stats.shape import normal_shape

    rows = pop.rows
    origin = _counts("papers" if r.source == "paper" else (track_label(r.track) or r.source)
                     for r in rows)
    reporter = _counts(r.reporter or "" for r in rows)
    dates = sorted(r.date[:10] for r in rows if r.date)
    first, last = (dates[0], dates[-1]) if dates else (None, None)
    n_undated = len(rows) - len(dates)
    parts = [f"{len(rows)} results of {pop.collection_name} {pop.measure} on "
             f"{pop.n_topics} topics"]
    if pop.n_other_topics:
        parts.append(f"{pop.n_other_topics} on other topic counts left out")
    fdesc = filters.describe()
    parts.append(f"filters: {fdesc}" if fdesc else "no filters")
    parts.append("from " + ", ".join(f"{k} {n}" for k, n in origin))
    named = [f"{k} {n}" for k, n in reporter if k]
    unnamed = sum(n for k, n in reporter if not k)
    if named:
        parts.append("reported by " + ", ".join(named))
    if unnamed:
        parts.append(f"no reporter recorded for {unnamed}")
    if dates:
        span = f"dated {first} to {last}"
        parts.append(span + (f" ({n_undated} undated)" if n_undated else ""))
    shape = normal_shape([r.value for r in rows])
    far = []
    if shape.skewness is not None and abs(shape.skewness) > D.NORMAL_FIT_MAX_SKEW:
        far.append(f"skewness {shape.skewness:.2f}")
    if shape.excess_kurtosis is not None and \
            abs(shape.excess_kurtosis) > D.NORMAL_FIT_MAX_KURTOSIS:
        far.append(f"excess kurtosis {shape.excess_kurtosis:.2f}")
    warning = None
    if far:
        warning = (f"the {len(rows)} values are far from the Normal distribution the audit "
                   f"assumes ({', '.join(far)}; Normal: 0); a mixed population? narrow it "
                   "with --since/--until, --reporter or --track")
    return PopulationNote("; ".join(parts), origin, reporter, first, last, n_undated, shape,
                          warning)
