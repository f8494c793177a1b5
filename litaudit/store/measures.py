"""The ``measures`` and ``measure_aliases`` tables: the registered measures, their
aliases and value ranges (docs/DEVELOPING.md, "Who owns which table").

Registered from the measure registry (:mod:`litaudit.measures`) by ``litaudit init`` and
by imports that name a measure not registered yet (:func:`ensure_measures`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.errors import NotFound
from litaudit.measures import FAMILIES, aliases_for, did_you_mean, parse_measure
from litaudit.store.db import insert_columns

if TYPE_CHECKING:
    import duckdb


def ensure_measures(con: duckdb.DuckDBPyConnection, names) -> int:
    """Register the measures ``names`` (by any spelling) that are absent, with their
    aliases, in one statement per table. Returns how many were added."""
    if not names:
        return 0
    have = set(con.execute("SELECT list(name) FROM measures").fetchall()[0][0] or ())
    rows: list[list] = []
    aliases: list[list] = []
    for name in names:
        m = parse_measure(name)
        if str(m) in have:
            continue
        have.add(str(m))
        fam = FAMILIES[m.family]
        rows.append(
            [
                str(m),
                m.family,
                m.cutoff,
                m.min_value,
                m.max_value,
                fam.description
                + (f" at {m.cutoff}" if m.cutoff else "")
                + (f"; relevant = grade >= {m.rel} (trec_eval -l {m.rel})" if m.rel else ""),
            ]
        )
        aliases += [[alias, str(m)] for alias in aliases_for(m)]
    if rows:
        con.execute(
            "INSERT INTO measures (name, family, cutoff, min_value, max_value, description) "
            "SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[]), "
            "unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), unnest(?::VARCHAR[])",
            [list(c) for c in zip(*rows, strict=True)],
        )
    if aliases:
        insert_columns(
            con,
            "INSERT INTO measure_aliases (alias, measure)",
            [list(kv) for kv in dict(reversed(aliases)).items()],  # an alias once, its first
            conflict=" ON CONFLICT DO NOTHING",
        )
    return len(rows)


def resolve_measure(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The canonical measure name for any spelling, checked against the store."""
    parsed = parse_measure(name)
    m = str(parsed)
    if not con.execute("SELECT 1 FROM measures WHERE name = ?", [m]).fetchone():
        choices = [r[0] for r in con.execute("SELECT name FROM measures ORDER BY name").fetchall()]
        kin = sorted(
            (
                k
                for k in map(_parsed, choices)
                if k and (k.family, k.rel) == (parsed.family, parsed.rel)
            ),
            key=lambda k: -1 if k.cutoff is None else k.cutoff,
        )
        if not kin:
            raise NotFound(f"measure {m!r} is not registered{did_you_mean(m, choices)}")
        label = m.split("@")[0] if parsed.cutoff is not None else m
        why = ""
        if parsed.cutoff is not None and parsed.family == "AP":
            why = " (trec_eval's map is AP without a cutoff, over the whole ranking)"
        raise NotFound(
            f"measure {m!r} is not registered, so no result is stored under it; the "
            f"registered {label} measures: {', '.join(map(str, kin))}{why}"
        )
    return m


def _parsed(name: str):
    """A registered measure's parsed name (None if it does not parse)."""
    try:
        return parse_measure(name)
    except NotFound:
        return None


@dataclass(frozen=True, kw_only=True)
class MeasureListing:
    """One registered measure as ``measures list`` gives it: its family, cutoff, value
    range (``min``, ``max``), description and aliases."""

    name: str
    family: str
    cutoff: int | None
    min: float
    max: float
    description: str
    aliases: tuple[str, ...]


def list_measures(con: duckdb.DuckDBPyConnection) -> list[MeasureListing]:
    """The registered measures with their aliases and value ranges."""
    rows = con.execute(
        "SELECT m.name, m.family, m.cutoff, m.min_value, m.max_value, m.description, "
        " string_agg(a.alias, ', ' ORDER BY a.alias) FROM measures m "
        "LEFT JOIN measure_aliases a ON a.measure = m.name GROUP BY ALL "
        "ORDER BY m.family, m.cutoff NULLS FIRST, m.name"
    ).fetchall()
    return [
        MeasureListing(
            name=r[0],
            family=r[1],
            cutoff=r[2],
            min=r[3],
            max=r[4],
            description=r[5],
            aliases=tuple((r[6] or "").split(", ")),
        )
        for r in rows
    ]


def ranges(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[float, float]]:
    """Every registered measure's (min, max) value, by name."""
    rows = con.execute("SELECT name, min_value, max_value FROM measures").fetchall()
    return {name: (lo, hi) for name, lo, hi in rows}


def value_range(con: duckdb.DuckDBPyConnection, measure: str) -> tuple[float, float] | None:
    """``measure``'s (min, max) value, or None when it is not registered."""
    row = con.execute(
        "SELECT min_value, max_value FROM measures WHERE name = ?", [measure]
    ).fetchone()
    return None if row is None else (row[0], row[1])


def bounded(con: duckdb.DuckDBPyConnection) -> frozenset[str]:
    """The registered measures whose values lie in [0, 1]."""
    found = con.execute(
        "SELECT list(name) FROM measures WHERE min_value = 0 AND max_value = 1"
    ).fetchall()[0][0]
    return frozenset(found or ())
