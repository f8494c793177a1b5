"""`litaudit init`: reference data, ``seeds/papers/*.csv``, then ``seeds/results/*.csv``.

The seed files are imported through the normal importer (same validation); rows already
present with the same value are skipped, so a second run adds nothing. On a database an
earlier ``init`` seeded, the rows it seeded follow the seeds: one the seeds no longer hold
is retracted (never deleted) with the reason in its history, one they hold with another
value takes it (history: the old value), one it retracted that they hold again gets its
status back; a row anyone else changed since (any history entry not by ``init``) is left
as it is and listed. All in one transaction. The loader reads only ``seeds/`` (never
../shared).
"""

from __future__ import annotations

from pathlib import Path

from litaudit.curation.fields import text_or_none
from litaudit.curation.importer import apply_plan
from litaudit.curation.plan import ImportProgress, plan_import
from litaudit.curation.rows import read_table
from litaudit.store.refdata import SEEDS_DIR, load_reference_data

SEED_USER = "litaudit init"
SEED_REASON = "seeded from seeds/results/"  # + the file's name: the reason of a seeded row
GONE_REASON = "no longer in the seeds: see seeds/README.md"
# Roles the seeds changed, (track, old role, new role, reason): a seeded row of the track
# takes the new role in place (history: `edit` of the role), so that what anyone did to
# it since (a verification, a note) stays with it; a row whose role a user edited, or
# whose new key is taken, is left as it is.
ROLE_CHANGES = tuple(
    (
        track,
        "official",
        "leaderboard",
        "MTEB's results are submissions to a leaderboard, not "
        "a track's official evaluation: role leaderboard (seeds/README.md)",
    )
    for track in ("mteb/retrieval", "mteb/retrieval/derived")
)


def seed_files(seeds_dir: Path = SEEDS_DIR) -> list[Path]:
    d = seeds_dir / "results"
    return sorted([*d.glob("*.csv"), *d.glob("*.csv.gz")])


ZERO_SHOT_FILE = "zero_shot.csv.gz"


def load_zero_shot(con, seeds_dir: Path = SEEDS_DIR) -> int:
    """The zero-shot flags of ``seeds/zero_shot.csv.gz`` (what MTEB's model metadata says
    each model was trained on) replace those stored: reference data, which nobody edits.
    The number of rows; 0 when the seeds hold no such file."""
    import csv
    import gzip
    import io

    path = seeds_dir / ZERO_SHOT_FILE
    if not path.is_file():
        return 0
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode("utf-8"))))
    con.execute("DELETE FROM zero_shot")
    if rows:
        cols = ("system", "collection", "zero_shot", "trained_on", "source")
        values = [[r[c] for r in rows] for c in cols]
        values[2] = [v == "true" for v in values[2]]
        con.execute(
            "INSERT INTO zero_shot (system, collection_id, zero_shot, trained_on, source) "
            "SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::BOOLEAN[]), "
            "nullif(unnest(?::VARCHAR[]), ''), unnest(?::VARCHAR[])",
            values,
        )
    return len(rows)


def load_seeds(
    store,
    seeds_dir: Path = SEEDS_DIR,
    *,
    seeds: bool = True,
    progress: ImportProgress | None = None,
) -> dict:
    """Reference data, then (unless ``seeds=False``) the seed papers and results, and the
    seeded rows brought up to the seeds (:func:`_sync`), all in one transaction;
    ``progress`` is told every seed row, when the files are read, checked and written."""
    added = {"results": 0, "papers": 0}
    files: list[dict] = []
    with store.transaction():
        added.update(load_reference_data(store.con, seeds_dir))
        zero_shot = load_zero_shot(store.con, seeds_dir)
        if not seeds:
            return {
                "path": store.path,
                "added": added,
                "zero_shot": zero_shot,
                "files": files,
                "counts": [],
            }
        sync = _load_files(store, seeds_dir, added, files, progress)
    counts = store.con.execute(
        "SELECT c.name, r.measure, count(*) FILTER (WHERE r.source = 'paper'), "
        "count(*) FILTER (WHERE r.source = 'official') FROM results r "
        "JOIN collections c ON c.id = r.collection_id WHERE r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 1, 2"
    ).fetchall()
    return {
        "path": store.path,
        "added": added,
        "zero_shot": zero_shot,
        "files": files,
        "seeds": sync,
        "counts": [
            {"collection": c, "measure": m, "paper": p, "official": o} for c, m, p, o in counts
        ],
    }


def _load_files(
    store, seeds_dir: Path, added: dict, files: list[dict], progress: ImportProgress | None
) -> dict:
    """The seed papers and results (inside the caller's transaction), then :func:`_sync`."""
    from litaudit.curation.papers import import_bibtex

    for path in sorted((seeds_dir / "papers").glob("*.csv")):
        bib = import_bibtex(store, path, who=SEED_USER, skip_existing=True)
        added["papers"] += bib["added"]
        files.append(
            {"file": f"papers/{path.name}", "added": bib["added"], "skipped": bib["skipped"]}
        )
    tables = [(path, read_table(path)) for path in seed_files(seeds_dir)]
    if progress is not None:
        progress(total=sum(len(t.rows) for _, t in tables))
    roles_changed = _change_roles(store.con, _seeded_reasons(tables))
    touched = _touched(store.con)
    notes: dict[int, str | None] = {}  # the seeds' notes of the rows they hold
    held: list[int] = []  # the database's rows that the seeds hold
    left: list[int] = []  # ... with another value, changed by a user: left as they are
    new: list[int] = []
    updated = 0
    for path, table in tables:
        plan = plan_import(
            store.con,
            table.rows,
            str(path),
            on_existing="same",
            columns=table.columns,
            header_line=table.header_line,
            problems=table.problems,
            progress=progress,
        )
        held += [rid for _, rid in plan.existing]
        by_line = {row.line: row.data for row in table.rows}
        notes.update(
            (rid, text_or_none(by_line[line].get("notes")))
            for line, rid in plan.existing
            if rid not in touched
        )
        for r in plan.differs:  # the seeds' value changed: a row nobody changed follows
            assert r.existing_id is not None  # plan_import names the row it differs from
            held.append(r.existing_id)
            if r.existing_id in touched:
                left.append(r.existing_id)
            else:
                plan.updates.append(r)
        rep = apply_plan(
            store, plan, who=SEED_USER, reason=SEED_REASON + path.name, progress=progress
        )
        new += rep.result_ids
        added["results"] += rep.added_results
        added["papers"] += rep.added_papers
        updated += rep.updated
        files.append(
            {"file": f"results/{path.name}", "added": rep.added_results, "skipped": rep.skipped}
        )
    sync = _sync(store.con, held, new, touched, _seeded_reasons(tables))
    renoted = _sync_notes(store.con, notes)
    return {
        "added": added["results"],
        "unchanged": len(held) - updated - len(left) - sync["restored"],
        "updated": updated,
        "notes_updated": renoted,
        "roles_changed": roles_changed,
        **sync,
        "left": sorted(set(sync["left"]) | set(left)),
    }


def _sync_notes(con, notes: dict[int, str | None]) -> int:
    """The seeds' notes on the rows they hold with the same value and nobody changed (a
    note the seeds added since, e.g. which qrels NIST's DL passage summaries used): one
    UPDATE and one history INSERT (field 'notes'); the number of rows changed."""
    if not notes:
        return 0
    import datetime as dt

    ids, texts = list(notes), list(notes.values())
    pairs = "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS notes"
    diff = con.execute(
        f"SELECT r.id, r.notes, s.notes FROM results r JOIN ({pairs}) s ON s.id = r.id "
        "WHERE r.notes IS DISTINCT FROM s.notes ORDER BY r.id",
        [ids, texts],
    ).fetchall()
    if not diff:
        return 0
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = (
        "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS old, unnest(?::VARCHAR[]) AS new"
    )
    args = [list(c) for c in zip(*diff, strict=True)]
    con.execute(
        f"UPDATE results SET notes = s.new, updated_at = ? FROM ({rows}) s WHERE results.id = s.id",
        [now, *args],
    )
    con.execute(
        "INSERT INTO history (entity, entity_id, action, field, old_value, new_value, "
        "reason, who, changed_at) SELECT 'result', id, 'edit', 'notes', old, new, ?, ?, ? "
        f"FROM ({rows}) ORDER BY id",
        ["the seeds' note changed: see seeds/README.md", SEED_USER, now, *args],
    )
    return len(diff)


def _change_roles(con, reasons: list[str]) -> int:
    """:data:`ROLE_CHANGES` on the rows seeded from today's files: one UPDATE and one
    history INSERT per change; the number of rows changed."""
    import datetime as dt

    n = 0
    for track, old, new, why in ROLE_CHANGES:
        ids = [
            i
            for (i,) in con.execute(
                "SELECT r.id FROM results r WHERE r.track = ? AND r.role = ? "
                "AND r.id IN (SELECT entity_id FROM history WHERE entity = 'result' "
                "AND action = 'import' AND who = ? AND list_contains(?::VARCHAR[], reason)) "
                "AND r.id NOT IN (SELECT entity_id FROM history WHERE entity = 'result' "
                "AND field = 'role' AND who <> ?) "
                "AND NOT EXISTS (SELECT 1 FROM results o WHERE o.source = r.source "
                "AND o.paper_id IS NOT DISTINCT FROM r.paper_id AND o.track = r.track "
                "AND o.collection_id = r.collection_id AND o.n_topics = r.n_topics "
                "AND o.measure = r.measure AND o.system = r.system AND o.role = ?) "
                "ORDER BY r.id",
                [track, old, SEED_USER, reasons, SEED_USER, new],
            ).fetchall()
        ]
        if not ids:
            continue
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        con.execute(
            "UPDATE results SET role = ?, updated_at = ? WHERE id IN (SELECT unnest(?::BIGINT[]))",
            [new, now, ids],
        )
        con.execute(
            "INSERT INTO history (entity, entity_id, action, field, old_value, new_value, "
            "reason, who, changed_at) SELECT 'result', id, 'edit', 'role', ?, ?, ?, ?, ? "
            "FROM (SELECT unnest(?::BIGINT[]) AS id) ORDER BY id",
            [old, new, why, SEED_USER, now, ids],
        )
        n += len(ids)
    return n


def _touched(con) -> set[int]:
    """Results with a history entry by someone other than ``init``: edited, verified,
    retracted or imported over by a user. ``init`` leaves them as they are."""
    return {
        i
        for (i,) in con.execute(
            "SELECT DISTINCT entity_id FROM history WHERE entity = 'result' AND who <> ?",
            [SEED_USER],
        ).fetchall()
    }


def _seeded_reasons(tables: list) -> list[str]:
    """The history reasons of rows seeded from today's seed files, gzipped or not (a file
    gzipped since keeps its rows): rows seeded from a file that is gone are left alone, so
    that a seeds folder missing a file retracts nothing."""
    names = {p.name.removesuffix(".gz") for p, _ in tables}
    return sorted(SEED_REASON + n + gz for n in names for gz in ("", ".gz"))


def _sync(
    con, held: list[int], new: tuple[int, ...] | list[int], touched: set[int], reasons: list[str]
) -> dict:
    """Rows an earlier ``init`` seeded that the seeds no longer hold are retracted (with
    the reason in the history); rows it retracted that the seeds hold again get their
    status back. Rows a user changed are left as they are and returned (``left``).

    Only rows seeded from one of today's files count (``reasons``). A retracted row's
    reason names the measure the seeds now hold its value under when exactly one seed
    row seeded after it has the same key but the measure and the same value (trec7's
    P@10, now P@15); else :data:`GONE_REASON`."""
    held_ids = [*held, *new]  # a list parameter: Arrow from a list imports pandas
    seeded = (
        "WITH held AS (SELECT unnest(?::BIGINT[]) AS id), "
        "seeded AS (SELECT DISTINCT entity_id AS id FROM history "
        "WHERE entity = 'result' AND action = 'import' AND who = ? "
        "AND list_contains(?::VARCHAR[], reason)) "
    )
    gone = con.execute(
        seeded + "SELECT r.id, r.status, CASE WHEN count(DISTINCT n.measure) = 1 "
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
        [held_ids, SEED_USER, reasons],
    ).fetchall()
    held_set = set(held_ids)
    back = [  # retracted by init (the last retraction), held again
        (rid, old)
        for rid, old in con.execute(
            "SELECT r.id, h.old_value FROM results r JOIN history h ON h.entity = 'result' "
            "AND h.entity_id = r.id AND h.action = 'retract' AND h.who = ? "
            "WHERE r.status = 'retracted' "
            "QUALIFY row_number() OVER (PARTITION BY r.id ORDER BY h.id DESC) = 1",
            [SEED_USER],
        ).fetchall()
        if rid in held_set
    ]
    changes = [
        (
            rid,
            "retract",
            status,
            "retracted",
            GONE_REASON
            if measure is None
            else f"no longer in the seeds, which hold this value as {measure} "
            f"(result #{other}): see seeds/README.md",
        )
        for rid, status, measure, other in gone
        if rid not in touched
    ] + [
        (rid, "edit", "retracted", old or "draft", "back in the seeds: see seeds/README.md")
        for rid, old in back
        if rid not in touched
    ]
    _set_statuses(con, changes)
    return {
        "retracted": sum(c[1] == "retract" for c in changes),
        "restored": sum(c[1] == "edit" for c in changes),
        "left": [rid for rid, *_ in gone if rid in touched],
    }


def _set_statuses(con, changes: list[tuple[int, str, str, str, str]]) -> None:
    """(id, action, old status, new status, reason): one UPDATE and one history INSERT."""
    if not changes:
        return
    import datetime as dt

    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    ids, actions, old, new, reasons = (list(c) for c in zip(*changes, strict=True))
    # list parameters, unnested side by side (Arrow from lists imports pandas)
    rows = (
        "SELECT unnest(?::BIGINT[]) AS id, unnest(?::VARCHAR[]) AS action, "
        "unnest(?::VARCHAR[]) AS old, unnest(?::VARCHAR[]) AS new, "
        "unnest(?::VARCHAR[]) AS reason"
    )
    args = [ids, actions, old, new, reasons]
    con.execute(
        f"UPDATE results SET status = s.new, updated_at = ? FROM ({rows}) s "
        "WHERE results.id = s.id",
        [now, *args],
    )
    con.execute(
        "INSERT INTO history (entity, entity_id, action, field, old_value, new_value, "
        f"reason, who, changed_at) SELECT 'result', id, action, 'status', old, new, "
        f"reason, ?, ? FROM ({rows}) ORDER BY id",
        [SEED_USER, now, *args],
    )
