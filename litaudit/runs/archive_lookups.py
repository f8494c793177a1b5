"""Look-ups of a stored run archive: its qrels file, its runs' tags and sizes, its
topics and docnos, for an import, an evaluation and the audits.

The archive's tables are read here and in :mod:`litaudit.runs.archive` (loading,
listing, deleting) and written by :mod:`litaudit.runs.ingest_write` (docs/DEVELOPING.md,
"Who owns which table").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.store.db import sql_string as _lit

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class QrelsFile:
    """The qrels file a collection's stored judgments came from (``run_qrels_files``)."""

    path: str
    sha256: str
    n_judgments: int
    n_topics: int


def qrels_file(con: duckdb.DuckDBPyConnection, collection_id: str) -> QrelsFile | None:
    """The collection's stored qrels file, or None when it has none."""
    row = con.execute(
        "SELECT path, sha256, n_judgments, n_topics FROM run_qrels_files WHERE collection_id = ?",
        [collection_id],
    ).fetchone()
    return None if row is None else QrelsFile(*row)


def has_qrels(con: duckdb.DuckDBPyConnection, collection_id: str) -> bool:
    """Whether the collection has stored qrels (a run archive)."""
    return bool(
        con.execute(
            "SELECT 1 FROM run_qrels_files WHERE collection_id = ?", [collection_id]
        ).fetchall()
    )


def archived_collections(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The collections whose archive holds runs (rows, not one list: 0.48 -> 0.33 ms a
    call on the seeded store, once an audit)."""
    return frozenset(
        r[0] for r in con.execute("SELECT DISTINCT collection_id FROM runs").fetchall()
    )


def run_tags(con: duckdb.DuckDBPyConnection, collection_id: str) -> list[str]:
    """The tags of the collection's stored runs, sorted."""
    return [
        r[0]
        for r in con.execute(
            "SELECT tag FROM runs WHERE collection_id = ? ORDER BY tag", [collection_id]
        ).fetchall()
    ]


def run_sizes(con: duckdb.DuckDBPyConnection, collection_id: str) -> dict[int, int]:
    """Each stored run's lines kept, by run id."""
    return dict(
        con.execute(
            "SELECT id, n_lines FROM runs WHERE collection_id = ?", [collection_id]
        ).fetchall()
    )


def stored_run_files(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> list[tuple[str, str, str]]:
    """(tag, sha256, path) of the collection's stored runs whose import finished (a run
    whose import did not has an empty sha256)."""
    return con.execute(
        "SELECT tag, sha256, path FROM runs WHERE collection_id = ? AND sha256 <> ''",
        [collection_id],
    ).fetchall()


def topic_ids(con: duckdb.DuckDBPyConnection, collection_id: str) -> dict[str, int]:
    """The collection's stored topics: name -> topic id."""
    return dict(
        con.execute(
            "SELECT topic, topic_id FROM run_topics WHERE collection_id = ?", [collection_id]
        ).fetchall()
    )


def n_topic_ids(con: duckdb.DuckDBPyConnection, collection_id: str) -> int:
    """One more than the largest stored topic id of the collection (0: none)."""
    return int(
        con.execute(
            "SELECT coalesce(max(topic_id), -1) + 1 FROM run_topics WHERE collection_id = ?",
            [collection_id],
        ).fetchall()[0][0]
    )


def judged_topics(con: duckdb.DuckDBPyConnection, collection_id: str) -> set[str]:
    """The topics the collection's stored qrels judge."""
    return {
        t
        for (t,) in con.execute(
            "SELECT DISTINCT t.topic FROM run_qrels q JOIN run_topics t ON "
            "t.collection_id = q.collection_id AND t.topic_id = q.topic_id "
            "WHERE q.collection_id = ?",
            [collection_id],
        ).fetchall()
    }


def n_docs(con: duckdb.DuckDBPyConnection, collection_id: str) -> int:
    """How many docnos the collection's archive has stored."""
    return int(
        con.execute(
            "SELECT count(*) FROM run_docs WHERE collection_id = ?", [collection_id]
        ).fetchall()[0][0]
    )


def docnos(con: duckdb.DuckDBPyConnection, collection_id: str):
    """The collection's stored docnos in doc id order, as one Arrow array."""
    return (
        con.sql(
            f"SELECT docno FROM run_docs WHERE collection_id = {_lit(collection_id)} "
            "ORDER BY doc_id"
        )
        .to_arrow_table()
        .column(0)
        .combine_chunks()
    )


def stored_doc_ids(con: duckdb.DuckDBPyConnection, collection_id: str, new):
    """(i, doc_id) of the docnos of ``new`` (an Arrow table of columns ``i`` and
    ``docno``) that the collection has stored, as an Arrow table (a join in DuckDB,
    within its memory limit: the stored docnos of a large archive are not read into this
    process)."""
    con.register("_new_docnos", new)
    try:
        found = con.sql(
            "SELECT n.i, d.doc_id FROM _new_docnos n JOIN run_docs d ON "
            f"d.collection_id = {_lit(collection_id)} AND d.docno = n.docno"
        ).to_arrow_table()
    except BaseException:
        try:  # (the transaction may be aborted: keep the first error)
            con.unregister("_new_docnos")
        except Exception:
            pass
        raise
    con.unregister("_new_docnos")
    return found


def lines_per_topic(
    con: duckdb.DuckDBPyConnection, collection_id: str, run_ids: Sequence[int]
) -> list[tuple[int, int]]:
    """(topic id, ranking lines of the runs ``run_ids``) of every stored topic of the
    collection, by topic id."""
    ids = ", ".join(str(int(i)) for i in run_ids)
    return con.execute(
        "SELECT t.topic_id, coalesce(n, 0) FROM run_topics t LEFT JOIN "
        f"(SELECT topic_id, count(*) AS n FROM run_rankings WHERE run_id IN ({ids}) "
        "GROUP BY topic_id) r USING (topic_id) WHERE t.collection_id = ? ORDER BY t.topic_id",
        [collection_id],
    ).fetchall()
