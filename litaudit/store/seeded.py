"""What ``init`` reads to bring the rows an earlier ``init`` seeded up to the seeds
(:mod:`litaudit.curation.seed`): queries on ``results`` and their ``history``, read-only.
The writes go through :mod:`litaudit.store.results` and :mod:`litaudit.store.history`.

A row was seeded by ``who`` from a file when its history has an ``import`` by ``who``
whose reason is one of ``reasons`` (one per seed file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

_SEEDED = (
    "SELECT DISTINCT entity_id AS id FROM history WHERE entity = 'result' "
    "AND action = 'import' AND who = ? AND list_contains(?::VARCHAR[], reason)"
)


def notes_differing(
    con: duckdb.DuckDBPyConnection, notes: dict[int, str | None]
) -> list[tuple[int, str | None, str | None]]:
    """(id, stored notes, ``notes[id]``) of the results of ``notes`` whose notes differ,
    by id."""
    pairs = "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS notes"
    return con.execute(
        f"SELECT r.id, r.notes, s.notes FROM results r JOIN ({pairs}) s ON s.id = r.id "
        "WHERE r.notes IS DISTINCT FROM s.notes ORDER BY r.id",
        [list(notes), list(notes.values())],
    ).fetchall()


# the fields that date a seeded result and say where its value was read (issue 32: the
# reproductions dated by the commits that added them), as `init` brings them up to date
DATED = ("date", "year", "location", "url")


def dated_differing(
    con: duckdb.DuckDBPyConnection, dated: dict[int, tuple]
) -> list[tuple[int, tuple, tuple]]:
    """(id, stored fields, ``dated[id]``) of the results of ``dated`` whose DATED fields
    (date as ISO text, year, location, url) differ, by id."""
    if not dated:
        return []
    cols = [list(c) for c in zip(*dated.values(), strict=True)]
    s_cols = (
        "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS date, "
        "unnest(?::INTEGER[]) AS year, unnest(?::VARCHAR[]) AS location, "
        "unnest(?::VARCHAR[]) AS url"
    )
    rows = con.execute(
        "SELECT r.id, CAST(r.date AS VARCHAR), r.year, r.location, r.url, s.date, s.year, "
        f"s.location, s.url FROM results r JOIN ({s_cols}) s ON s.id = r.id "
        "WHERE CAST(r.date AS VARCHAR) IS DISTINCT FROM s.date OR r.year IS DISTINCT FROM "
        "s.year OR r.location IS DISTINCT FROM s.location OR r.url IS DISTINCT FROM s.url "
        "ORDER BY r.id",
        [list(dated), *cols],
    ).fetchall()
    return [(int(r[0]), tuple(r[1:5]), tuple(r[5:9])) for r in rows]


def role_changes(
    con: duckdb.DuckDBPyConnection, track: str, old: str, new: str, *, who: str, reasons: list[str]
) -> list[int]:
    """Results of ``track`` with role ``old`` that ``who`` seeded, whose role nobody else
    edited, and whose key with role ``new`` is free: by id."""
    return [
        i
        for (i,) in con.execute(
            "SELECT r.id FROM results r WHERE r.track = ? AND r.role = ? "
            f"AND r.id IN ({_SEEDED}) "
            "AND r.id NOT IN (SELECT entity_id FROM history WHERE entity = 'result' "
            "AND field = 'role' AND who <> ?) "
            "AND NOT EXISTS (SELECT 1 FROM results o WHERE o.source = r.source "
            "AND o.paper_id IS NOT DISTINCT FROM r.paper_id AND o.track = r.track "
            "AND o.collection_id = r.collection_id AND o.n_topics = r.n_topics "
            "AND o.measure = r.measure AND o.system = r.system AND o.role = ?) "
            "ORDER BY r.id",
            [track, old, who, reasons, who, new],
        ).fetchall()
    ]


def gone(
    con: duckdb.DuckDBPyConnection, held: list[int], *, who: str, reasons: list[str]
) -> list[tuple]:
    """(id, status, the measure the seeds now hold its value under or None, that row's id)
    of the results ``who`` seeded, not retracted, that are not among ``held``, by id. The
    measure is given when exactly one held row seeded after it has the same key but the
    measure, and the same value."""
    return con.execute(
        f"WITH held AS (SELECT unnest(?::BIGINT[]) AS id), seeded AS ({_SEEDED}) "
        "SELECT r.id, r.status, CASE WHEN count(DISTINCT n.measure) = 1 "
        "THEN min(n.measure) END, min(n.id) FROM results r "
        "SEMI JOIN seeded s ON s.id = r.id "
        "LEFT JOIN (SELECT * FROM results SEMI JOIN held h ON h.id = results.id) n "
        "ON n.source = r.source AND n.paper_id IS NOT DISTINCT FROM r.paper_id "
        "AND n.track IS NOT DISTINCT FROM r.track AND n.collection_id = r.collection_id "
        "AND n.n_topics = r.n_topics AND n.system = r.system AND n.role = r.role "
        "AND n.value_text = r.value_text AND n.measure <> r.measure "
        "AND n.created_at > r.created_at "
        "WHERE r.status <> 'retracted' AND r.id NOT IN (SELECT id FROM held) "
        "GROUP BY r.id, r.status ORDER BY r.id",
        [held, who, reasons],
    ).fetchall()


def retracted_by(con: duckdb.DuckDBPyConnection, who: str) -> list[tuple[int, str | None]]:
    """(id, the status before ``who``'s last retraction of it) of the retracted results
    ``who`` retracted."""
    return con.execute(
        "SELECT r.id, h.old_value FROM results r JOIN history h ON h.entity = 'result' "
        "AND h.entity_id = r.id AND h.action = 'retract' AND h.who = ? "
        "WHERE r.status = 'retracted' "
        "QUALIFY row_number() OVER (PARTITION BY r.id ORDER BY h.id DESC) = 1",
        [who],
    ).fetchall()
