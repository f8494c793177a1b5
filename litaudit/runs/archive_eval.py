"""Evaluating a stored run archive for ``runs eval``: the database opened by the command's
rule (:func:`open_for_eval`), the measures stored for the archive's current fingerprint
read back (:mod:`litaudit.runs.evalcache`), the others computed
(:func:`~litaudit.runs.stored_eval.evaluate_stored`) and kept when the database can be
written."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from litaudit.errors import ParameterError, StoreError
from litaudit.progress import Progress
from litaudit.runs.archive import count_runs, require_qrels, run_rows
from litaudit.runs.coded import Evaluation
from litaudit.runs.evalcache import (
    Pending,
    TopicMatrix,
    assemble,
    canonical,
    fingerprint,
    lookup,
    save,
)
from litaudit.runs.stored_eval import evaluate_stored
from litaudit.runtime import tune_allocator
from litaudit.store.collections import resolve_collection
from litaudit.store.db import Store, cursor, open_store
from litaudit.store.migrations import pending as pending_migrations


@dataclass(frozen=True)
class ArchiveEvaluation:
    """What ``runs eval`` prints: the collection's id (resolved from the alias asked for)
    and the evaluation of its runs."""

    collection_id: str
    evaluation: Evaluation


def evaluate_archive(
    db: Path,
    collection: str,
    measures: Sequence[str],
    *,
    tags: Sequence[str] | None = None,
    rel_level: int = 1,
    complete: bool = False,
    cache: bool = True,
    progress: Progress | None = None,
) -> ArchiveEvaluation:
    """Evaluate the stored runs of ``collection`` (any alias) in the database ``db``, as
    trec_eval does. With ``cache``, the values stored for the archive's current state are
    read back and the values computed are kept (when the database can be written, see
    :func:`open_for_eval`; a failure to keep them loses nothing: they are returned all the
    same). ``progress``: told the number of runs (``progress(total=runs)``), then
    ``progress(runs, lines=lines)`` after each group."""
    with open_for_eval(db, cache) as store:
        cid = resolve_collection(store.con, collection).id
        n_runs = len(tags) if tags else count_runs(store.con, cid)
        if progress is not None:
            progress(total=n_runs)
        ev, pending = evaluate_cached(
            store.con,
            cid,
            measures,
            tags=tags or None,
            rel_level=rel_level,
            complete=complete,
            use_cache=cache,
            progress=progress,
        )
        if pending is not None and cache and not store.read_only:
            try:
                save(store.con, pending)
            except duckdb.Error:  # the values are returned all the same
                pass
    return ArchiveEvaluation(cid, ev)


def open_for_eval(db: Path, cache: bool) -> Store:
    """The database for ``runs eval``: with the store of evaluations on (``cache``),
    opened once for writing, so that the values computed are kept on the same connection
    (a second open for writing would cost more, see docs/DEVELOPING.md), but never
    created, never migrated: a database that does not exist, is of another schema version,
    is in use or cannot be written is opened read-only as before (and nothing is kept).
    Without ``cache``, read-only: nothing is read from or written to the store.

    The price: while it evaluates, the command holds the database as a writer does, so
    another process cannot open it (before, two ``runs eval`` could read side by side and
    one of them skipped keeping its values)."""
    tune_allocator()  # the command's process only (see litaudit.runtime)
    if cache and db.is_file():
        try:
            store = open_store(db, migrate=False)
        except (StoreError, OSError):
            pass
        else:
            if not pending_migrations(store.con):
                return store
            store.close()
    return open_store(db, read_only=True)


def evaluate_cached(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measures: Sequence[str],
    *,
    tags: Sequence[str] | None = None,
    rel_level: int = 1,
    complete: bool = False,
    use_cache: bool = True,
    progress=None,
):
    """(Evaluation, Pending or None): :func:`~litaudit.runs.stored_eval.evaluate_stored`, with
    the measures stored for the archive's current fingerprint read back instead of
    computed. The measures computed come back as ``Pending`` for the caller to
    :func:`~litaudit.runs.evalcache.save` (on a connection that may write: this function only reads).
    ``progress(runs, lines=lines)``: see :func:`~litaudit.runs.stored_eval.evaluate_stored`."""
    if rel_level < 1:
        raise ParameterError(f"rel_level must be at least 1, got {rel_level}")
    if not measures:
        raise ParameterError("no measure asked for")
    names = canonical(measures)
    require_qrels(con, collection_id)
    run_tags = [r[1] for r in run_rows(con, collection_id, tags)]
    fp = fingerprint(con, collection_id)
    cached = (
        lookup(con, collection_id, fp, names, run_tags, rel_level, complete) if use_cache else {}
    )
    missing = [m for m in names if m not in cached]
    computed = None
    if missing or not run_tags:
        computed = evaluate_stored(
            con,
            collection_id,
            missing or names,
            tags=run_tags,
            rel_level=rel_level,
            complete=complete,
            progress=progress,
        )
        if not cached:
            return computed, Pending(collection_id, fp, computed, rel_level, complete)
    ev = assemble(names, run_tags, cached, computed)
    return ev, (
        Pending(collection_id, fp, computed, rel_level, complete) if computed is not None else None
    )


# a bar factory: entered with the number of runs to evaluate
BarFactory = Callable[[int], AbstractContextManager[Any]]
# the progress of the archive evaluations an audit makes (:func:`evaluation_progress`)
_PROGRESS: ContextVar[BarFactory | None] = ContextVar("archive_eval_progress", default=None)


@contextmanager
def evaluation_progress(progress: BarFactory | None) -> Iterator[None]:
    """Within it, :func:`archive_matrix` shows its evaluations with ``progress(runs)`` (as
    :func:`evaluate_archive`'s) when not given one: the CLI's audit commands set it, so
    that an audit that must evaluate a run archive shows a bar as `runs eval` does,
    without threading a callback through every analysis."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


@dataclass(frozen=True)
class _Kept:
    """An archive's evaluation on one measure (every run, as ``runs eval`` by default) and
    its matrix (:func:`matrix_of`; None without runs)."""

    evaluation: Evaluation
    matrix: TopicMatrix | None


# the last evaluations archive_evaluation gave, by (collection, measure, archive
# fingerprint): the fingerprint names the archive's content (its qrels' and runs' sha256),
# so they are the values the store would give back
_MATRICES: dict[tuple[str, str, str], _Kept] = {}
_MATRICES_KEPT = 8


def _kept(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    progress: BarFactory | None,
) -> _Kept:
    m = canonical([measure])[0]
    tags = [r[1] for r in run_rows(con, collection_id, None)]
    fp = fingerprint(con, collection_id)
    key = (collection_id, m, fp)
    if key in _MATRICES:  # evaluated by this process (an audit's own transaction does
        return _MATRICES[key]  # not see the values it kept on another connection)
    cached = lookup(con, collection_id, fp, [m], tags, 1, False)
    if m in cached:
        ev = assemble([m], tags, cached)
    else:
        progress = progress or _PROGRESS.get()
        with progress(len(tags)) if progress is not None else nullcontext(None) as bar:
            ev, pending = evaluate_cached(
                con,
                collection_id,
                [m],
                use_cache=False,
                progress=None if bar is None else (lambda n, lines: bar.advance(n, lines=lines)),
            )
        if pending is not None:
            # on a connection of its own: kept in a transaction of their own, whether or
            # not the caller's connection is inside one (an audit's save is)
            cur = cursor(con)
            try:
                save(cur, pending)
            except duckdb.Error:  # a read-only store: the values are used all the same
                pass
            finally:
                cur.close()
    found = _Kept(ev, matrix_of(ev, fp) if ev.runs else None)
    if len(_MATRICES) >= _MATRICES_KEPT:
        _MATRICES.pop(next(iter(_MATRICES)))
    _MATRICES[key] = found
    return found


def archive_evaluation(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    *,
    progress: BarFactory | None = None,
) -> Evaluation:
    """Every stored run of the collection's archive evaluated on ``measure`` as ``runs
    eval`` does by default (rel_level 1, not ``--complete``): read back from the store of
    evaluations, else evaluated and kept there (when ``con`` can write; else only
    returned), and kept for the process by the archive's fingerprint, so that the audits
    of one command (a claim's chance check, its same-topic comparisons, its copies)
    evaluate the archive once. NotFound without qrels. ``progress(runs)``: as
    :func:`archive_matrix`'s."""
    require_qrels(con, collection_id)
    return _kept(con, collection_id, measure, progress).evaluation


def archive_matrix(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    *,
    progress: BarFactory | None = None,
) -> TopicMatrix | None:
    """The per-topic ``measure`` of every stored run of the collection's archive, as
    ``runs eval`` computes it by default (rel_level 1, not ``--complete``): read back from
    the store of evaluations, else evaluated and kept there (when ``con`` can write; else
    only returned). The same matrix whatever the store held before, so that an audit
    resting on it does not depend on what ran before it (issue 30). None when the store
    holds no run of the collection. ``progress(runs)``: as :func:`evaluate_archive`'s,
    entered only when the runs must be evaluated (default: :func:`evaluation_progress`'s)."""
    if not count_runs(con, collection_id):
        return None
    return _kept(con, collection_id, measure, progress).matrix


def matrix_of(ev: Evaluation, fp: str) -> TopicMatrix:
    """A one-measure Evaluation as :func:`~litaudit.runs.evalcache.topic_matrix` reads it
    back: runs and topics sorted as strings, topics with no value in any run left out."""
    # start-up: numpy
    import numpy as np

    scores = ev.scores[0]
    seen = ~np.all(np.isnan(scores), axis=0)
    topics = sorted(t for t, s in zip(ev.topics, seen, strict=True) if s)
    runs = sorted(ev.runs)
    ri = [ev.runs.index(r) for r in runs]
    ti = [ev.topics.index(t) for t in topics]
    x = np.array(scores[np.ix_(ri, ti)], dtype=np.float64)
    return TopicMatrix(runs=runs, topics=topics, x=x, complete=False, fingerprint=fp)
