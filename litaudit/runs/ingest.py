"""Importing TREC run archives into DuckDB: validated, all-or-nothing, idempotent, fast.

Reads the qrels and run files on two threads (see :mod:`litaudit.runs.trec_io`) in groups
of bounded size (so that memory does not grow with the archive), codes every docno of a
group once in byte order without hashing a string (see :mod:`litaudit.runs.strcodes`),
ranks the runs on worker threads while DuckDB writes, and writes each group in one
transaction (a failure in a later group deletes what the earlier ones wrote) (tables: ``schema/002_runs.sql``, read back by
:mod:`litaudit.runs.archive`); a file whose sha256 is already stored for the collection is
skipped, so re-importing changes nothing.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litaudit.defaults import DUCKDB_MEMORY_LIMIT, IMPORT_GROUP_BYTES
from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed
from litaudit.runs import trec_io
from litaudit.runs.coding import code_import, docno_words
from litaudit.runs.evalcache import invalidate
from litaudit.runs.model import RunInfo
from litaudit.store.db import sql_string as _lit

RUN_TYPES = {
    "automatic": "automatic",
    "auto": "automatic",
    "relauto": "automatic",
    "manual": "manual",
    "human-assisted": "manual",
}


@dataclass(frozen=True)
class ImportReport:
    collection_id: str
    qrels: str  # "imported", "unchanged" or "stored" (no file given)
    n_judgments: int
    imported: tuple[str, ...]  # run tags written
    unchanged: tuple[str, ...]  # run files already stored (same sha256)
    lines: int  # ranking lines written
    skipped: int  # bad lines skipped (--lenient)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def expand_paths(items: Sequence[str | Path]) -> list[Path]:
    """Run files given as files or directories (every regular, non-hidden file inside)."""
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
            if not found:
                raise InputError(str(p), None, "directory has no run files")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(str(p), None, "no such file or directory")
    seen: set[Path] = set()
    uniq = []
    for p in out:
        r = p.resolve()
        if r not in seen:
            seen.add(r)
            uniq.append(p)
    return uniq


METADATA_COLUMNS = (
    "tag",
    "run",
    "run_id",
    "runid",
    "participant",
    "site",
    "group",
    "run_type",
    "type",
    "pooled",
)


def read_metadata_csv(path: Path) -> dict[str, RunInfo]:
    """Run metadata CSV: columns ``tag`` (or ``run``/``run_id``), ``participant`` (or
    ``site``), ``run_type`` (automatic|manual), ``pooled`` (true|false|yes|no|1|0)."""
    problems: list[Problem] = []
    out: dict[str, RunInfo] = {}
    import io

    from litaudit.curation.rows import decode_utf8
    from litaudit.measures import did_you_mean

    try:
        text = decode_utf8(str(path), Path(path).read_bytes())
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror}") from None
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        cols = {c.strip().lower(): c for c in (reader.fieldnames or [])}
        unknown = [
            Problem(str(path), 1, f"unknown column {c!r}{did_you_mean(c, METADATA_COLUMNS)}")
            for c in cols
            if c not in METADATA_COLUMNS
        ]
        if unknown:
            raise ValidationFailed(unknown)
        tag_col = next((cols[c] for c in ("tag", "run", "run_id", "runid") if c in cols), None)
        if tag_col is None:
            raise InputError(str(path), 1, "no 'tag' column (also accepted: run, run_id)")
        site_col = next((cols[c] for c in ("participant", "site", "group") if c in cols), None)
        type_col = cols.get("run_type") or cols.get("type")
        pool_col = cols.get("pooled")
        for no, row in enumerate(reader, start=2):
            tag = (row.get(tag_col) or "").strip()
            if not tag:
                problems.append(Problem(str(path), no, "empty run tag", "tag"))
                continue
            if tag in out:
                problems.append(Problem(str(path), no, f"run {tag!r} listed twice", "tag"))
                continue
            rt = (row.get(type_col) or "").strip().lower() if type_col else ""
            if rt and rt not in RUN_TYPES:
                problems.append(
                    Problem(
                        str(path), no, f"unknown run type {rt!r} (automatic or manual)", "run_type"
                    )
                )
                continue
            pv = (row.get(pool_col) or "").strip().lower() if pool_col else ""
            pooled = None
            if pv in ("true", "yes", "1", "y"):
                pooled = True
            elif pv in ("false", "no", "0", "n"):
                pooled = False
            elif pv:
                problems.append(
                    Problem(str(path), no, f"pooled must be true or false, got {pv!r}", "pooled")
                )
                continue
            site = (row.get(site_col) or "").strip() if site_col else ""
            out[tag] = RunInfo(tag, site or None, RUN_TYPES.get(rt), pooled)
    if problems:
        raise ValidationFailed(problems)
    return out


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
) -> ImportReport:
    """Validate and store a qrels file and run files for ``collection_id``, all or nothing.

    Files already stored for the collection (same sha256) are skipped; a run tag already
    stored from a different file, two files with one tag, or different qrels for a
    collection that has some are refused. Run metadata comes from ``metadata`` (CSV, see
    :func:`read_metadata_csv`) or else from the official results seeded for the collection.

    The run files are imported in groups of about ``group_bytes`` bytes of text (see
    :func:`file_groups`), one group after the other, each written in its own transaction
    (DuckDB keeps a transaction's rows in memory), so that the memory an import needs is
    that of one group whatever the archive's size; when a later group fails (a problem in
    a file, an error, an interrupt), what the earlier groups wrote is deleted again. A
    process killed between two groups leaves the groups it wrote (an import of one group,
    up to ``group_bytes``, is one transaction). In a group, the files (and, with the first group,
    the qrels) are read, hashed, decompressed, parsed and their docnos cut into
    dictionary-coded 64-bit words by ``threads`` threads (all of it releases the GIL); the
    docnos are then coded in strcmp order from those words (:mod:`litaudit.runs.strcodes`:
    integer work only; docnos already stored keep their ids, see
    :func:`litaudit.runs.coding.code_import`), each run is put in trec_eval order with one
    sort (on worker threads, while DuckDB writes the docnos and qrels), and every table is
    written with one statement, so that :func:`evaluate_stored` has nothing to sort.
    A file with problems does not stop the reading: every file is read so that every
    problem is listed, and nothing is written.

    ``progress(files, lines)`` is called (from the reader threads) as each run file has
    been read, with the number of files (1) and of lines it holds.
    """
    con = store.con
    paths = expand_paths(run_paths) if run_paths else []
    meta = read_metadata_csv(Path(metadata)) if metadata else None
    stored_q, qrels_state, qp, q_sha = _qrels_plan(con, collection_id, qrels_path)
    existing, existing_tags, stored_topics = _stored_runs(con, collection_id)
    read_qrels, qtopics, n_judg = _qrels_source(
        con, collection_id, qrels_state, qp, stored_q, lenient
    )

    tally = _Tally()
    groups = file_groups(paths, group_bytes) or [[]]
    undo = _Undo.before(con, collection_id, stored_topics)
    memory = _limit_duckdb_memory(con, DUCKDB_MEMORY_LIMIT) if len(groups) > 1 else None
    try:
        n_judg = _read_and_commit_groups(
            store,
            collection_id,
            groups,
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
        )
    except BaseException as exc:
        undo.apply(store)
        _raise_if_out_of_memory(exc, collection_id)
        raise
    finally:
        if memory is not None:
            con.execute(f"SET memory_limit = {_lit(memory)}")
    return _import_report(collection_id, qrels_state, n_judg, tally)


def _import_report(collection_id: str, qrels_state: str, n_judg, tally: _Tally) -> ImportReport:
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
    groups: list[list[Path]],
    tally: _Tally,
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
):
    """The groups of :func:`import_archive`, one after the other: each read (the qrels
    beside the first) and, if no file so far has problems, committed; every problem found
    raised at the end (ValidationFailed); returns the number of judgments of the qrels."""
    con = store.con
    info_of: dict[str, RunInfo] | None = None
    for gi, group in enumerate(groups):
        first = read_qrels if gi == 0 else None
        # the qrels are read beside the first group; its topics are checked after that
        read, qread = _read_runs(
            group, existing, qtopics, lenient, threads, first, progress, release=len(groups) > 1
        )
        qtable = qwords = None
        if first is not None:
            qtable, qwords, qtopics, read = _with_qrels(qread, read, group, lenient)
            n_judg = qtable.num_rows
        todo, words = tally.sort(group, read, existing, existing_tags, collection_id)
        del read
        if tally.problems or (not todo and qtable is None):
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
            release=len(groups) > 1,
        )
        tally.add(todo)
        del todo, words, qtable, qwords
    if tally.problems:
        raise ValidationFailed(tally.problems)
    return n_judg


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


def _with_qrels(
    qread, read: list, group: list[Path], lenient: bool
) -> tuple[Any, Any, set[str], list]:
    """The qrels read beside the first group (table, docno words, topics) and the group's
    results checked against their topics; the qrels' problems (and the group's) raised."""
    import pyarrow as pa

    if isinstance(qread, list):
        raise ValidationFailed(qread + [p for r in read if isinstance(r, list) for p in r])
    qtable, qwords = qread
    qtopics = set(pa.compute.unique(qtable.column("topic")).to_pylist())
    return (
        qtable,
        qwords,
        qtopics,
        [_check_topics(p, r, qtopics, lenient) for p, r in zip(group, read, strict=True)],
    )


def _raise_if_out_of_memory(exc: BaseException, collection_id: str) -> None:
    if type(exc).__name__ == "OutOfMemoryException":  # duckdb's, within its limit
        raise LitauditError(
            f"DuckDB ran out of memory importing into {collection_id} "
            f"({str(exc).splitlines()[0]}); nothing was kept"
        ) from None


@dataclass
class _Tally:
    """What an import has found so far: problems, run tags, files written or skipped."""

    problems: list[Problem] = field(default_factory=list)
    tags_seen: dict[str, Path] = field(default_factory=dict)
    imported: list[str] = field(default_factory=list)
    unchanged: dict[str, None] = field(default_factory=dict)
    lines: int = 0
    skipped: int = 0

    def sort(
        self, group: list[Path], read: list, existing: dict, existing_tags: dict, collection_id: str
    ) -> tuple[list, list]:
        """A group's files to write (path, sha256, RunTable) and their docno words;
        problems and files already stored noted."""
        self.problems += [p for r in read if isinstance(r, list) for p in r]
        todo, words = [], []
        for p, r in zip(group, read, strict=True):
            if isinstance(r, list):
                continue
            sha, rt, w = r
            if rt is None:
                self.unchanged[existing[sha][0]] = None
                continue
            if rt.tag in self.tags_seen:
                self.problems.append(
                    Problem(
                        str(p),
                        None,
                        f"run tag {rt.tag!r} is also the tag of {self.tags_seen[rt.tag]}",
                    )
                )
            elif rt.tag in existing_tags and existing_tags[rt.tag] != sha:
                self.problems.append(
                    Problem(
                        str(p),
                        None,
                        f"run {rt.tag!r} is already stored for {collection_id} "
                        f"from a different file; delete it first with "
                        f"`litaudit runs delete {rt.tag}`",
                    )
                )
            self.tags_seen[rt.tag] = p
            todo.append((p, sha, rt))
            words.append(w)
        return todo, words

    def add(self, todo: list) -> None:
        """Count a written group's runs."""
        self.imported += [rt.tag for _, _, rt in todo]
        self.lines += sum(rt.lines for _, _, rt in todo)
        self.skipped += sum(rt.skipped for _, _, rt in todo)


@dataclass
class _Undo:
    """What the committed groups of an import added, to delete if a later group fails."""

    collection_id: str
    n_docs: int  # run_docs of the collection before the import
    max_topic: int  # its highest topic id before the import
    run_ids: list[int] = field(default_factory=list)
    qrels: bool = False

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


def release_memory() -> None:
    """Hand the memory freed by a step back to the system: Arrow's pool (jemalloc keeps
    freed pages for reuse by Arrow alone) and the C library's heap (glibc's malloc_trim).
    Without it, the memory an import holds grows by a few hundred MB with each group."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    _malloc_trim()


def _malloc_trim() -> None:
    global _trim
    if _trim is None:
        _trim = False
        try:
            import ctypes

            libc = ctypes.CDLL(None)
            if hasattr(libc, "gnu_get_libc_version"):
                _trim = libc.malloc_trim
        except (OSError, AttributeError):
            pass
    if _trim:
        _trim(0)


_trim: Any = None  # glibc's malloc_trim, False where there is none, None: not looked up


def file_groups(paths: Sequence[Path], group_bytes: int) -> list[list[Path]]:
    """The files in order, cut into groups of at most ``group_bytes`` bytes of text each
    (a larger file is a group of its own): gzip files count their uncompressed size, read
    from their last four bytes (ISIZE, RFC 1952; modulo 4 GiB, so never less than the
    compressed size)."""
    groups: list[list[Path]] = []
    size = 0
    for p in paths:
        n = _text_size(p)
        if not groups or size + n > group_bytes:
            groups.append([])
            size = 0
        groups[-1].append(p)
        size += n
    return groups


def _text_size(path: Path) -> int:
    try:
        n = path.stat().st_size
        with open(path, "rb") as fh:
            if fh.read(2) != b"\x1f\x8b" or n < 18:
                return n
            fh.seek(-4, 2)
            isize = int.from_bytes(fh.read(4), "little")
    except OSError:
        return 0  # reported by the reader
    while isize < n:
        isize += 1 << 32
    return isize


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
            p, sha, _ = todo[i]
            try:
                rt = trec_io.read_slow_run_table(p, qrels_topics=qtopics, lenient=lenient)
                todo[i] = (p, sha, rt)
                words[i] = docno_words(p, rt.table)
            except ValidationFailed as exc:
                redo.extend(exc.problems)
        if redo:
            raise ValidationFailed(redo)
    words.clear()  # the caller's list too: the words are not needed past coding
    if todo:
        coded.start_ranking(len(todo), threads)
    try:
        run_ids = _write(
            con, collection_id, coded, qtable, todo, info_of, qp, q_sha, n_judg, len(qtopics or ())
        )
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
    todo: list,
    info_of: dict,
    qp,
    q_sha,
    n_judg: int,
    n_qtopics: int,
) -> list[int]:
    """Write a group of an import (the runs ranked meanwhile, see coding.Coded), in the
    caller's transaction."""
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
    rows = []
    for (p, sha, rt), n_topics in zip(todo, coded.run_topics, strict=True):
        info = info_of.get(rt.tag) or RunInfo(rt.tag, None, None, None)
        rows += [
            collection_id,
            rt.tag,
            info.participant,
            RUN_TYPES.get((info.run_type or "").lower()),
            info.pooled,
            str(p),
            sha,
            rt.lines,
            rt.skipped,
            n_topics,
        ]
    if todo:  # one statement for all the runs' rows (tags are distinct here)
        got = dict(
            (tag, rid)
            for rid, tag in con.execute(
                "INSERT INTO runs (collection_id, tag, participant, run_type, pooled, path, "
                "sha256, n_lines, n_skipped, n_topics) VALUES "
                + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(todo))
                + " RETURNING id, tag",
                rows,
            ).fetchall()
        )
        run_ids = [got[rt.tag] for _, _, rt in todo]
        # the runs were ranked on worker threads while DuckDB wrote the tables above
        _insert(con, "INSERT INTO run_rankings SELECT * FROM _arrow_in", coded.rankings(run_ids))
        return run_ids
    return []


def _read_runs(
    paths: list[Path],
    existing: dict,
    qtopics: set[str] | None,
    lenient: bool,
    threads: int,
    first: Callable | None = None,
    progress: Callable[[int, int], None] | None = None,
    release: bool = False,
) -> tuple[list, object]:
    """Per file: (sha256, RunTable, docno words), (sha256, None, None) when already
    stored, or its problems; and what ``first`` returned (or its problems), a job run on
    the same threads ahead of the files. Each file is read once: hashed, decompressed,
    parsed and its docnos cut into words (see :mod:`litaudit.runs.strcodes`) from the
    same bytes. ``qtopics=None``: run topics are not checked here (see _check_topics)."""

    def one(p: Path):
        try:
            try:
                raw = p.read_bytes()
            except OSError as exc:
                raise InputError(str(p), None, f"cannot read file: {exc.strerror or exc}") from None
            sha = hashlib.sha256(raw).hexdigest()
            if sha in existing:
                if progress is not None:
                    progress(1, 0)
                return sha, None, None
            rt = trec_io.read_run_table(
                p, qrels_topics=qtopics, lenient=lenient, check_duplicates=False, raw=raw
            )
            del raw  # before the docno words: one file's bytes less in memory
            if progress is not None:
                progress(1, rt.lines)
            words = docno_words(p, rt.table)
            if release:
                release_memory()
            return sha, rt, words
        except ValidationFailed as exc:
            return exc.problems
        except InputError as exc:
            return [exc.problem]

    def run_first():
        if first is None:
            raise LitauditError("internal error: no first job to run")
        try:
            return first()
        except ValidationFailed as exc:
            return exc.problems
        except InputError as exc:
            return [exc.problem]

    if threads > 1 and (len(paths) > 1 or (first is not None and paths)):
        from concurrent.futures import ThreadPoolExecutor

        # largest files first, so that the two threads finish together
        order = sorted(range(len(paths)), key=lambda i: -paths[i].stat().st_size)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            head = pool.submit(run_first) if first is not None else None
            got = dict(zip(order, pool.map(one, [paths[i] for i in order]), strict=True))
            done = head.result() if head is not None else None
        return [got[i] for i in range(len(paths))], done
    done = run_first() if first is not None else None
    return [one(p) for p in paths], done


def _check_topics(path: Path, result, qtopics: set[str], lenient: bool):
    """A result of :func:`_read_runs` read before the qrels were known, checked against
    their topics: a run with a topic they lack, or one rejected already (whose problems
    should name the missing topics too), is read again line by line."""
    if not isinstance(result, list):
        sha, rt, _ = result
        if rt is None or set(rt.table.column("topic").chunk(0).dictionary.to_pylist()) <= qtopics:
            return result
    elif any(p.line is None for p in result):  # unreadable, empty: nothing to add
        return result
    try:
        rt = trec_io.read_slow_run_table(path, qrels_topics=qtopics, lenient=lenient)
    except ValidationFailed as exc:
        return exc.problems
    except InputError as exc:
        return [exc.problem]
    if isinstance(result, list):  # rejected before, so it cannot pass now
        return result
    return result[0], rt, docno_words(path, rt.table)


def _insert(con, sql: str, data) -> None:
    con.register("_arrow_in", data)
    try:
        con.execute(sql)
    finally:
        con.unregister("_arrow_in")
