"""Reference data: collections (with aliases and topic sets) and measures.

Loaded from ``seeds/collections.json`` and the measure registry by ``litaudit init``;
resolved by any alias, case-insensitively, with a did-you-mean on a miss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from litaudit.errors import NotFound
from litaudit.measures import DEFAULT_MEASURES, FAMILIES, aliases_for, did_you_mean, parse_measure
from litaudit.resources import data_dir

SEEDS_DIR = data_dir("seeds")


@dataclass(frozen=True)
class CollectionRef:
    id: str
    name: str
    title: str
    default_topics: int | None


def load_reference_data(con, seeds_dir: Path = SEEDS_DIR) -> dict[str, int]:
    """Insert collections, aliases, topic sets and measures that are not there yet."""
    data = json.loads((seeds_dir / "collections.json").read_text(encoding="utf-8"))
    added = {"collections": 0, "measures": 0}
    for c in data["collections"]:
        if con.execute("SELECT 1 FROM collections WHERE id = ?", [c["id"]]).fetchone():
            continue
        con.execute(
            "INSERT INTO collections (id, name, title, documents, ir_datasets, notes) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [c["id"], c["name"], c["title"], c["documents"], c.get("ir_datasets", False),
             c.get("notes")],
        )
        for alias in {c["id"].lower(), c["name"].lower(), *(a.lower() for a in c.get("aliases", []))}:
            con.execute(
                "INSERT INTO collection_aliases (alias, collection_id) VALUES (?, ?) "
                "ON CONFLICT DO NOTHING", [alias, c["id"]])
        for ts in c.get("topic_sets", []):
            con.execute(
                "INSERT INTO topic_sets (collection_id, name, n_topics, is_default, description) "
                "VALUES (?, ?, ?, ?, ?)",
                [c["id"], ts["name"], ts["n_topics"], ts.get("default", False),
                 ts.get("description")],
            )
        added["collections"] += 1
    for name in DEFAULT_MEASURES:
        added["measures"] += ensure_measure(con, name)
    return added


def ensure_measure(con, name: str) -> int:
    """Register a measure (by any spelling) if absent. Returns 1 if added."""
    m = parse_measure(name)
    if con.execute("SELECT 1 FROM measures WHERE name = ?", [str(m)]).fetchone():
        return 0
    fam = FAMILIES[m.family]
    con.execute(
        "INSERT INTO measures (name, family, cutoff, min_value, max_value, description) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [str(m), m.family, m.cutoff, m.min_value, m.max_value,
         fam.description + (f" at {m.cutoff}" if m.cutoff else "")],
    )
    for alias in aliases_for(m):
        con.execute("INSERT INTO measure_aliases (alias, measure) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING", [alias, str(m)])
    return 1


def resolve_collection(con, name: str) -> CollectionRef:
    """A collection by id, short name or alias (case-insensitive)."""
    row = con.execute(
        "SELECT c.id, c.name, c.title, "
        " (SELECT n_topics FROM topic_sets t WHERE t.collection_id = c.id AND t.is_default) "
        "FROM collection_aliases a JOIN collections c ON c.id = a.collection_id "
        "WHERE a.alias = ?", [name.strip().lower()]).fetchone()
    if row is None:
        choices = [r[0] for r in con.execute("SELECT alias FROM collection_aliases").fetchall()]
        if not choices:
            raise NotFound(f"unknown collection {name!r}: the database has no collections; "
                           "run `litaudit init`")
        raise NotFound(f"unknown collection {name!r}{did_you_mean(name, choices)}")
    return CollectionRef(*row)


def resolve_measure(con, name: str) -> str:
    """The canonical measure name for any spelling, checked against the store."""
    m = str(parse_measure(name))
    if not con.execute("SELECT 1 FROM measures WHERE name = ?", [m]).fetchone():
        choices = [r[0] for r in con.execute("SELECT name FROM measures").fetchall()]
        raise NotFound(f"measure {m!r} is not registered{did_you_mean(m, choices)}")
    return m
