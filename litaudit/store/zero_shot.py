"""The ``zero_shot`` table: whether a system's model was trained on a collection, as the
model's metadata declares (seeded from ``seeds/zero_shot.csv.gz``; docs/DEVELOPING.md,
"Who owns which table"). The results' ``--zero-shot`` filter reads it in the WHERE
clause :func:`litaudit.store.results.where` writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb


def replace_all(con: duckdb.DuckDBPyConnection, rows: list[dict[str, str]]) -> None:
    """Replace the stored flags by ``rows`` (the seed file's: system, collection,
    zero_shot 'true'/'false', trained_on, source)."""
    con.execute("DELETE FROM zero_shot")
    if rows:
        cols = ("system", "collection", "zero_shot", "trained_on", "source")
        values: list[list] = [[r[c] for r in rows] for c in cols]
        values[2] = [v == "true" for v in values[2]]
        con.execute(
            "INSERT INTO zero_shot (system, collection_id, zero_shot, trained_on, source) "
            "SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::BOOLEAN[]), "
            "nullif(unnest(?::VARCHAR[]), ''), unnest(?::VARCHAR[])",
            values,
        )


def zero_shot_pairs(con: duckdb.DuckDBPyConnection) -> frozenset[tuple[str, str]]:
    """The (system, collection id) pairs whose model is declared not trained on the
    collection."""
    rows = con.execute(
        "SELECT system, collection_id FROM zero_shot WHERE zero_shot ORDER BY 1, 2"
    ).fetchall()
    return frozenset((str(s), str(c)) for s, c in rows)
