"""The population of published results that an extreme-value audit reads (Carterette,
SIGIR 2015): the results of one collection and measure, narrowed by filters, with their
provenance, and a fingerprint of what was read (:mod:`litaudit.analyses.extreme.best` audits it).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.analyses.audits import fingerprint
from litaudit.curation.filters import Filters
from litaudit.defaults import MIN_N
from litaudit.errors import NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.store import results as result_store
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure
from litaudit.store.results_counts import collections_holding, measures_held

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Filters",
    "ResultRow",
    "Loaded",
    "Population",
    "load_results",
    "load_population",
    "population",
    "select_population",
    "results_fingerprint",
    "track_label",
    "check_min_n",
]


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


_TREC_TRACK = re.compile(r"trec[\d-]")


@functools.lru_cache(maxsize=4096)  # a store holds few tracks; asked once a result row
def track_label(track: str | None) -> str | None:
    """How a track is cited: TREC tracks as 'TREC trec7/adhoc', others (leaderboards,
    benchmarks: 'msmarco-passage/leaderboard/full-ranking', 'mteb/retrieval') as they are."""
    if not track:
        return None
    return f"TREC {track}" if _TREC_TRACK.match(track) else track


def load_results(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, filters: Filters
) -> list[ResultRow]:
    """The filtered results of a collection and measure, best first (ties by provenance,
    system, id)."""
    f = dataclasses.replace(filters, collection_id=collection_id, measure=measure)
    return [ResultRow(*r[:26]) for r in result_store.population(con, f)]


@dataclass(frozen=True)
class Loaded:
    collection_id: str
    measure: str
    row: ResultRow


def load_population(
    con: duckdb.DuckDBPyConnection, collection_id: str | None, measure: str | None, filters: Filters
) -> list[Loaded]:
    """load_results with its collection and measure; None means all (one query)."""

    f = dataclasses.replace(filters, collection_id=collection_id, measure=measure)
    return [Loaded(r[26], r[27], ResultRow(*r[:26])) for r in result_store.population(con, f)]


def results_fingerprint(rows: list[ResultRow]) -> str:
    """Content fingerprint of the input rows, independent of row order and database ids."""
    keys = sorted(
        f"{r.source}\x1f{r.bibkey or ''}\x1f{r.track or ''}\x1f{r.system}\x1f"
        f"{r.role}\x1f{r.n_topics}\x1f{r.value_text}\x1f{r.value!r}\x1f{r.year}\x1f"
        f"{r.status}\x1f{r.standard}\x1f{r.date or ''}\x1f{r.reporter or ''}"
        for r in rows
    )
    return fingerprint(keys)


@dataclass(frozen=True)
class Population:
    collection_id: str
    collection_name: str
    measure: str
    n_topics: int
    rows: list[ResultRow]
    n_other_topics: int

    @functools.cached_property
    def fingerprint(self) -> str:
        """:func:`results_fingerprint` of the rows, computed once (an audit's key and its
        report both read it: 0.36 ms a population of 330 rows)."""
        return results_fingerprint(self.rows)


class TooFew(ParameterError):
    """A population below the minimum N (:func:`too_few_message`)."""


def too_few_message(where: str, n: int, min_n: int = MIN_N, filtered: bool = False) -> str:
    """The one message every extreme-value audit gives for a population below ``min_n``
    ("after the filters" only when filters narrowed it: :func:`narrowed`)."""
    after = " after the filters" if filtered else ""
    if n == 0:
        return f"{where}: 0 result(s){after}"
    return (
        f"{where}: {n} result(s){after}; an extreme-value audit needs at "
        f"least {min_n} (with fewer, the sample sd that sets the reference spread is "
        "too unstable)"
    )


def narrowed(filters: Filters) -> bool:
    """Whether ``filters`` leave out results the audits' defaults read (a source, role,
    run type, status, reporter, years, dates, paper, track or topics given)."""
    return any(
        (
            filters.source,
            filters.roles,
            filters.run_types,
            filters.statuses,
            filters.reporters,
            filters.years,
            filters.since,
            filters.until,
            filters.paper,
            filters.track,
            filters.topics,
        )
    )


def check_min_n(min_n: int) -> int:
    """A user's --min-n: at least MIN_N (the floor every audit applies)."""
    if isinstance(min_n, bool) or not isinstance(min_n, int) or min_n < MIN_N:
        raise ParameterError(f"--min-n must be at least {MIN_N}, got {min_n!r}")
    return min_n


def population(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    measure: str,
    filters: Filters,
    min_n: int = MIN_N,
) -> Population:

    coll = resolve_collection(con, collection)
    meas = resolve_measure(con, measure)
    rows = load_results(con, coll.id, meas, filters)
    try:
        return select_population(
            coll.id, coll.name, coll.default_topics, meas, rows, filters, min_n
        )
    except TooFew as exc:
        note = _retracted_note(con, coll.id, meas, filters, len(rows))
        if not rows:
            note += _held_note(con, coll, measure, meas, filters)
        raise TooFew(f"{exc}{note}") from None


def _held_note(
    con: duckdb.DuckDBPyConnection, coll, asked: str, meas: str, filters: Filters
) -> str:
    """What the store does hold when a population is empty: the results without the
    filters, or the measures the collection holds (a measure of the asked family named
    first: 'recip_rank is RR without cutoff; msmarco-passage-dev holds RR@10 (155)')
    and the collections that hold the asked measure."""

    held = measures_held(con, coll.id)
    if held.get(meas):
        if narrowed(filters):
            return f"; without the filters {coll.name} holds {held[meas]} {meas} result(s)"
        return (
            f"; {coll.name}'s {held[meas]} {meas} result(s) are all of non-standard "
            "settings (--include-nonstandard reads them)"
        )
    parts = []
    if not held:
        parts.append(f"{coll.name} holds no results")
    else:
        m = parse_measure(meas)
        same = [x for x in held if parse_measure(x).family == m.family]
        others = [x for x in held if x not in same]
        if same:
            said = asked.strip()
            if m.cutoff is None:
                lead = f"{said if said != meas else meas} is {m.family} without cutoff"
            else:
                lead = f"{said} is {meas}" if said.lower() != meas.lower() else ""
            parts += [lead] if lead else []
            parts.append(f"{coll.name} holds {_counts(same, held)}")
            if others:
                parts.append(f"its other measures: {_counts(others, held)}")
        else:
            parts.append(f"{coll.name} holds {_counts(others, held)}")
    corpus = coll.id.split("/")[0]
    holders = sorted(
        collections_holding(con, meas), key=lambda h: (h[1].split("/")[0] != corpus, -h[2], h[0])
    )
    if holders:
        parts.append(
            f"{meas} is held by {_counts([h[0] for h in holders], {h[0]: h[2] for h in holders}, 5)}"
        )
    else:
        parts.append(f"no collection holds {meas}")
    return "; " + "; ".join(parts)


def _counts(keys: list[str], n: dict[str, int], limit: int = 8) -> str:
    """'A (3), B (2) and 4 more' over ``keys`` (in order)."""
    shown = ", ".join(f"{k} ({n[k]})" for k in keys[:limit])
    return shown + (f" and {len(keys) - limit} more" if len(keys) > limit else "")


def _retracted_note(
    con: duckdb.DuckDBPyConnection, cid: str, meas: str, filters: Filters, n_now: int
) -> str:
    """'; N retracted result(s) ... left out' when retracted results would add to a
    population too small to audit (e.g. rows that `init` retracted from the seeds)."""
    if filters.include_retracted:
        return ""
    n = len(load_results(con, cid, meas, dataclasses.replace(filters, include_retracted=True)))
    if n <= n_now:
        return ""
    return (
        f"; {n - n_now} retracted result(s) left out (`results history ID` says why; "
        "--include-retracted audits them too)"
    )


def select_population(
    cid: str,
    cname: str,
    default_topics: int | None,
    meas: str,
    rows: list[ResultRow],
    filters: Filters,
    min_n: int,
) -> Population:
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
                listed = ", ".join(f"{k} topics: {v}" for k, v in sorted(counts.items()))
                raise ParameterError(
                    f"{where}: results use several topic counts ({listed}); "
                    "choose one with --topics"
                )
    if len(rows) < min_n:
        raise TooFew(too_few_message(where, len(rows), min_n, filtered=narrowed(filters)))
    n_topics = rows[0].n_topics
    if any(r.n_topics != n_topics for r in rows):  # a topic-set name spanning counts
        raise ParameterError(f"{where}: topic set {filters.topics!r} has several topic counts")
    return Population(cid, cname, meas, n_topics, rows, n_other)
