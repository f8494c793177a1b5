"""The ``zero_shot`` table: whether a system's model was trained on a collection, as the
model's metadata declares (seeded from ``seeds/zero_shot.csv.gz``; docs/DEVELOPING.md,
"Who owns which table"). The results' ``--zero-shot`` filter reads it in the WHERE
clause :func:`litaudit.store.results.where` writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import duckdb


def replace_all(con: duckdb.DuckDBPyConnection, rows: list[dict[str, str]]) -> None:
    """Replace the stored flags by ``rows`` (the seed file's: system, collection,
    zero_shot 'true'/'false', trained_on, source)."""
    con.execute("DELETE FROM zero_shot")
    if not rows:
        return
    # the columns as NumPy arrays of Python strings DuckDB scans: 7 ms for the seeds'
    # 5,457 rows, where Python lists unnested took 17
    columns = {}
    for c in ("system", "collection", "trained_on", "source"):
        columns[c] = np.empty(len(rows), dtype=object)
        columns[c][:] = [r[c] for r in rows]
    columns["zero_shot"] = np.array([r["zero_shot"] == "true" for r in rows], dtype=bool)
    con.register("_zero_shot_rows", columns)
    try:
        con.execute(
            "INSERT INTO zero_shot (system, collection_id, zero_shot, trained_on, source) "
            "SELECT CAST(system AS VARCHAR), CAST(collection AS VARCHAR), zero_shot, "
            "nullif(CAST(trained_on AS VARCHAR), ''), CAST(source AS VARCHAR) "
            "FROM _zero_shot_rows"
        )
    finally:
        con.unregister("_zero_shot_rows")


def zero_shot_pairs(con: duckdb.DuckDBPyConnection) -> frozenset[tuple[str, str]]:
    """The (system, collection id) pairs whose model is declared not trained on the
    collection."""
    rows = con.execute(
        "SELECT system, collection_id FROM zero_shot WHERE zero_shot ORDER BY 1, 2"
    ).fetchall()
    return frozenset((str(s), str(c)) for s, c in rows)
