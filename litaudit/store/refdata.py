"""Reference data: collections (with aliases and topic sets) and measures.

Loaded from ``seeds/collections.json`` and the measure registry by ``litaudit init``;
``collections add`` adds any other. A collection is resolved by its id, name or any alias
by :class:`~litaudit.store.collection_names.CollectionNames`, the one resolver every
command uses (:func:`resolve_collection` reads it and the collection's row).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from litaudit.errors import LitauditError, NotFound
from litaudit.measures import DEFAULT_MEASURES, FAMILIES, aliases_for, did_you_mean, parse_measure
from litaudit.resources import data_dir
from litaudit.store.collection_names import CollectionNames

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
    have = con.execute("SELECT list(id), list(name) FROM collections").fetchone()
    present = set(have[0] or ()) | set(have[1] or ())
    colls: list[list] = []
    aliases: dict[str, str] = {}
    topic_sets: list[list] = []
    old_aliases: dict[str, str] = {}
    for c in data["collections"]:
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
        _insert_columns(
            con,
            "collections (id, name, title, documents, ir_datasets, notes, provenance)",
            colls,
            conflict="",
        )
        _insert_aliases(con, aliases)
        if topic_sets:
            _insert_columns(
                con,
                "topic_sets (collection_id, name, n_topics, is_default, description, parts)",
                topic_sets,
                conflict="",
            )
    if old_aliases:
        _insert_aliases(con, old_aliases)
    added["collections"] += len(colls)
    _load_pool_depths(con, data["collections"])
    added["measures"] += ensure_measures(con, DEFAULT_MEASURES)
    _load_reference_noise(con, seeds_dir)
    return added


def _insert_aliases(con, aliases: dict[str, str]) -> None:
    """Aliases (lower-case alias -> collection id); an alias present already is kept."""
    _insert_columns(
        con,
        "collection_aliases (alias, collection_id)",
        [list(kv) for kv in aliases.items()],
        conflict=" ON CONFLICT DO NOTHING",
    )


def _load_pool_depths(con, collections: list[dict]) -> None:
    """The pool depths of the file's collections (schema 005), present before or not."""
    depths = [
        [c["id"], c["pool_depth"]["depth"], c["pool_depth"]["source"]]
        for c in collections
        if "pool_depth" in c
    ]
    if depths:
        _insert_columns(
            con, "pool_depths (collection_id, depth, source)", depths, " ON CONFLICT DO NOTHING"
        )


def _load_reference_noise(con, seeds_dir: Path) -> None:
    """The reference noise of seeds/reference_noise.json (schema 012; derived by
    seeds/noise.py): the file's rows replace the seeded ones (derived figures, which
    nobody edits)."""
    path = seeds_dir / "reference_noise.json"
    if not path.exists():
        return
    rows = json.loads(path.read_text(encoding="utf-8"))["noise"]
    con.execute("DELETE FROM reference_noise")
    if not rows:
        return
    cols = ("collection_id", "measure", "n_topics", "n_runs", "se", "ms_interaction", "mean")
    types = ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "DOUBLE", "DOUBLE", "DOUBLE")
    sel = ", ".join(f"unnest(?::{t}[])" for t in (*types, "DOUBLE[]", "VARCHAR"))
    con.execute(
        f"INSERT INTO reference_noise ({', '.join(cols)}, residual_sds, source) SELECT {sel}",
        [[r[c] for r in rows] for c in (*cols, "residual_sds", "source")],
    )


@dataclass(frozen=True)
class ReferenceNoise:
    """A seeded reference noise (schema 012): the interaction se of one run's mean over
    ``n_topics`` topics, each run's residual sd, and where they were measured."""

    collection_id: str
    measure: str
    n_topics: int
    n_runs: int
    se: float
    ms_interaction: float
    mean: float
    residual_sds: tuple[float, ...]
    source: str


def reference_noise(con) -> dict[tuple[str, str, int], ReferenceNoise]:
    """Every stored reference noise by (collection id, measure, topics), read at once."""
    out = {}
    for row in con.execute(
        "SELECT collection_id, measure, n_topics, n_runs, se, ms_interaction, mean, "
        "residual_sds, source FROM reference_noise"
    ).fetchall():
        cid, measure, n, k, se, ms, mean, sds, source = row
        rn = ReferenceNoise(
            collection_id=cid,
            measure=measure,
            n_topics=n,
            n_runs=k,
            se=se,
            ms_interaction=ms,
            mean=mean,
            residual_sds=tuple(float(v) for v in sds),
            source=source,
        )
        out[(rn.collection_id, rn.measure, rn.n_topics)] = rn
    return out


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


def _insert_columns(con, target: str, rows: list[list], conflict: str) -> None:
    cols = list(zip(*rows, strict=True))
    sel = ", ".join(f"unnest(?::{t})" for t in _column_types(cols))
    con.execute(f"INSERT INTO {target} SELECT {sel}{conflict}", [list(c) for c in cols])


def _column_types(cols) -> list[str]:
    out = []
    for col in cols:
        kinds = {type(v) for v in col if v is not None}
        out.append(
            "BOOLEAN[]"
            if kinds == {bool}
            else "BIGINT[]"
            if kinds == {int}
            else "VARCHAR[][]"
            if kinds == {list}
            else "VARCHAR[]"
        )
    return out


def ensure_measures(con, names) -> int:
    """Register the measures ``names`` (by any spelling) that are absent, with their
    aliases, in one statement per table. Returns how many were added."""
    have = set(con.execute("SELECT list(name) FROM measures").fetchone()[0] or ())
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
        _insert_columns(
            con,
            "measure_aliases (alias, measure)",
            [list(kv) for kv in dict(reversed(aliases)).items()],  # an alias once, its first
            conflict=" ON CONFLICT DO NOTHING",
        )
    return len(rows)


_REF_SQL = (
    "SELECT c.id, c.name, c.title, t.n_topics FROM collections c "
    "LEFT JOIN topic_sets t ON t.collection_id = c.id AND t.is_default WHERE c.id = ?"
)


def resolve_collection(con, name: str) -> CollectionRef:
    """A collection by any name :class:`CollectionNames` accepts; a miss suggests the
    collections the name could mean."""
    cid = CollectionNames.load(con).resolve(name)
    return CollectionRef(*con.execute(_REF_SQL, [cid]).fetchone())


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


def add_collection(con, new: NewCollection, *, who: str = "unknown") -> CollectionRef:
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


def pool_depth(con, collection_id: str) -> tuple[int, str] | None:
    """The recorded pool depth of a collection and its source (None: not recorded)."""
    row = con.execute(
        "SELECT depth, source FROM pool_depths WHERE collection_id = ?", [collection_id]
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def resolve_measure(con, name: str) -> str:
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


def list_collections(con) -> list[dict]:
    """Every collection with its default topic count and how many results it holds."""
    cur = con.execute(
        "SELECT c.id, c.name, c.title, c.ir_datasets, t.n_topics, c.provenance, "
        " (SELECT count(*) FROM results r WHERE r.collection_id = c.id) AS results "
        "FROM collections c LEFT JOIN topic_sets t ON t.collection_id = c.id AND t.is_default "
        "ORDER BY c.name"
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def collection_details(con, collection_id: str) -> dict:
    """One collection: its fields, aliases, topic sets and results per measure and source."""
    c = con.execute(
        "SELECT id, name, title, documents, ir_datasets, notes, provenance "
        "FROM collections WHERE id = ?",
        [collection_id],
    ).fetchone()
    if c is None:
        raise NotFound(f"no collection {collection_id!r}")
    aliases = [
        a
        for (a,) in con.execute(
            "SELECT alias FROM collection_aliases WHERE collection_id = ? ORDER BY alias",
            [collection_id],
        ).fetchall()
    ]
    topics = con.execute(
        "SELECT name, n_topics, is_default, description FROM topic_sets "
        "WHERE collection_id = ? ORDER BY name",
        [collection_id],
    ).fetchall()
    per = con.execute(
        "SELECT measure, source, count(*) FROM results WHERE collection_id = ? "
        "AND status <> 'retracted' GROUP BY ALL ORDER BY 1, 2",
        [collection_id],
    ).fetchall()
    keys = ("id", "name", "title", "documents", "ir_datasets", "notes", "provenance")
    return {
        **dict(zip(keys, c, strict=True)),
        "aliases": aliases,
        "topic_sets": [
            {"name": t[0], "n_topics": t[1], "default": t[2], "description": t[3]} for t in topics
        ],
        "results": [{"measure": m, "source": s, "count": n} for m, s, n in per],
    }


def measures_held(con, collection_id: str) -> dict[str, int]:
    """The measures a collection holds results in (not retracted), most results first."""
    rows = con.execute(
        "SELECT measure, count(*) FROM results WHERE collection_id = ? AND status <> "
        "'retracted' GROUP BY measure ORDER BY 2 DESC, 1",
        [collection_id],
    ).fetchall()
    return dict(rows)


def collections_holding(con, measure: str) -> list[tuple[str, str, int]]:
    """(short name, id, results) of the collections that hold ``measure`` (results not
    retracted), most results first."""
    return con.execute(
        "SELECT c.name, c.id, count(*) FROM results r JOIN collections c "
        "ON c.id = r.collection_id WHERE r.measure = ? AND r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 3 DESC, 1",
        [measure],
    ).fetchall()


def list_measures(con) -> list[dict]:
    """The registered measures with their aliases and value ranges."""
    rows = con.execute(
        "SELECT m.name, m.family, m.cutoff, m.min_value, m.max_value, m.description, "
        " string_agg(a.alias, ', ' ORDER BY a.alias) FROM measures m "
        "LEFT JOIN measure_aliases a ON a.measure = m.name GROUP BY ALL "
        "ORDER BY m.family, m.cutoff NULLS FIRST"
    ).fetchall()
    return [
        {
            "name": r[0],
            "family": r[1],
            "cutoff": r[2],
            "min": r[3],
            "max": r[4],
            "description": r[5],
            "aliases": (r[6] or "").split(", "),
        }
        for r in rows
    ]


def user_collections(con, ids, seeds_dir: Path = SEEDS_DIR) -> list[dict]:
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
        default = [t["n_topics"] for t in d["topic_sets"] if t["default"]]
        lower = {cid.lower(), str(d["name"]).lower()}
        out.append(
            {
                "id": cid,
                "name": d["name"],
                "title": d["title"],
                "documents": d["documents"],
                "aliases": [a for a in d["aliases"] if a not in lower],
                "ir_datasets": bool(d["ir_datasets"]),
                "provenance": d["provenance"],
                "n_topics": default[0] if default else None,
            }
        )
    return out
