"""Importing TREC run archives into DuckDB: validated, all-or-nothing, idempotent, fast.

Reads the qrels and run files on two threads (see :mod:`litaudit.runs.ingest_read` and
:mod:`litaudit.runs.trec_io`) in groups of bounded size, a file larger than a group in
pieces (:mod:`litaudit.runs.chunks`), so that memory grows neither with the archive nor
with a file; codes every docno of a group once in byte order without hashing a string
(see :mod:`litaudit.runs.strcodes`), ranks the runs on worker threads while DuckDB
writes, and writes each group in one transaction (a failure in a later group deletes what
the earlier ones wrote) (tables: ``schema/002_runs.sql``, read back by
:mod:`litaudit.runs.archive`); a file whose sha256 is already stored for the collection is
skipped, so re-importing changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit.defaults import DUCKDB_MEMORY_LIMIT, IMPORT_CHUNK_BYTES, IMPORT_GROUP_BYTES
from litaudit.errors import InputError, LitauditError, ValidationFailed
from litaudit.progress import Progress
from litaudit.runs import trec_io
from litaudit.runs.archive_lookups import judged_topics, qrels_file, stored_run_files, topic_ids
from litaudit.runs.chunks import Piece
from litaudit.runs.coding import docno_words
from litaudit.runs.ingest_failures import raise_if_disk_full, raise_if_out_of_memory
from litaudit.runs.ingest_files import (
    expand_paths,
    file_groups,
    import_groups,
    sha256_file,
    text_size,
)
from litaudit.runs.ingest_read import ReadWhole, Tally, read_group, with_qrels
from litaudit.runs.ingest_write import GroupWrite, Undo, commit_group, limit_duckdb_memory
from litaudit.runs.model import RunInfo
from litaudit.runs.run_metadata import official_metadata, read_metadata_csv
from litaudit.runs.trec_parse import cap_problems
from litaudit.store.collections import resolve_collection
from litaudit.store.db import sql_string as _lit

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "Grouping",
    "ImportReport",
    "expand_paths",
    "file_groups",
    "import_archive",
    "official_metadata",
    "read_metadata_csv",
    "sha256_file",
]


@dataclass(frozen=True, kw_only=True)
class Grouping:
    """How an import reads its run files: in groups of about ``group_bytes`` bytes of text,
    a larger file in pieces of about ``chunk_bytes``, on ``threads`` threads (see
    :func:`import_archive`)."""

    group_bytes: int = IMPORT_GROUP_BYTES
    chunk_bytes: int = IMPORT_CHUNK_BYTES
    threads: int = 2


@dataclass(frozen=True, kw_only=True)
class ImportReport:
    collection_id: str
    qrels: str  # "imported", "unchanged" or "stored" (no file given)
    n_judgments: int
    imported: tuple[str, ...]  # run tags written
    unchanged: tuple[str, ...]  # run files already stored (same sha256)
    lines: int  # ranking lines written
    skipped: int  # bad lines skipped (--lenient)
    qrels_topics: int = 0  # topics the stored qrels judge
    collection_topics: int | None = None  # the collection's default topic set
    warnings: tuple[str, ...] = ()  # said, not refused (issue 32: qrels of another set)


def import_archive(
    store,
    collection_id: str,
    run_paths: Sequence[str | Path],
    *,
    qrels_path: str | Path | None = None,
    metadata: Path | None = None,
    lenient: bool = False,
    progress: Progress | None = None,
    grouping: Grouping = Grouping(),
) -> ImportReport:
    """Validate and store a qrels file and run files for ``collection_id``, all or nothing.

    Files already stored for the collection (same sha256) are skipped; a run tag already
    stored from a different file, two files with one tag, or different qrels for a
    collection that has some are refused. Run metadata comes from ``metadata`` (CSV, see
    :func:`read_metadata_csv`) or else from the official results seeded for the collection.

    The run files are imported in groups of about ``grouping.group_bytes`` bytes of text
    (see :func:`file_groups`), one group after the other, each written in its own
    transaction (DuckDB keeps a transaction's rows in memory), so that the memory an import
    needs is that of one group whatever the archive's size; a file of more than a group
    comes in pieces of about ``grouping.chunk_bytes``, each ending where a topic's lines end (see
    :mod:`litaudit.runs.chunks`; a file whose topics' lines are not together is read
    whole). When a later group fails (a problem in a file, an error, an interrupt), what
    the earlier groups wrote is deleted again. A process killed between two groups leaves
    the groups it wrote (an import of one group is one transaction). In a group, the files
    (and, with the first group, the qrels) are read, hashed, decompressed, parsed and
    their docnos cut into dictionary-coded 64-bit words by ``grouping.threads`` threads (all of it
    releases the GIL); the docnos are then coded in strcmp order from those words
    (:mod:`litaudit.runs.strcodes`: integer work only; docnos already stored keep their
    ids, see :func:`litaudit.runs.coding.code_import`), each run is put in trec_eval
    order with one sort (on worker threads, while DuckDB writes the docnos and qrels), and
    every table is written with one statement, so that :func:`evaluate_stored` has
    nothing to sort. A file with problems does not stop the reading: every file is read
    so that every problem is listed, and nothing is written.

    ``progress(files, lines=lines)`` is called (from the reader threads) as each run file, or
    piece of one, has been read, with the files it stands for (1, or a piece's share of
    its file's text) and its number of lines.
    """
    paths = expand_paths(run_paths) if run_paths else []
    meta = read_metadata_csv(Path(metadata)) if metadata else None
    whole: set[Path] = set()  # files that cannot be read in pieces
    while True:
        try:
            attempt = _Attempt(
                store=store,
                collection_id=collection_id,
                meta=meta,
                lenient=lenient,
                progress=progress,
                grouping=grouping,
                whole=whole,
            )
            return _import_once(attempt, paths, qrels_path)
        except ReadWhole as exc:  # (what was written is undone): again, that file whole
            whole.add(exc.path)


@dataclass(frozen=True, kw_only=True)
class _Attempt:
    """What an attempt of :func:`import_archive` imports with (it is made again when a
    file turns out not to be readable in pieces: ``whole`` then names it)."""

    store: Any
    collection_id: str
    meta: dict[str, RunInfo] | None
    lenient: bool
    progress: Progress | None
    grouping: Grouping
    whole: set[Path]  # files that cannot be read in pieces


def _import_once(attempt: _Attempt, paths: list[Path], qrels_path) -> ImportReport:
    store, collection_id, lenient = attempt.store, attempt.collection_id, attempt.lenient
    group_bytes, chunk_bytes = attempt.grouping.group_bytes, attempt.grouping.chunk_bytes
    whole = attempt.whole
    con = store.con
    stored_q, qrels_state, qp, q_sha = _qrels_plan(con, collection_id, qrels_path)
    stored = _stored_runs(con, collection_id)
    existing, _tags, stored_topics = stored
    read_qrels, qtopics, n_judg = _qrels_source(
        con, collection_id, qrels_state, qp, stored_q, lenient
    )
    tally = Tally()
    multi = len(file_groups(paths, group_bytes)) > 1 or any(
        p not in whole and text_size(p) > group_bytes for p in paths
    )
    groups = import_groups(paths, group_bytes, chunk_bytes, whole=whole, existing=existing)
    undo = Undo.before(con, collection_id, stored_topics)
    memory = limit_duckdb_memory(con, DUCKDB_MEMORY_LIMIT) if multi else None
    try:
        n_judg = _read_and_commit_groups(
            attempt,
            groups if paths else iter([[]]),
            (tally, undo),
            stored,
            (read_qrels, qtopics, n_judg, qp, q_sha),
            release=multi,
        )
    except BaseException as exc:
        try:
            undo.apply(store)
        except Exception as again:
            raise_if_disk_full(exc, store, collection_id, undone=False)
            raise again from exc
        raise_if_disk_full(exc, store, collection_id, undone=True)
        raise_if_out_of_memory(exc, collection_id)
        raise
    finally:
        if memory is not None:
            con.execute(f"SET memory_limit = {_lit(memory)}")
    rep = _import_report(collection_id, qrels_state, n_judg, tally)
    return qrels_coverage(con, rep)


# the share of a collection's default topics below which its qrels are said to be of
# another topic set (a qrels file of a sibling collection: issue 32)
QRELS_COVERAGE_WARN = 0.9


def qrels_coverage(con: duckdb.DuckDBPyConnection, rep: ImportReport) -> ImportReport:
    """``rep`` with the topics the stored qrels judge against the collection's default
    topic set, and a warning when they cover less than ``QRELS_COVERAGE_WARN`` of it
    (``runs import -c robust04 --qrels qrels.robust03.txt``: 100 of 249 topics)."""

    stored = qrels_file(con, rep.collection_id)

    n_q = stored.n_topics if stored else 0
    n_c = resolve_collection(con, rep.collection_id).default_topics
    warnings: tuple[str, ...] = ()
    if n_q and n_c and n_q < QRELS_COVERAGE_WARN * n_c:
        warnings = (
            f"the qrels judge {n_q} topics, {n_q / n_c:.0%} of the {n_c} of "
            f"{rep.collection_id}'s topic set: are they the qrels of this collection? "
            "Evaluations and claims on it are over these topics only",
        )
    return dataclasses.replace(rep, qrels_topics=n_q, collection_topics=n_c, warnings=warnings)


def _import_report(collection_id: str, qrels_state: str, n_judg, tally: Tally) -> ImportReport:
    """What :func:`import_archive` did."""
    return ImportReport(
        collection_id=collection_id,
        qrels=qrels_state,
        n_judgments=int(n_judg),
        imported=tuple(tally.imported),
        unchanged=tuple(tally.unchanged),
        lines=tally.lines,
        skipped=tally.skipped,
    )


def _read_and_commit_groups(
    attempt: _Attempt,
    groups,
    done: tuple[Tally, Undo],
    stored: tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, int]],
    qrels: tuple,
    *,
    release: bool,
):
    """The groups of :func:`import_archive`, one after the other: each read (the qrels
    beside the first) and, if no file so far has problems, committed; every problem found
    raised at the end (ValidationFailed); returns the number of judgments of the qrels.
    ``done``: what was read and written so far, and how to undo it; ``stored``: the
    stored runs (:func:`_stored_runs`); ``qrels``: their reader (or None), their topics,
    judgments, file and sha256; ``release``: give memory back after each group."""
    store, collection_id, meta = attempt.store, attempt.collection_id, attempt.meta
    lenient, threads, progress = attempt.lenient, attempt.grouping.threads, attempt.progress
    tally, undo = done
    existing, existing_tags, stored_topics = stored
    read_qrels, qtopics, n_judg, qp, q_sha = qrels
    con = store.con
    info_of: dict[str, RunInfo] | None = None
    for gi, group in enumerate(groups):
        first = read_qrels if gi == 0 else None
        # the qrels are read beside the first group; its topics are checked after that
        read, qread = read_group(
            group, existing, qtopics, lenient, threads, first, progress, release, tally
        )
        qtable = qwords = None
        if first is not None:
            qtable, qwords, qtopics, read = with_qrels(qread, read, group, lenient, tally)
            n_judg = qtable.num_rows
        todo, words = tally.sort(group, read, existing, existing_tags, collection_id)
        del read
        if tally.problems or (not todo and qtable is None):
            _drop_text(group)
            continue  # with problems: read on, to list every one; nothing is kept
        if info_of is None:
            info_of = meta if meta is not None else official_metadata(con, collection_id)
        job = GroupWrite(
            collection_id=collection_id,
            qp=qp if qtable is not None else None,
            q_sha=q_sha if qtable is not None else None,
            qtable=qtable,
            qwords=qwords,
            n_judg=int(n_judg),
            qtopics=qtopics,
            todo=todo,
            words=words,
            info_of=info_of,
            lenient=lenient,
            threads=threads,
        )
        commit_group(store, job, stored_topics, undo, tally, release=release)
        tally.add(todo)
        _drop_text(group)
        del todo, words, qtable, qwords, job
    if tally.problems:
        raise ValidationFailed(cap_problems(tally.problems))
    return n_judg


def _drop_text(group: list) -> None:
    """Let a group's pieces' text go (before the next group's is read)."""
    for item in group:
        if isinstance(item, Piece):
            item.data = b""


def _stored_runs(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, int]]:
    """The collection's stored run files (sha256 -> (tag, path)), their tags (tag ->
    sha256) and its topics (name -> id). A run whose import did not finish (empty sha256)
    is not among them: importing its tag again replaces it (see ingest_write)."""
    existing = {sha: (tag, path) for tag, sha, path in stored_run_files(con, collection_id)}
    existing_tags = {tag: sha for sha, (tag, _) in existing.items()}
    stored_topics = topic_ids(con, collection_id)
    return existing, existing_tags, stored_topics


def _qrels_plan(
    con: duckdb.DuckDBPyConnection, collection_id: str, qrels_path: str | Path | None
) -> tuple[tuple[str, str, int] | None, str, Path | None, str | None]:
    """The collection's stored qrels file (path, sha256, judgments) if any, what the
    import does with the qrels ("stored", "unchanged" or "imported"), and the qrels file
    given with its sha256."""
    found_q = qrels_file(con, collection_id)
    stored_q = None if found_q is None else (found_q.path, found_q.sha256, found_q.n_judgments)
    if qrels_path is None:
        if stored_q is None:
            raise LitauditError(f"collection {collection_id} has no qrels yet; give --qrels FILE")
        return stored_q, "stored", None, None
    qp = Path(qrels_path)
    if not qp.is_file():
        raise InputError(
            str(qp), None, "is a directory, not a qrels file" if qp.is_dir() else "no such file"
        )
    q_sha = sha256_file(qp)
    if stored_q and stored_q[1] != q_sha:
        raise LitauditError(
            f"{qp}: collection {collection_id} already has different qrels "
            f"(from {stored_q[0]}); delete the archive first with "
            f"`litaudit runs delete --collection {collection_id} --whole-archive`"
        )
    return stored_q, "unchanged" if stored_q else "imported", qp, q_sha


def _qrels_source(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    qrels_state: str,
    qp: Path | None,
    stored_q: tuple[str, str, int] | None,
    lenient: bool,
) -> tuple[Callable[[], tuple[Any, Any]] | None, set[str] | None, int]:
    """A job reading the qrels file to import (None when stored qrels are kept), else the
    stored qrels' topics and number of judgments."""
    if qrels_state == "imported":
        if qp is None:
            raise LitauditError("internal error: qrels to import without a qrels file")
        path = qp

        def read_qrels():
            table = trec_io.read_qrels_table(path, lenient=lenient, check_duplicates=False)
            return table, docno_words(path, table)

        return read_qrels, None, 0
    if stored_q is None:
        raise LitauditError(f"internal error: collection {collection_id} has no stored qrels")
    qtopics = judged_topics(con, collection_id)
    return None, qtopics, stored_q[2]
