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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litaudit.defaults import DUCKDB_MEMORY_LIMIT, IMPORT_CHUNK_BYTES, IMPORT_GROUP_BYTES
from litaudit.errors import InputError, LitauditError, ValidationFailed
from litaudit.runs import trec_io
from litaudit.runs.chunks import Piece
from litaudit.runs.coding import code_import, docno_words
from litaudit.runs.evalcache import invalidate
from litaudit.runs.ingest_read import (
    RUN_TYPES,
    ReadWhole,
    Tally,
    expand_paths,
    file_groups,
    import_groups,
    item_path,
    read_group,
    read_metadata_csv,
    release_memory,
    reread_slowly,
    sha256_file,
    starts_run,
    text_size,
    with_qrels,
)
from litaudit.runs.model import RunInfo
from litaudit.store.db import sql_string as _lit

__all__ = [
    "ImportReport",
    "expand_paths",
    "file_groups",
    "import_archive",
    "official_metadata",
    "read_metadata_csv",
    "sha256_file",
]


@dataclass(frozen=True)
class ImportReport:
    collection_id: str
    qrels: str  # "imported", "unchanged" or "stored" (no file given)
    n_judgments: int
    imported: tuple[str, ...]  # run tags written
    unchanged: tuple[str, ...]  # run files already stored (same sha256)
    lines: int  # ranking lines written
    skipped: int  # bad lines skipped (--lenient)


def official_metadata(con, collection_id: str) -> dict[str, RunInfo]:
    """Participant and run type of official TREC runs seeded in ``results``."""
    rows = con.execute(
        "SELECT system, any_value(participant), any_value(run_type) FROM results "
        "WHERE source = 'official' AND collection_id = ? GROUP BY system",
        [collection_id],
    ).fetchall()
    return {s: RunInfo(s, p, rt, None) for s, p, rt in rows}


def import_archive(
    store,
    collection_id: str,
    run_paths: Sequence[str | Path],
    *,
    qrels_path: str | Path | None = None,
    metadata: Path | None = None,
    lenient: bool = False,
    threads: int = 2,
    progress: Callable[[int, int], None] | None = None,
    group_bytes: int = IMPORT_GROUP_BYTES,
    chunk_bytes: int = IMPORT_CHUNK_BYTES,
) -> ImportReport:
    """Validate and store a qrels file and run files for ``collection_id``, all or nothing.

    Files already stored for the collection (same sha256) are skipped; a run tag already
    stored from a different file, two files with one tag, or different qrels for a
    collection that has some are refused. Run metadata comes from ``metadata`` (CSV, see
    :func:`read_metadata_csv`) or else from the official results seeded for the collection.

    The run files are imported in groups of about ``group_bytes`` bytes of text (see
    :func:`file_groups`), one group after the other, each written in its own transaction
    (DuckDB keeps a transaction's rows in memory), so that the memory an import needs is
    that of one group whatever the archive's size; a file of more than ``group_bytes``
    comes in pieces of about ``chunk_bytes``, each ending where a topic's lines end (see
    :mod:`litaudit.runs.chunks`; a file whose topics' lines are not together is read
    whole). When a later group fails (a problem in a file, an error, an interrupt), what
    the earlier groups wrote is deleted again. A process killed between two groups leaves
    the groups it wrote (an import of one group is one transaction). In a group, the files
    (and, with the first group, the qrels) are read, hashed, decompressed, parsed and
    their docnos cut into dictionary-coded 64-bit words by ``threads`` threads (all of it
    releases the GIL); the docnos are then coded in strcmp order from those words
    (:mod:`litaudit.runs.strcodes`: integer work only; docnos already stored keep their
    ids, see :func:`litaudit.runs.coding.code_import`), each run is put in trec_eval
    order with one sort (on worker threads, while DuckDB writes the docnos and qrels), and
    every table is written with one statement, so that :func:`evaluate_stored` has
    nothing to sort. A file with problems does not stop the reading: every file is read
    so that every problem is listed, and nothing is written.

    ``progress(files, lines)`` is called (from the reader threads) as each run file, or
    piece of one, has been read, with the number of files it ends (1 or 0) and of lines.
    """
    paths = expand_paths(run_paths) if run_paths else []
    meta = read_metadata_csv(Path(metadata)) if metadata else None
    whole: set[Path] = set()  # files that cannot be read in pieces
    while True:
        try:
            return _import_once(
                store,
                collection_id,
                paths,
                meta,
                qrels_path,
                lenient,
                threads,
                progress,
                group_bytes,
                chunk_bytes,
                whole,
            )
        except ReadWhole as exc:  # (what was written is undone): again, that file whole
            whole.add(exc.path)


def _import_once(
    store,
    collection_id: str,
    paths: list[Path],
    meta: dict[str, RunInfo] | None,
    qrels_path,
    lenient: bool,
    threads: int,
    progress,
    group_bytes: int,
    chunk_bytes: int,
    whole: set[Path],
) -> ImportReport:
    con = store.con
    stored_q, qrels_state, qp, q_sha = _qrels_plan(con, collection_id, qrels_path)
    existing, existing_tags, stored_topics = _stored_runs(con, collection_id)
    read_qrels, qtopics, n_judg = _qrels_source(
        con, collection_id, qrels_state, qp, stored_q, lenient
    )
    tally = Tally()
    multi = len(file_groups(paths, group_bytes)) > 1 or any(
        p not in whole and text_size(p) > group_bytes for p in paths
    )
    groups = import_groups(paths, group_bytes, chunk_bytes, whole=whole, existing=existing)
    undo = _Undo.before(con, collection_id, stored_topics)
    memory = _limit_duckdb_memory(con, DUCKDB_MEMORY_LIMIT) if multi else None
    try:
        n_judg = _read_and_commit_groups(
            store,
            collection_id,
            groups if paths else iter([[]]),
            tally,
            undo,
            existing=existing,
            existing_tags=existing_tags,
            stored_topics=stored_topics,
            meta=meta,
            read_qrels=read_qrels,
            qtopics=qtopics,
            n_judg=n_judg,
            qp=qp,
            q_sha=q_sha,
            lenient=lenient,
            threads=threads,
            progress=progress,
            release=multi,
        )
    except BaseException as exc:
        undo.apply(store)
        _raise_if_out_of_memory(exc, collection_id)
        raise
    finally:
        if memory is not None:
            con.execute(f"SET memory_limit = {_lit(memory)}")
    return _import_report(collection_id, qrels_state, n_judg, tally)


def _import_report(collection_id: str, qrels_state: str, n_judg, tally: Tally) -> ImportReport:
    """What :func:`import_archive` did."""
    return ImportReport(
        collection_id,
        qrels_state,
        int(n_judg),
        tuple(tally.imported),
        tuple(tally.unchanged),
        tally.lines,
        tally.skipped,
    )


def _read_and_commit_groups(
    store,
    collection_id: str,
    groups,
    tally: Tally,
    undo: _Undo,
    *,
    existing: dict[str, tuple[str, str]],
    existing_tags: dict[str, str],
    stored_topics: dict[str, int],
    meta: dict[str, RunInfo] | None,
    read_qrels,
    qtopics,
    n_judg,
    qp,
    q_sha,
    lenient: bool,
    threads: int,
    progress: Callable[[int, int], None] | None,
    release: bool,
):
    """The groups of :func:`import_archive`, one after the other: each read (the qrels
    beside the first) and, if no file so far has problems, committed; every problem found
    raised at the end (ValidationFailed); returns the number of judgments of the qrels."""
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
        _commit_group(
            store,
            collection_id,
            qp if qtable is not None else None,
            q_sha if qtable is not None else None,
            qtable,
            qwords,
            int(n_judg),
            qtopics,
            todo,
            words,
            stored_topics,
            info_of,
            lenient,
            threads,
            undo,
            tally,
            release=release,
        )
        tally.add(todo)
        _drop_text(group)
        del todo, words, qtable, qwords
    if tally.problems:
        raise ValidationFailed(tally.problems)
    return n_judg


def _drop_text(group: list) -> None:
    """Let a group's pieces' text go (before the next group's is read)."""
    for item in group:
        if isinstance(item, Piece):
            item.data = b""


def _stored_runs(
    con, collection_id: str
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, int]]:
    """The collection's stored run files (sha256 -> (tag, path)), their tags (tag ->
    sha256) and its topics (name -> id)."""
    existing = {
        sha: (tag, path)
        for tag, sha, path in con.execute(
            "SELECT tag, sha256, path FROM runs WHERE collection_id = ?", [collection_id]
        ).fetchall()
    }
    existing_tags = {tag: sha for sha, (tag, _) in existing.items()}
    stored_topics = dict(
        con.execute(
            "SELECT topic, topic_id FROM run_topics WHERE collection_id = ?", [collection_id]
        ).fetchall()
    )
    return existing, existing_tags, stored_topics


def _commit_group(
    store,
    collection_id: str,
    qp,
    q_sha,
    qtable,
    qwords,
    n_judg: int,
    qtopics: set[str] | None,
    todo: list,
    words: list,
    stored_topics: dict[str, int],
    info_of: dict,
    lenient: bool,
    threads: int,
    undo: _Undo,
    tally: Tally,
    *,
    release: bool,
) -> None:
    """Write one group (see :func:`_import_group`) in its own transaction (DuckDB holds a
    transaction's rows in memory), and note what it added in ``undo`` and
    ``stored_topics``."""
    with store.transaction():
        invalidate(store.con, collection_id)
        new_topics, run_ids = _import_group(
            store,
            collection_id,
            qp,
            q_sha,
            qtable,
            qwords,
            n_judg,
            qtopics,
            todo,
            words,
            stored_topics,
            info_of,
            lenient,
            threads,
            tally,
            undo.run_of,
        )
    if release:
        release_memory()
    undo.run_ids += run_ids
    undo.qrels = undo.qrels or qtable is not None
    stored_topics.update(new_topics)


def _qrels_plan(
    con, collection_id: str, qrels_path: str | Path | None
) -> tuple[tuple[str, str, int] | None, str, Path | None, str | None]:
    """The collection's stored qrels file (path, sha256, judgments) if any, what the
    import does with the qrels ("stored", "unchanged" or "imported"), and the qrels file
    given with its sha256."""
    found_q = con.execute(
        "SELECT path, sha256, n_judgments FROM run_qrels_files WHERE collection_id = ?",
        [collection_id],
    ).fetchall()
    stored_q = found_q[0] if found_q else None
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
            f"`litaudit runs delete --collection {collection_id} --all`"
        )
    return stored_q, "unchanged" if stored_q else "imported", qp, q_sha


def _qrels_source(
    con,
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
    qtopics = {
        t
        for (t,) in con.execute(
            "SELECT DISTINCT t.topic FROM run_qrels q JOIN run_topics t ON "
            "t.collection_id = q.collection_id AND t.topic_id = q.topic_id "
            "WHERE q.collection_id = ?",
            [collection_id],
        ).fetchall()
    }
    return None, qtopics, stored_q[2]


def _raise_if_out_of_memory(exc: BaseException, collection_id: str) -> None:
    if type(exc).__name__ == "OutOfMemoryException":  # duckdb's, within its limit
        raise LitauditError(
            f"DuckDB ran out of memory importing into {collection_id} "
            f"({str(exc).splitlines()[0]}); nothing was kept"
        ) from None


@dataclass
class _Undo:
    """What the committed groups of an import added, to delete if a later group fails."""

    collection_id: str
    n_docs: int  # run_docs of the collection before the import
    max_topic: int  # its highest topic id before the import
    run_ids: list[int] = field(default_factory=list)
    qrels: bool = False
    run_of: dict[Path, int] = field(default_factory=dict)  # files written in pieces so far

    @classmethod
    def before(cls, con, collection_id: str, stored_topics: dict[str, int]) -> _Undo:
        """Nothing to undo yet: the collection's docs and topics before the import."""
        return cls(
            collection_id,
            int(
                con.execute(
                    "SELECT count(*) FROM run_docs WHERE collection_id = ?", [collection_id]
                ).fetchall()[0][0]
            ),
            max(stored_topics.values(), default=-1),
        )

    def apply(self, store) -> None:
        if not self.run_ids and not self.qrels:
            return
        con = store.con
        cid = self.collection_id
        with store.transaction():
            if self.run_ids:
                ids = ", ".join(map(str, self.run_ids))
                con.execute(f"DELETE FROM run_rankings WHERE run_id IN ({ids})")
                con.execute(f"DELETE FROM runs WHERE id IN ({ids})")
            if self.qrels:
                for t in ("run_qrels", "run_qrels_files"):
                    con.execute(f"DELETE FROM {t} WHERE collection_id = ?", [cid])
            con.execute(
                "DELETE FROM run_docs WHERE collection_id = ? AND doc_id >= ?", [cid, self.n_docs]
            )
            con.execute(
                "DELETE FROM run_topics WHERE collection_id = ? AND topic_id > ?",
                [cid, self.max_topic],
            )


def _limit_duckdb_memory(con, limit: str) -> str:
    """Set DuckDB's memory limit (its cache of the blocks written would otherwise grow
    with the archive); the previous setting, to restore."""
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.execute(f"SET memory_limit = {_lit(limit)}")
    return before


def _import_group(
    store,
    collection_id: str,
    qp,
    q_sha,
    qtable,
    qwords,
    n_judg: int,
    qtopics: set[str] | None,
    todo: list,
    words: list,
    stored_topics: dict[str, int],
    info_of: dict,
    lenient: bool,
    threads: int,
    tally: Tally,
    run_of: dict[Path, int],
) -> tuple[dict[str, int], list[int]]:
    """Code and write one group of runs (and the qrels, with the first group) inside the
    caller's transaction: the topics it added (name -> id) and the runs' ids."""
    con = store.con
    # code the topics and docnos; a document twice in a topic sends its file to the
    # line-by-line reader (which names the lines, or drops them when lenient)
    while True:
        coded = code_import(
            con,
            collection_id,
            qtable,
            qwords,
            [rt for _, _, rt in todo],
            words,
            stored_topics,
            threads,
        )
        if not coded.dup_qrels and not coded.dup_runs:
            break
        if coded.dup_qrels:
            qtable = trec_io.read_slow_qrels_table(qp, lenient=lenient)
            qwords = docno_words(qp, qtable)
        redo = []
        for i in coded.dup_runs:
            item, sha, _ = todo[i]
            try:
                rt = reread_slowly(item, qtopics, lenient, tally)
                todo[i] = (item, sha, rt)
                words[i] = docno_words(item_path(item), rt.table)
            except ValidationFailed as exc:
                redo.extend(exc.problems)
        if redo:
            raise ValidationFailed(redo)
    words.clear()  # the caller's list too: the words are not needed past coding
    if todo:
        coded.start_ranking(len(todo), threads)
    try:
        _write(con, collection_id, coded, qtable, qp, q_sha, n_judg, len(qtopics or ()))
        run_ids = _write_runs(con, collection_id, coded, todo, info_of, run_of)
    finally:
        coded.stop_ranking()
    nt: Any = coded.new_topics
    return dict(
        zip(nt.column("topic").to_pylist(), nt.column("topic_id").to_pylist(), strict=True)
    ), run_ids


def _write(
    con,
    collection_id: str,
    coded,
    qtable,
    qp,
    q_sha,
    n_judg: int,
    n_qtopics: int,
) -> None:
    """Write a group's topics, docnos and (with the first group) qrels, in the caller's
    transaction."""
    cid = _lit(collection_id)
    if len(coded.new_topics):
        _insert(
            con,
            f"INSERT INTO run_topics SELECT {cid}, topic_id, topic FROM _arrow_in",
            coded.new_topics,
        )
    if len(coded.new_docs):
        _insert(
            con, f"INSERT INTO run_docs SELECT {cid}, doc_id, docno FROM _arrow_in", coded.new_docs
        )
    if qtable is not None:
        _insert(
            con,
            f"INSERT INTO run_qrels SELECT {cid}, topic_id, doc_id, rel FROM _arrow_in",
            coded.qrels,
        )
        con.execute(
            "INSERT INTO run_qrels_files (collection_id, path, sha256, "
            "n_judgments, n_topics) VALUES (?, ?, ?, ?, ?)",
            [collection_id, str(qp), q_sha, int(n_judg), n_qtopics],
        )


def _write_runs(con, collection_id: str, coded, todo: list, info_of: dict, run_of: dict) -> list:
    """Write a group's runs (``runs``: a row per run, a piece after a file's first adding
    its counts; ``run_rankings``: the rows, ranked meanwhile, see coding.Coded) in the
    caller's transaction; their ids (``run_of``: of the files written in pieces)."""
    rows = []
    starts = [
        (item, sha, rt, n)
        for (item, sha, rt), n in zip(todo, coded.run_topics, strict=True)
        if starts_run(item)
    ]
    for item, sha, rt, n_topics in starts:
        info = info_of.get(rt.tag) or RunInfo(rt.tag, None, None, None)
        rows += [
            collection_id,
            rt.tag,
            info.participant,
            RUN_TYPES.get((info.run_type or "").lower()),
            info.pooled,
            str(item_path(item)),
            sha or "",  # a file read in pieces: its sha256 comes with its last piece
            rt.lines,
            rt.skipped,
            n_topics,
        ]
    if starts:  # one statement for all the runs' rows (tags are distinct here)
        got = dict(
            (tag, rid)
            for rid, tag in con.execute(
                "INSERT INTO runs (collection_id, tag, participant, run_type, pooled, path, "
                "sha256, n_lines, n_skipped, n_topics) VALUES "
                + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(starts))
                + " RETURNING id, tag",
                rows,
            ).fetchall()
        )
        run_of.update((item_path(item), got[rt.tag]) for item, _, rt, _ in starts)
    run_ids = [run_of[item_path(item)] for item, _, _ in todo]
    for (item, sha, rt), n_topics, rid in zip(todo, coded.run_topics, run_ids, strict=True):
        if not starts_run(item):
            con.execute(
                "UPDATE runs SET n_lines = n_lines + ?, n_skipped = n_skipped + ?, "
                "n_topics = n_topics + ?, sha256 = coalesce(?, sha256) WHERE id = ?",
                [rt.lines, rt.skipped, n_topics, sha, rid],
            )
    if todo:  # the runs were ranked on worker threads while DuckDB wrote the tables above
        _insert(con, "INSERT INTO run_rankings SELECT * FROM _arrow_in", coded.rankings(run_ids))
    return run_ids


def _insert(con, sql: str, data) -> None:
    con.register("_arrow_in", data)
    try:
        con.execute(sql)
    finally:
        con.unregister("_arrow_in")
