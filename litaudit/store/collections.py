"""The ``collections``, ``collection_aliases`` and ``topic_sets`` tables: every read and
write of collections, their names and their topic sets (docs/DEVELOPING.md, "Who owns
which table").

Seeded from ``seeds/collections.json`` by ``litaudit init``
(:func:`~litaudit.store.refdata.load_reference_data`); ``collections add`` adds any other.
A collection is resolved by its id, name or any alias by
:class:`~litaudit.store.collection_names.CollectionNames`, the one resolver every command
uses (:func:`resolve_collection` reads it and the collection's row).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.errors import LitauditError, NotFound
from litaudit.resources import data_dir
from litaudit.store import results_counts
from litaudit.store.collection_names import CollectionNames
from litaudit.store.db import insert_columns

if TYPE_CHECKING:
    import duckdb

SEEDS_DIR = data_dir("seeds")


@dataclass(frozen=True)
class CollectionRef:
    id: str
    name: str
    title: str
    default_topics: int | None


def insert_seeded(con: duckdb.DuckDBPyConnection, collections: list[dict]) -> int:
    """Insert the collections of ``seeds/collections.json`` (``collections``: its list)
    that are not there yet, with their aliases and topic sets; how many were added."""
    have = con.execute("SELECT list(id), list(name) FROM collections").fetchall()[0]
    present = set(have[0] or ()) | set(have[1] or ())
    colls: list[list] = []
    aliases: dict[str, str] = {}
    topic_sets: list[list] = []
    old_aliases: dict[str, str] = {}
    for c in collections:
        # present already, or (a database seeded before an id changed, e.g. the TREC DL
        # collections before their '/judged' ids) present under its short name; one
        # present by its id gets the seeds' names it lacks (a short name of today's
        # naming rule), as aliases: aliases are only added
        if c["id"] in present:
            for alias in (c["name"], *c.get("aliases", [])):
                old_aliases.setdefault(alias.lower(), c["id"])
        if c["id"] in present or c["name"] in present:
            continue
        colls.append(
            [
                c["id"],
                c["name"],
                c["title"],
                c["documents"],
                bool(c.get("ir_datasets", False)),
                c.get("notes"),
                c.get("provenance"),
            ]
        )
        for alias in {
            c["id"].lower(),
            c["name"].lower(),
            *(a.lower() for a in c.get("aliases", [])),
        }:
            aliases.setdefault(alias, c["id"])
        topic_sets += [_topic_set_row(c["id"], ts) for ts in c.get("topic_sets", [])]
    # one statement per table (list parameters unnested): DuckDB runs single-row statements
    # and executemany slowly
    if colls:
        insert_columns(
            con,
            "INSERT INTO collections (id, name, title, documents, ir_datasets, notes, provenance)",
            colls,
            conflict="",
        )
        _insert_aliases(con, aliases)
        if topic_sets:
            insert_columns(
                con,
                "INSERT INTO topic_sets (collection_id, name, n_topics, is_default, "
                "description, parts)",
                topic_sets,
                conflict="",
            )
    if old_aliases:
        _insert_aliases(con, old_aliases)
    return len(colls)


def _insert_aliases(con: duckdb.DuckDBPyConnection, aliases: dict[str, str]) -> None:
    """Aliases (lower-case alias -> collection id); an alias present already is kept."""
    insert_columns(
        con,
        "INSERT INTO collection_aliases (alias, collection_id)",
        [list(kv) for kv in aliases.items()],
        conflict=" ON CONFLICT DO NOTHING",
    )


def _topic_set_row(collection_id: str, ts: dict) -> list:
    """A topic set of collections.json as the row topic_sets stores (``parts``: the
    collections an equal-weight mean averages, schema 010)."""
    return [
        collection_id,
        ts["name"],
        ts["n_topics"],
        bool(ts.get("default", False)),
        ts.get("description"),
        ts.get("parts"),
    ]


_REF_SQL = (
    "SELECT c.id, c.name, c.title, t.n_topics FROM collections c "
    "LEFT JOIN topic_sets t ON t.collection_id = c.id AND t.is_default WHERE c.id = ?"
)


def resolve_collection(con: duckdb.DuckDBPyConnection, name: str) -> CollectionRef:
    """A collection by any name :class:`CollectionNames` accepts; a miss suggests the
    collections the name could mean. Its own id or short name (aliases both) resolves as
    there, in one-table queries (DuckDB's cheapest: 1.6 -> 1.1 ms a call)."""
    key = name.strip().lower()
    alias = con.execute("SELECT collection_id FROM collection_aliases WHERE alias = ?", [key])
    for (cid,) in alias.fetchall():
        own = con.execute("SELECT name, title FROM collections WHERE id = ?", [cid]).fetchall()
        if own and key in (cid.lower(), own[0][0].lower()):
            sql = "SELECT n_topics FROM topic_sets WHERE collection_id = ? AND is_default"
            n = con.execute(sql, [cid]).fetchall()
            return CollectionRef(cid, own[0][0], own[0][1], n[0][0] if n else None)
    cid = CollectionNames.load(con).resolve(name)
    return CollectionRef(*con.execute(_REF_SQL, [cid]).fetchall()[0])


@dataclass(frozen=True, kw_only=True)
class NewCollection:
    """A collection to add (`litaudit collections add`): its ``id`` and the ``n_topics``
    queries of its one (default) topic set; ``title`` and ``name`` (default: the id), its
    ``documents``, more ``aliases``, whether ``ir_datasets`` knows it, and the
    ``provenance`` of the query count (default: who added it, when)."""

    id: str
    n_topics: int
    title: str | None = None
    name: str | None = None
    documents: str | None = None
    aliases: tuple[str, ...] = ()
    ir_datasets: bool = False
    provenance: str | None = None


def add_collection(
    con: duckdb.DuckDBPyConnection, new: NewCollection, *, who: str = "unknown"
) -> CollectionRef:
    """Add ``new`` with its one (default) topic set.

    The id, name and aliases must be new; the provenance defaults to who added it when.
    """
    n_topics, title, name, documents = new.n_topics, new.title, new.name, new.documents
    aliases, ir_datasets, provenance = new.aliases, new.ir_datasets, new.provenance
    cid = new.id.strip()
    if not cid or any(ch.isspace() for ch in cid):
        raise LitauditError(f"collection id {cid!r}: give a non-empty id without spaces")
    if n_topics < 1:
        raise LitauditError(f"--topics must be at least 1, got {n_topics}")
    name = (name or cid).strip()
    names = {cid.lower(), name.lower(), *(a.strip().lower() for a in aliases if a.strip())}
    taken = con.execute(
        f"SELECT alias, collection_id FROM collection_aliases WHERE alias IN "
        f"({', '.join('?' * len(names))})",
        sorted(names),
    ).fetchall()
    taken += [
        (i, i)
        for (i,) in con.execute(
            "SELECT id FROM collections WHERE lower(id) = ? OR lower(name) = ?",
            [cid.lower(), name.lower()],
        ).fetchall()
    ]
    if taken:
        a, owner = taken[0]
        raise LitauditError(f"collection {a!r} exists already (collection {owner!r})")
    prov = provenance or (
        f"added by {who} with `litaudit collections add` on {dt.date.today().isoformat()}"
    )
    con.execute(
        "INSERT INTO collections (id, name, title, documents, ir_datasets, notes, "
        "provenance) VALUES (?, ?, ?, ?, ?, NULL, ?)",
        [
            cid,
            name,
            (title or cid).strip(),
            (documents or "not recorded").strip(),
            bool(ir_datasets),
            prov,
        ],
    )
    for alias in sorted(names):
        con.execute(
            "INSERT INTO collection_aliases (alias, collection_id) VALUES (?, ?)", [alias, cid]
        )
    con.execute(
        "INSERT INTO topic_sets (collection_id, name, n_topics, is_default, "
        "description) VALUES (?, 'default', ?, TRUE, ?)",
        [cid, int(n_topics), f"{n_topics} queries ({prov})"],
    )
    return CollectionRef(cid, name, (title or cid).strip(), int(n_topics))


@dataclass(frozen=True, kw_only=True)
class CollectionListing:
    """One row of ``collections list``: a collection, its default topic count (None: no
    default topic set) and how many results it holds."""

    id: str
    name: str
    title: str
    ir_datasets: bool
    n_topics: int | None
    provenance: str | None
    results: int


def list_collections(con: duckdb.DuckDBPyConnection) -> list[CollectionListing]:
    """Every collection with its default topic count and how many results it holds."""
    rows = con.execute(
        "SELECT c.id, c.name, c.title, c.ir_datasets, t.n_topics, c.provenance, "
        " (SELECT count(*) FROM results r WHERE r.collection_id = c.id) AS results "
        "FROM collections c LEFT JOIN topic_sets t ON t.collection_id = c.id AND t.is_default "
        "ORDER BY c.name"
    ).fetchall()
    return [
        CollectionListing(
            id=i, name=n, title=t, ir_datasets=bool(d), n_topics=k, provenance=p, results=r
        )
        for i, n, t, d, k, p, r in rows
    ]


@dataclass(frozen=True, kw_only=True)
class TopicSetListing:
    """One topic set of a collection, as ``collections show`` lists it."""

    name: str
    n_topics: int
    default: bool
    description: str | None


@dataclass(frozen=True, kw_only=True)
class ResultCount:
    """How many (not retracted) results a collection holds for one measure and source."""

    measure: str
    source: str
    count: int


@dataclass(frozen=True, kw_only=True)
class CollectionDetails:
    """One collection as ``collections show`` gives it: its fields, aliases, topic sets
    and results per measure and source."""

    id: str
    name: str
    title: str
    documents: str | None
    ir_datasets: bool
    notes: str | None
    provenance: str | None
    aliases: tuple[str, ...]
    topic_sets: tuple[TopicSetListing, ...]
    results: tuple[ResultCount, ...]

    @property
    def default_topics(self) -> int | None:
        """The query count of its default topic set (None: it has none)."""
        return next((t.n_topics for t in self.topic_sets if t.default), None)


def collection_details(con: duckdb.DuckDBPyConnection, collection_id: str) -> CollectionDetails:
    """One collection: its fields, aliases, topic sets and results per measure and source."""
    c = con.execute(
        "SELECT id, name, title, documents, ir_datasets, notes, provenance "
        "FROM collections WHERE id = ?",
        [collection_id],
    ).fetchone()
    if c is None:
        raise NotFound(f"no collection {collection_id!r}")
    aliases = tuple(
        a
        for (a,) in con.execute(
            "SELECT alias FROM collection_aliases WHERE collection_id = ? ORDER BY alias",
            [collection_id],
        ).fetchall()
    )
    topics = con.execute(
        "SELECT name, n_topics, is_default, description FROM topic_sets "
        "WHERE collection_id = ? ORDER BY name",
        [collection_id],
    ).fetchall()
    per = results_counts.counts_by_measure_and_source(con, collection_id)
    return CollectionDetails(
        id=c[0],
        name=c[1],
        title=c[2],
        documents=c[3],
        ir_datasets=bool(c[4]),
        notes=c[5],
        provenance=c[6],
        aliases=aliases,
        topic_sets=tuple(
            TopicSetListing(name=n, n_topics=k, default=bool(d), description=desc)
            for n, k, d, desc in topics
        ),
        results=tuple(ResultCount(measure=m, source=s, count=n) for m, s, n in per),
    )


def user_collections(
    con: duckdb.DuckDBPyConnection, ids, seeds_dir: Path = SEEDS_DIR
) -> list[dict]:
    """The collections of ``ids`` that the seeds do not define (added with `collections
    add`), as :class:`NewCollection`'s fields (a store folder carries them), by id."""
    seeded = {
        c["id"]
        for c in json.loads((seeds_dir / "collections.json").read_text(encoding="utf-8"))[
            "collections"
        ]
    }
    out = []
    for cid in sorted(set(ids) - seeded):
        d = collection_details(con, cid)
        lower = {cid.lower(), d.name.lower()}
        out.append(
            {
                "id": cid,
                "name": d.name,
                "title": d.title,
                "documents": d.documents,
                "aliases": [a for a in d.aliases if a not in lower],
                "ir_datasets": d.ir_datasets,
                "provenance": d.provenance,
                "n_topics": d.default_topics,
            }
        )
    return out


def names_and_default_topics(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, int | None]]:
    """Every collection's short name and default topic count (None: no default topic
    set), by id."""
    return {
        r[0]: (r[1], r[2])
        for r in con.execute(
            "SELECT c.id, c.name, t.n_topics FROM collections c LEFT JOIN topic_sets t "
            "ON t.collection_id = c.id AND t.is_default"
        ).fetchall()
    }


@dataclass(frozen=True, kw_only=True)
class TopicSet:
    """One row of ``topic_sets``: ``parts`` are the collections an equal-weight mean
    averages (schema 010; empty: none)."""

    collection_id: str
    name: str
    n_topics: int
    is_default: bool
    parts: tuple[str, ...]


def topic_sets(con: duckdb.DuckDBPyConnection, collection_id: str | None = None) -> list[TopicSet]:
    """Every topic set (of ``collection_id`` if given), a collection's default first."""
    where = "" if collection_id is None else " WHERE collection_id = ?"
    rows = con.execute(
        "SELECT collection_id, name, n_topics, is_default, parts FROM topic_sets" + where,
        [] if collection_id is None else [collection_id],
    ).fetchall()
    # sorted here as ORDER BY collection_id, is_default DESC would (stable: ties in
    # the table's order): DuckDB's sort of these ~80 rows cost 0.3 ms of 0.7
    rows.sort(key=lambda r: (r[0], not r[3]))
    return [
        TopicSet(collection_id=c, name=n, n_topics=k, is_default=bool(d), parts=tuple(p or ()))
        for c, n, k, d, p in rows
    ]
