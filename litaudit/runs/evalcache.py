"""Evaluations of stored run archives, kept with the archive's fingerprint.

``runs eval`` asks for measures over a stored archive; the per-run and per-topic values of
each measure are stored (``schema/004_run_evaluations.sql``) with the :func:`fingerprint`
of the archive they were computed on, so that asking again reads them back instead of
evaluating again. A stored value is read only while the fingerprint is the archive's
current one; importing or deleting runs or qrels deletes the collection's stored values
(:func:`invalidate`, called by :mod:`litaudit.runs.ingest` and
:func:`litaudit.runs.archive.delete_runs` inside their transactions).

What is stored per run is exactly what the evaluator computed for it: the topics
evaluated for the run and their values (NaN cells, topics not evaluated for the run, are
not stored). The evaluator's topic grid is the union of the topics evaluated for some
run (with ``complete``, every qrels topic, which each run then has), so the grid read
back for any set of runs is the one :func:`evaluate_stored` gives for those runs.
:mod:`litaudit.runs.archive_eval` reads and computes through this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from litaudit.measures import parse_measure

if TYPE_CHECKING:
    import duckdb


def fingerprint(con: duckdb.DuckDBPyConnection, collection_id: str) -> str:
    """The archive's state: its qrels file (sha256 and import time) and its runs (id, tag,
    sha256). Any import or delete changes it (a run imported again gets a new id)."""
    q = con.execute(
        "SELECT sha256, CAST(imported_at AS VARCHAR) FROM run_qrels_files WHERE collection_id = ?",
        [collection_id],
    ).fetchall()
    runs = con.execute(
        "SELECT id, tag, sha256 FROM runs WHERE collection_id = ? ORDER BY id", [collection_id]
    ).fetchall()
    h = hashlib.sha256(repr((collection_id, q, runs)).encode("utf-8"))
    return h.hexdigest()


def invalidate(con: duckdb.DuckDBPyConnection, collection_id: str) -> None:
    """Delete the stored evaluations of a collection's archive (it is being changed)."""
    con.execute("DELETE FROM run_eval_topics WHERE collection_id = ?", [collection_id])
    con.execute("DELETE FROM run_eval_runs WHERE collection_id = ?", [collection_id])


def canonical(measures: Sequence[str]) -> list[str]:
    """Canonical measure names, each once, in the order asked."""
    return list(dict.fromkeys(str(parse_measure(m)) for m in measures))


@dataclass(frozen=True)
class Cached:
    """What the store holds for one measure: per run, {topic: value}."""

    measure: str
    values: dict[str, dict[str, float]]


def lookup(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    fp: str,
    measures: Sequence[str],
    tags: Sequence[str],
    rel_level: int,
    complete: bool,
) -> dict[str, Cached]:
    """The measures (canonical names) stored under ``fp`` for every one of ``tags``."""
    if not measures or not tags:
        return {}
    key = [collection_id, fp, rel_level, complete]
    m_list = ", ".join("?" * len(measures))
    have = con.execute(
        "SELECT measure, count(DISTINCT run) FROM run_eval_runs WHERE collection_id = ? "
        f"AND fingerprint = ? AND rel_level = ? AND complete = ? AND measure IN ({m_list}) "
        f"AND run IN ({', '.join('?' * len(tags))}) GROUP BY measure",
        key + list(measures) + list(tags),
    ).fetchall()
    full = [m for m, n in have if n == len(set(tags))]
    if not full:
        return {}
    out = {m: Cached(m, {t: {} for t in tags}) for m in full}
    wanted = set(tags)
    rows = con.execute(
        "SELECT measure, run, topic, value FROM run_eval_topics WHERE collection_id = ? "
        "AND fingerprint = ? AND rel_level = ? AND complete = ? "
        f"AND measure IN ({', '.join('?' * len(full))})",
        key + full,
    ).fetchall()
    for m, run, topic, value in rows:
        if run in wanted:
            out[m].values[run][topic] = value
    return out


def store(
    con: duckdb.DuckDBPyConnection, collection_id: str, fp: str, ev, rel_level: int, complete: bool
) -> None:
    """Keep an :class:`~litaudit.runs.coded.Evaluation` of the archive whose
    fingerprint is ``fp`` (replacing what is stored for its measures and runs)."""
    # start-up: numpy
    import numpy as np

    if not ev.runs or not ev.measures:
        return
    key = [collection_id, fp, rel_level, complete]
    m_list = ", ".join("?" * len(ev.measures))
    r_list = ", ".join("?" * len(ev.runs))
    same = (
        f"WHERE collection_id = ? AND fingerprint = ? AND rel_level = ? AND complete = ? "
        f"AND measure IN ({m_list}) AND run IN ({r_list})"
    )
    args = key + list(ev.measures) + list(ev.runs)
    con.execute(f"DELETE FROM run_eval_topics {same}", args)
    con.execute(f"DELETE FROM run_eval_runs {same}", args)
    # one statement per table, the rows as lists zipped by unnest (no row-by-row inserts)
    con.execute(
        "INSERT INTO run_eval_runs (collection_id, fingerprint, measure, rel_level, "
        "complete, run) SELECT ?, ?, unnest(?), ?, ?, unnest(?)",
        [
            collection_id,
            fp,
            [m for m in ev.measures for _ in ev.runs],
            rel_level,
            complete,
            [r for _ in ev.measures for r in ev.runs],
        ],
    )
    mi, ri, ti = np.nonzero(~np.isnan(ev.scores))
    if not len(mi):
        return
    con.execute(
        "INSERT INTO run_eval_topics SELECT ?, ?, list_extract(?, m), ?, ?, "
        "list_extract(?, r), list_extract(?, t), v FROM (SELECT unnest(?) AS m, "
        "unnest(?) AS r, unnest(?) AS t, unnest(?) AS v)",
        [
            collection_id,
            fp,
            list(ev.measures),
            rel_level,
            complete,
            list(ev.runs),
            list(ev.topics),
            (mi + 1).tolist(),
            (ri + 1).tolist(),
            (ti + 1).tolist(),
            ev.scores[mi, ri, ti].tolist(),
        ],
    )


def assemble(
    measures: Sequence[str], tags: Sequence[str], cached: dict[str, Cached], computed=None
):
    """One Evaluation of ``measures`` (canonical) over ``tags`` from stored values and
    (for the measures not stored) a computed Evaluation of the same runs."""
    # start-up: numpy
    import numpy as np

    # start-up: numpy (through litaudit.runs.coded)
    from litaudit.runs.coded import Evaluation

    # start-up: numpy (through litaudit.runs.model)
    from litaudit.runs.model import sort_topics

    topics_seen: set[str] = set()
    for c in cached.values():
        for vals in c.values.values():
            topics_seen.update(vals)
    if computed is not None:
        seen = ~np.all(np.isnan(computed.scores), axis=(0, 1))
        topics_seen.update(t for t, s in zip(computed.topics, seen, strict=True) if s)
    topics = tuple(sort_topics(topics_seen))
    col = {t: i for i, t in enumerate(topics)}
    scores = np.full((len(measures), len(tags), len(topics)), np.nan)
    for mi, m in enumerate(measures):
        if m in cached:
            for ri, tag in enumerate(tags):
                vals = cached[m].values[tag]
                if vals:
                    scores[mi, ri, [col[t] for t in vals]] = list(vals.values())
        else:
            src_m = computed.measures.index(m)
            src_r = [computed.runs.index(t) for t in tags]
            cols = [col.get(t, -1) for t in computed.topics]
            keep = [i for i, c in enumerate(cols) if c >= 0]
            scores[mi][:, [cols[i] for i in keep]] = computed.scores[src_m][np.ix_(src_r, keep)]
    return Evaluation(tuple(measures), tuple(tags), topics, scores)


@dataclass(frozen=True)
class Pending:
    """Values computed by :func:`~litaudit.runs.archive_eval.evaluate_cached` and not stored
    yet (see :func:`save`)."""

    collection_id: str
    fingerprint: str
    evaluation: object  # litaudit.runs.coded.Evaluation
    rel_level: int
    complete: bool


def save(con: duckdb.DuckDBPyConnection, pending: Pending) -> bool:
    """Store what :func:`~litaudit.runs.archive_eval.evaluate_cached` computed, if the archive has not changed since
    (True when stored)."""
    if fingerprint(con, pending.collection_id) != pending.fingerprint:
        return False
    con.execute("BEGIN TRANSACTION")
    try:
        store(
            con,
            pending.collection_id,
            pending.fingerprint,
            pending.evaluation,
            pending.rel_level,
            pending.complete,
        )
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")
    return True


@dataclass(frozen=True, kw_only=True)
class TopicMatrix:
    """The stored per-topic scores of one measure (rel_level 1) of a collection's run
    archive, read back while the archive is unchanged: ``x`` runs x topics (NaN where a
    run has no score), ``complete``: evaluated as `runs eval -c` (every judged topic);
    ``fingerprint``: the archive's, which the scores were read under."""

    runs: list[str]
    topics: list[str]
    x: Any
    complete: bool
    fingerprint: str


def topic_matrix(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str
) -> TopicMatrix | None:
    """The archive's per-topic ``measure`` (canonical name) as a matrix, the `-c`
    evaluation where both are stored; None when none is stored for the archive as it is."""
    # start-up: numpy
    import numpy as np

    fp = fingerprint(con, collection_id)
    rows = con.execute(
        "SELECT complete, run, topic, value FROM run_eval_topics WHERE collection_id = ? "
        "AND fingerprint = ? AND measure = ? AND rel_level = 1 ORDER BY complete DESC",
        [collection_id, fp, measure],
    ).fetchall()
    if not rows:
        return None
    complete = rows[0][0]
    runs = sorted({r[1] for r in rows if r[0] == complete})
    topics = sorted({r[2] for r in rows if r[0] == complete})
    ri = {r: i for i, r in enumerate(runs)}
    ti = {t: i for i, t in enumerate(topics)}
    x = np.full((len(runs), len(topics)), np.nan)
    for c, run, topic, value in rows:
        if c == complete:
            x[ri[run], ti[topic]] = value
    return TopicMatrix(runs=runs, topics=topics, x=x, complete=bool(complete), fingerprint=fp)
