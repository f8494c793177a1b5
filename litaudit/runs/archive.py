"""Run archives in DuckDB: import (validated, all-or-nothing, idempotent), load, list, delete.

Tables (``schema/002_runs.sql``): ``run_docs`` (a collection's docno dictionary),
``run_qrels_files`` / ``run_qrels``, ``runs`` (metadata + file sha256) and
``run_rankings`` (run id, topic, doc id, score). Import parses every file at once in
DuckDB (see :mod:`litaudit.runs.trec_io`) and writes in one transaction; a file whose
sha256 is already stored for the collection is skipped, so re-importing changes nothing.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from litaudit.errors import InputError, LitauditError, NotFound, Problem, ValidationFailed
from litaudit.runs import trec_io
from litaudit.runs.evaluate import CodedQrels, CodedRuns, Evaluation, evaluate_coded
from litaudit.runs.model import Archive, Qrels, Run, RunInfo, sort_topics

RUN_TYPES = {"automatic": "automatic", "auto": "automatic", "relauto": "automatic",
             "manual": "manual", "human-assisted": "manual"}


@dataclass(frozen=True)
class StoredRun:
    """A row of ``runs``: what ``runs list`` and ``runs show`` print."""

    id: int
    collection_id: str
    tag: str
    participant: str | None
    run_type: str | None
    pooled: bool | None
    path: str
    sha256: str
    n_lines: int
    n_skipped: int
    n_topics: int


@dataclass(frozen=True)
class ImportReport:
    collection_id: str
    qrels: str                     # "imported", "unchanged" or "stored" (no file given)
    n_judgments: int
    imported: tuple[str, ...]      # run tags written
    unchanged: tuple[str, ...]     # run files already stored (same sha256)
    lines: int                     # ranking lines written
    skipped: int                   # bad lines skipped (--lenient)


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


def read_metadata_csv(path: Path) -> dict[str, RunInfo]:
    """Run metadata CSV: columns ``tag`` (or ``run``/``run_id``), ``participant`` (or
    ``site``), ``run_type`` (automatic|manual), ``pooled`` (true|false|yes|no|1|0)."""
    problems: list[Problem] = []
    out: dict[str, RunInfo] = {}
    try:
        fh = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror}") from None
    with fh:
        reader = csv.DictReader(fh)
        cols = {c.strip().lower(): c for c in (reader.fieldnames or [])}
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
                problems.append(Problem(str(path), no, f"unknown run type {rt!r} "
                                        "(automatic or manual)", "run_type"))
                continue
            pv = (row.get(pool_col) or "").strip().lower() if pool_col else ""
            pooled = None
            if pv in ("true", "yes", "1", "y"):
                pooled = True
            elif pv in ("false", "no", "0", "n"):
                pooled = False
            elif pv:
                problems.append(Problem(str(path), no, f"pooled must be true or false, "
                                        f"got {pv!r}", "pooled"))
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
        [collection_id]).fetchall()
    return {s: RunInfo(s, p, rt, None) for s, p, rt in rows}


# --------------------------------------------------------------------------------- import

def import_archive(store, collection_id: str, run_paths: Sequence[str | Path], *,
                   qrels_path: str | Path | None = None, metadata: Path | None = None,
                   lenient: bool = False, threads: int = 2,
                   progress: Callable[[str], None] | None = None) -> ImportReport:
    """Validate and store a qrels file and run files for ``collection_id``, all or nothing.

    Files already stored for the collection (same sha256) are skipped; a run tag already
    stored from a different file, two files with one tag, or different qrels for a
    collection that has some are refused. Run metadata comes from ``metadata`` (CSV, see
    :func:`read_metadata_csv`) or else from the official results seeded for the collection.
    """
    import pyarrow as pa

    con = store.con
    note = progress or (lambda _msg: None)
    paths = expand_paths(run_paths) if run_paths else []
    meta = read_metadata_csv(Path(metadata)) if metadata else None

    found_q = con.execute("SELECT path, sha256, n_judgments FROM run_qrels_files "
                          "WHERE collection_id = ?", [collection_id]).fetchall()
    stored_q = found_q[0] if found_q else None
    qrels_state = "stored"
    if qrels_path is not None:
        qp = Path(qrels_path)
        if not qp.is_file():
            raise InputError(str(qp), None, "no such file")
        q_sha = sha256_file(qp)
        if stored_q and stored_q[1] != q_sha:
            raise LitauditError(
                f"{qp}: collection {collection_id} already has different qrels "
                f"(from {stored_q[0]}); delete the archive first with "
                f"`litaudit runs delete --collection {collection_id} --all`")
        qrels_state = "unchanged" if stored_q else "imported"
    elif stored_q is None:
        raise LitauditError(f"collection {collection_id} has no qrels yet; give --qrels FILE")

    existing = {sha: (tag, path) for tag, sha, path in con.execute(
        "SELECT tag, sha256, path FROM runs WHERE collection_id = ?", [collection_id]).fetchall()}
    existing_tags = {tag: sha for sha, (tag, _) in existing.items()}
    shas = [sha256_file(p) for p in paths]
    todo = [(p, s) for p, s in zip(paths, shas, strict=True) if s not in existing]
    unchanged = tuple(existing[s][0] for s in dict.fromkeys(shas) if s in existing)

    qtable = None
    if qrels_state == "imported":
        note(f"reading qrels {qp.name}")
        qtable = trec_io.read_qrels_table(qp, lenient=lenient)
        qtopics = set(pa.compute.unique(qtable.column("topic")).to_pylist())
        n_judg = qtable.num_rows
    else:
        qtopics = {r[0] for r in con.execute(
            "SELECT DISTINCT topic FROM run_qrels WHERE collection_id = ?",
            [collection_id]).fetchall()}
        n_judg = stored_q[2]
    tables: list[trec_io.RunTable] = []
    if todo:
        note(f"reading {len(todo)} run files")
        tables = trec_io.read_run_tables([p for p, _ in todo], qrels_topics=qtopics,
                                         lenient=lenient, threads=threads)
    problems: list[Problem] = []
    tags_seen: dict[str, Path] = {}
    for (p, sha), rt in zip(todo, tables, strict=True):
        if rt.tag in tags_seen:
            problems.append(Problem(str(p), None, f"run tag {rt.tag!r} is also the tag of "
                                    f"{tags_seen[rt.tag]}"))
        elif rt.tag in existing_tags and existing_tags[rt.tag] != sha:
            problems.append(Problem(str(p), None, f"run {rt.tag!r} is already stored for "
                                    f"{collection_id} from a different file; delete it "
                                    f"first with `litaudit runs delete {rt.tag}`"))
        tags_seen[rt.tag] = p
    if problems:
        raise ValidationFailed(problems)
    info_of = meta if meta is not None else official_metadata(con, collection_id)

    note("writing")
    lines = skipped = 0
    with store.transaction():
        docnos = ([qtable.column("docno")] if qtable is not None else []) + \
            [rt.table.column("docno") for rt in tables]
        doc_ids = _doc_ids(con, collection_id, docnos) if docnos else np.zeros(0, np.int32)
        offset = 0
        if qtable is not None:
            n = qtable.num_rows
            _insert(con, "run_qrels", pa.table({
                "collection_id": pa.repeat(collection_id, n),
                "topic": qtable.column("topic"), "doc_id": doc_ids[:n],
                "rel": qtable.column("rel")}))
            offset = n
            con.execute("INSERT INTO run_qrels_files (collection_id, path, sha256, "
                        "n_judgments, n_topics) VALUES (?, ?, ?, ?, ?)",
                        [collection_id, str(qp), q_sha, n_judg, len(qtopics)])
        run_ids = []
        for (p, sha), rt in zip(todo, tables, strict=True):
            info = info_of.get(rt.tag) or RunInfo(rt.tag, None, None, None)
            rid = con.execute(
                "INSERT INTO runs (collection_id, tag, participant, run_type, pooled, path, "
                "sha256, n_lines, n_skipped, n_topics) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
                [collection_id, rt.tag, info.participant,
                 RUN_TYPES.get((info.run_type or "").lower()), info.pooled, str(p), sha,
                 rt.lines, rt.skipped, rt.topics]).fetchall()[0][0]
            run_ids.append(rid)
            lines += rt.lines
            skipped += rt.skipped
        if tables:
            sizes = [rt.table.num_rows for rt in tables]
            _insert(con, "run_rankings", pa.table({
                "run_id": np.repeat(np.array(run_ids, np.int32), sizes),
                "topic": pa.chunked_array([c for rt in tables
                                           for c in rt.table.column("topic").chunks],
                                          pa.string()),
                "doc_id": doc_ids[offset:],
                "score": pa.chunked_array([c for rt in tables
                                           for c in rt.table.column("score").chunks],
                                          pa.float64())}))
    return ImportReport(collection_id, qrels_state, int(n_judg),
                        tuple(rt.tag for rt in tables), unchanged, lines, skipped)


def _insert(con, table: str, data) -> None:
    con.register("_arrow_in", data)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _arrow_in")
    finally:
        con.unregister("_arrow_in")


def _doc_ids(con, collection_id: str, columns) -> np.ndarray:
    """Doc ids (int32) for the docnos of ``columns`` in order, adding new docnos to the
    collection's dictionary. Strings are hashed once (Arrow) and joined as uniques only."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for col in columns for c in col.chunks]
    enc = pc.dictionary_encode(pa.chunked_array(chunks, pa.string()).combine_chunks())
    uniq = pa.table({"docno": enc.dictionary,
                     "pos": pa.array(np.arange(len(enc.dictionary), dtype=np.int32))})
    con.register("_uniq_docs", uniq)
    try:
        con.execute(
            "INSERT INTO run_docs "
            "SELECT ?, (SELECT coalesce(max(doc_id) + 1, 0) FROM run_docs "
            "WHERE collection_id = ?) + (row_number() OVER ())::INTEGER - 1, u.docno "
            "FROM _uniq_docs u ANTI JOIN (SELECT docno FROM run_docs WHERE collection_id = ?)"
            " d ON d.docno = u.docno", [collection_id, collection_id, collection_id])
        got = con.sql(
            "SELECT u.pos, d.doc_id FROM _uniq_docs u JOIN run_docs d "
            f"ON d.collection_id = {_lit(collection_id)} AND d.docno = u.docno").fetchnumpy()
    finally:
        con.unregister("_uniq_docs")
    mapping = np.empty(len(enc.dictionary), dtype=np.int32)
    mapping[got["pos"]] = got["doc_id"]
    return mapping[enc.indices.to_numpy()]


# ---------------------------------------------------------------------------------- read

def _run_rows(con, collection_id: str, tags: Sequence[str] | None) -> list[tuple]:
    rows = con.execute(
        "SELECT id, tag, participant, run_type, pooled FROM runs WHERE collection_id = ? "
        "ORDER BY tag", [collection_id]).fetchall()
    if tags is None:
        return rows
    by_tag = {r[1]: r for r in rows}
    missing = [t for t in tags if t not in by_tag]
    if missing:
        raise NotFound(f"run {missing[0]!r} is not stored for {collection_id}")
    return [by_tag[t] for t in tags]


def _require_qrels(con, collection_id: str) -> None:
    if not con.execute("SELECT 1 FROM run_qrels_files WHERE collection_id = ?",
                       [collection_id]).fetchall():
        raise NotFound(f"no run archive stored for {collection_id}; "
                       "import one with `litaudit runs import`")


def load_qrels(con, collection_id: str) -> Qrels:
    _require_qrels(con, collection_id)
    tbl = con.sql(
        "SELECT q.topic, d.docno, q.rel FROM run_qrels q JOIN run_docs d "
        "ON d.collection_id = q.collection_id AND d.doc_id = q.doc_id "
        f"WHERE q.collection_id = {_lit(collection_id)} ORDER BY q.topic, d.docno"
    ).to_arrow_table()
    return Qrels(tbl.column(0).to_numpy(zero_copy_only=False),
                 tbl.column(1).to_numpy(zero_copy_only=False),
                 tbl.column(2).to_numpy().astype(np.int32))


def _lit(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def load_archive(con, collection_id: str, tags: Sequence[str] | None = None) -> Archive:
    """The stored archive of a collection: qrels, runs (in trec_eval order) and metadata."""
    qrels = load_qrels(con, collection_id)
    rows = _run_rows(con, collection_id, tags)
    runs: list[Run] = []
    infos: list[RunInfo] = []
    if rows:
        ids = ", ".join(str(r[0]) for r in rows)
        tbl = con.sql(
            "SELECT r.run_id, r.topic, d.docno, r.score FROM run_rankings r JOIN run_docs d "
            f"ON d.collection_id = {_lit(collection_id)} AND d.doc_id = r.doc_id "
            f"WHERE r.run_id IN ({ids}) "
            "ORDER BY r.run_id, r.topic, r.score::FLOAT DESC, d.docno DESC").to_arrow_table()
        rid = tbl.column(0).to_numpy()
        topic = tbl.column(1).to_numpy(zero_copy_only=False)
        docno = tbl.column(2).to_numpy(zero_copy_only=False)
        score = tbl.column(3).to_numpy()
        for r in rows:
            lo, hi = np.searchsorted(rid, [r[0], r[0] + 1])
            runs.append(Run(r[1], topic[lo:hi], docno[lo:hi], score[lo:hi]))
            infos.append(RunInfo(r[1], r[2], r[3], r[4]))
    return Archive(collection_id, qrels, tuple(runs), tuple(infos))


def load_coded(con, collection_id: str,
               tags: Sequence[str] | None = None) -> tuple[CodedRuns, CodedQrels]:
    """The stored archive as integer codes for :func:`evaluate_coded` (no string work)."""
    _require_qrels(con, collection_id)
    rows = _run_rows(con, collection_id, tags)
    cid = _lit(collection_id)
    # doc ids -> position in docno byte order (trec_eval breaks ties with strcmp)
    order = con.sql(f"SELECT doc_id FROM run_docs WHERE collection_id = {cid} "
                    "ORDER BY docno").fetchnumpy()["doc_id"]
    doc_rank = np.empty(len(order), dtype=np.int64)
    doc_rank[order] = np.arange(len(order))
    topic_names = sort_topics(r[0] for r in con.execute(
        f"SELECT DISTINCT topic FROM run_qrels WHERE collection_id = {cid} UNION "
        f"SELECT DISTINCT topic FROM run_rankings WHERE run_id IN "
        f"(SELECT id FROM runs WHERE collection_id = {cid})").fetchall())
    tmap = ", ".join(f"{_lit(t)}: {i}" for i, t in enumerate(topic_names))
    q = con.sql(f"SELECT MAP {{{tmap}}}[topic] AS t, doc_id, rel FROM run_qrels "
                f"WHERE collection_id = {cid}").fetchnumpy()
    cq = CodedQrels(q["t"].astype(np.int32), doc_rank[q["doc_id"]], q["rel"].astype(np.int32))
    if rows:
        ids = ", ".join(str(r[0]) for r in rows)
        pos = ", ".join(f"{r[0]}: {i}" for i, r in enumerate(rows))
        d = con.sql(f"SELECT MAP {{{pos}}}[run_id] AS r, MAP {{{tmap}}}[topic] AS t, doc_id, "
                    f"score FROM run_rankings WHERE run_id IN ({ids})").fetchnumpy()
        run, top, doc, score = d["r"], d["t"], doc_rank[d["doc_id"]], d["score"]
    else:
        run = top = np.zeros(0, np.int32)
        doc = np.zeros(0, np.int64)
        score = np.zeros(0)
    coded = CodedRuns(tuple(r[1] for r in rows), tuple(topic_names), run.astype(np.int32),
                      top.astype(np.int32), doc, score.astype(np.float64))
    return coded, cq


def evaluate_stored(con, collection_id: str, measures: Sequence[str], *,
                    tags: Sequence[str] | None = None, rel_level: int = 1,
                    complete: bool = False) -> Evaluation:
    """Evaluate a stored archive (fast path: integer codes straight from DuckDB)."""
    coded, cq = load_coded(con, collection_id, tags)
    return evaluate_coded(coded, cq, measures, rel_level=rel_level, complete=complete,
                          check_duplicates=False)


def list_runs(con, collection_id: str | None = None) -> list[StoredRun]:
    where = "WHERE collection_id = ?" if collection_id else ""
    rows = con.execute(
        "SELECT id, collection_id, tag, participant, run_type, pooled, path, sha256, n_lines, "
        f"n_skipped, n_topics FROM runs {where} ORDER BY collection_id, tag",
        [collection_id] if collection_id else []).fetchall()
    return [StoredRun(*r) for r in rows]


def get_run(con, tag: str, collection_id: str | None = None) -> StoredRun:
    found = [r for r in list_runs(con, collection_id) if r.tag == tag]
    if not found:
        raise NotFound(f"no stored run {tag!r}" + (f" for {collection_id}" if collection_id
                                                     else ""))
    if len(found) > 1:
        raise LitauditError(f"run {tag!r} is stored for several collections "
                            f"({', '.join(r.collection_id for r in found)}); give --collection")
    return found[0]


def delete_runs(store, collection_id: str, tags: Sequence[str] | None = None) -> int:
    """Delete runs by tag, or (tags=None) the whole archive of a collection with its qrels."""
    con = store.con
    if tags is not None:
        rows = _run_rows(con, collection_id, tags)
    else:
        rows = _run_rows(con, collection_id, None)
    ids = [r[0] for r in rows]
    with store.transaction():
        if ids:
            id_list = ", ".join(map(str, ids))
            con.execute(f"DELETE FROM run_rankings WHERE run_id IN ({id_list})")
            con.execute(f"DELETE FROM runs WHERE id IN ({id_list})")
        if tags is None:
            for t in ("run_qrels", "run_qrels_files", "run_docs"):
                con.execute(f"DELETE FROM {t} WHERE collection_id = ?", [collection_id])
    return len(ids)
