"""Writing an import's groups into DuckDB for :mod:`litaudit.runs.ingest`: each group coded
(:func:`litaudit.runs.coding.code_import`) and written in one transaction, a file read in
pieces written as one run (its first piece adds the run's row, the others add to its
counts), and what the written groups added, to delete again if a later one fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit.errors import LitauditError, ValidationFailed
from litaudit.runs import trec_io
from litaudit.runs.coding import code_import, docno_words
from litaudit.runs.evalcache import invalidate
from litaudit.runs.ingest_files import item_path, starts_run
from litaudit.runs.ingest_read import Tally, release_memory, reread_slowly
from litaudit.runs.model import RunInfo
from litaudit.runs.run_metadata import RUN_TYPES
from litaudit.runs.trec_parse import cap_problems
from litaudit.store.db import sql_string as _lit

if TYPE_CHECKING:
    import duckdb


@dataclass
class Undo:
    """What the committed groups of an import added, to delete if a later group fails."""

    collection_id: str
    n_docs: int  # run_docs of the collection before the import
    max_topic: int  # its highest topic id before the import
    run_ids: list[int] = field(default_factory=list)
    qrels: bool = False
    run_of: dict[Path, int] = field(default_factory=dict)  # files written in pieces so far

    @classmethod
    def before(
        cls, con: duckdb.DuckDBPyConnection, collection_id: str, stored_topics: dict[str, int]
    ) -> Undo:
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
                con.execute("DELETE FROM run_qrels WHERE collection_id = ?", [cid])
                con.execute("DELETE FROM run_qrels_files WHERE collection_id = ?", [cid])
            con.execute(
                "DELETE FROM run_docs WHERE collection_id = ? AND doc_id >= ?", [cid, self.n_docs]
            )
            con.execute(
                "DELETE FROM run_topics WHERE collection_id = ? AND topic_id > ?",
                [cid, self.max_topic],
            )


def limit_duckdb_memory(con: duckdb.DuckDBPyConnection, limit: str) -> str:
    """Set DuckDB's memory limit (its cache of the blocks written would otherwise grow
    with the archive); the previous setting, to restore."""
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.execute(f"SET memory_limit = {_lit(limit)}")
    return before


@dataclass(kw_only=True)
class GroupWrite:
    """One group of an import to write: its runs (``todo``: (file or piece, sha256,
    RunTable); ``words``: their docno words), the qrels with the first group (else
    ``qp``, ``q_sha``, ``qtable``, ``qwords`` are None), and the import's settings."""

    collection_id: str
    qp: Path | None
    q_sha: str | None
    qtable: Any
    qwords: Any
    n_judg: int
    qtopics: set[str] | None
    todo: list
    words: list
    info_of: dict
    lenient: bool
    threads: int


def commit_group(
    store,
    job: GroupWrite,
    stored_topics: dict[str, int],
    undo: Undo,
    tally: Tally,
    *,
    release: bool,
) -> None:
    """Write one group (see :func:`_import_group`) in its own transaction (DuckDB holds a
    transaction's rows in memory), and note what it added in ``undo`` and
    ``stored_topics``."""
    had_qrels = job.qtable is not None
    with store.transaction():
        invalidate(store.con, job.collection_id)
        new_topics, run_ids = _import_group(store, job, stored_topics, tally, undo.run_of)
    if release:
        release_memory()
    undo.run_ids += run_ids
    undo.qrels = undo.qrels or had_qrels
    stored_topics.update(new_topics)


def _import_group(
    store,
    job: GroupWrite,
    stored_topics: dict[str, int],
    tally: Tally,
    run_of: dict[Path, int],
) -> tuple[dict[str, int], list[int]]:
    """Code and write one group of runs (and the qrels, with the first group) inside the
    caller's transaction: the topics it added (name -> id) and the runs' ids."""
    con = store.con
    collection_id, todo, words = job.collection_id, job.todo, job.words
    # code the topics and docnos; a document twice in a topic sends its file to the
    # line-by-line reader (which names the lines, or drops them when lenient)
    while True:
        coded = code_import(
            con,
            collection_id,
            job.qtable,
            job.qwords,
            [rt for _, _, rt in todo],
            words,
            stored_topics,
            job.threads,
        )
        if not coded.dup_qrels and not coded.dup_runs:
            break
        if coded.dup_qrels:
            if job.qp is None:  # the qrels come with the file they were read from
                raise LitauditError("internal error: qrels without their file")
            job.qtable = trec_io.read_slow_qrels_table(job.qp, lenient=job.lenient)
            job.qwords = docno_words(job.qp, job.qtable)
        redo = []
        for i in coded.dup_runs:
            item, sha, _ = todo[i]
            try:
                rt = reread_slowly(item, job.qtopics, job.lenient, tally)
                todo[i] = (item, sha, rt)
                words[i] = docno_words(item_path(item), rt.table)
            except ValidationFailed as exc:
                redo.extend(exc.problems)
        if redo:
            raise ValidationFailed(cap_problems(redo))
    words.clear()  # the caller's list too: the words are not needed past coding
    if todo:
        coded.start_ranking(len(todo), job.threads)
    try:
        _write(
            con,
            collection_id,
            coded,
            job.qtable,
            job.qp,
            job.q_sha,
            job.n_judg,
            len(job.qtopics or ()),
        )
        run_ids = _write_runs(con, collection_id, coded, todo, job.info_of, run_of)
    finally:
        coded.stop_ranking()
    nt: Any = coded.new_topics
    return dict(
        zip(nt.column("topic").to_pylist(), nt.column("topic_id").to_pylist(), strict=True)
    ), run_ids


def _write(
    con: duckdb.DuckDBPyConnection,
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


def _write_runs(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    coded,
    todo: list,
    info_of: dict,
    run_of: dict,
) -> list:
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
    if starts:  # an earlier import of these tags that did not finish is replaced
        _drop_incomplete(con, collection_id, [rt.tag for _, _, rt, _ in starts])
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


def _drop_incomplete(con: duckdb.DuckDBPyConnection, collection_id: str, tags: list[str]) -> None:
    """Delete the runs ``tags`` of the collection whose import did not finish (empty
    sha256; a finished run of one of these tags was refused before anything was written)."""
    marks = ", ".join("?" * len(tags))
    ids = [
        r[0]
        for r in con.execute(
            f"SELECT id FROM runs WHERE collection_id = ? AND sha256 = '' AND tag IN ({marks})",
            [collection_id, *tags],
        ).fetchall()
    ]
    if ids:
        listed = ", ".join(map(str, ids))
        con.execute(f"DELETE FROM run_rankings WHERE run_id IN ({listed})")
        con.execute(f"DELETE FROM runs WHERE id IN ({listed})")


def _insert(con: duckdb.DuckDBPyConnection, sql: str, data) -> None:
    con.register("_arrow_in", data)
    try:
        con.execute(sql)
    finally:
        con.unregister("_arrow_in")
