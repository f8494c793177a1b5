"""Counts and small look-ups on the ``results`` table (its owner with
:mod:`litaudit.store.results`, the listings, and :mod:`litaudit.store.results_write`, the
writes): results per collection, measure and source, the measures a collection holds,
its official runs. Results not retracted, unless a function says otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb


def counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, int]]:
    """(collection name, measure, paper results, official results) of the results not
    retracted, by collection and measure."""
    return con.execute(
        "SELECT c.name, r.measure, count(*) FILTER (WHERE r.source = 'paper'), "
        "count(*) FILTER (WHERE r.source = 'official') FROM results r "
        "JOIN collections c ON c.id = r.collection_id WHERE r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 1, 2"
    ).fetchall()


def measures_with(
    con: duckdb.DuckDBPyConnection, collection_id: str, at_least: int
) -> tuple[str, ...]:
    """Measures of a collection with at least ``at_least`` results not retracted, most
    results first."""
    rows = con.execute(
        "SELECT measure, count(*) AS n FROM results WHERE collection_id = ? "
        "AND status <> 'retracted' GROUP BY measure HAVING count(*) >= ? "
        "ORDER BY n DESC, measure",
        [collection_id, at_least],
    ).fetchall()
    return tuple(r[0] for r in rows)


def official_runs(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> list[tuple[str, str | None, str | None]]:
    """(system, participant, run type) of a collection's official results, one a system."""
    return con.execute(
        "SELECT system, any_value(participant), any_value(run_type) FROM results "
        "WHERE source = 'official' AND collection_id = ? GROUP BY system",
        [collection_id],
    ).fetchall()


def official_count(con: duckdb.DuckDBPyConnection, collection_id: str) -> tuple[int, int]:
    """Distinct official runs and participants listed for a collection (not retracted)."""
    r = con.execute(
        "SELECT count(DISTINCT system), count(DISTINCT participant) FROM results "
        "WHERE collection_id = ? AND source = 'official' AND status <> 'retracted'",
        [collection_id],
    ).fetchone()
    return (int(r[0]), int(r[1])) if r else (0, 0)


def measures_held(con: duckdb.DuckDBPyConnection, collection_id: str) -> dict[str, int]:
    """The measures a collection holds results in (not retracted), most results first."""
    rows = con.execute(
        "SELECT measure, count(*) FROM results WHERE collection_id = ? AND status <> "
        "'retracted' GROUP BY measure ORDER BY 2 DESC, 1",
        [collection_id],
    ).fetchall()
    return dict(rows)


def collections_holding(con: duckdb.DuckDBPyConnection, measure: str) -> list[tuple[str, str, int]]:
    """(short name, id, results) of the collections that hold ``measure`` (results not
    retracted), most results first."""
    return con.execute(
        "SELECT c.name, c.id, count(*) FROM results r JOIN collections c "
        "ON c.id = r.collection_id WHERE r.measure = ? AND r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 3 DESC, 1",
        [measure],
    ).fetchall()


def counts_by_measure_and_source(
    con: duckdb.DuckDBPyConnection, collection_id: str
) -> list[tuple[str, str, int]]:
    """(measure, source, results) of a collection's results (not retracted), by measure
    and source."""
    return con.execute(
        "SELECT measure, source, count(*) FROM results WHERE collection_id = ? "
        "AND status <> 'retracted' GROUP BY ALL ORDER BY 1, 2",
        [collection_id],
    ).fetchall()
