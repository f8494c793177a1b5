"""What the value consistency check (``litaudit.curation.consistency_rows``) reads of the
results table: every result that is not retracted, with its paper's bibkey."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb


def check_rows(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """(id, source, bibkey, track, collection, n_topics, measure, value_text, system, role,
    location, notes) of every result not retracted, in id order ('' for a missing text)."""
    return con.execute(
        """
        SELECT r.id, r.source, COALESCE(p.bibkey, ''), COALESCE(r.track, ''),
               r.collection_id, r.n_topics, r.measure, r.value_text, r.system, r.role,
               COALESCE(r.location, ''), COALESCE(r.notes, '')
        FROM results r LEFT JOIN papers p ON p.id = r.paper_id
        WHERE r.status <> 'retracted'
        ORDER BY r.id
        """
    ).fetchall()
