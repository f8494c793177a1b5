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

import csv
import gzip
import io
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.apply import apply_plan
from litaudit.curation.cycles import no_cycle_collection
from litaudit.curation.fields import text_or_none
from litaudit.curation.papers import import_bibtex
from litaudit.curation.plan import ImportProgress, plan_import
from litaudit.curation.rows import read_table
from litaudit.store import history as history_store
from litaudit.store import results_counts, results_write, seeded
from litaudit.store.refdata import SEEDS_DIR, load_reference_data
from litaudit.store.zero_shot import replace_all as replace_zero_shot

if TYPE_CHECKING:
    import duckdb

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


def load_zero_shot(con: duckdb.DuckDBPyConnection, seeds_dir: Path = SEEDS_DIR) -> int:
    """The zero-shot flags of ``seeds/zero_shot.csv.gz`` (what MTEB's model metadata says
    each model was trained on) replace those stored: reference data, which nobody edits.
    The number of rows; 0 when the seeds hold no such file."""

    path = seeds_dir / ZERO_SHOT_FILE
    if not path.is_file():
        return 0
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode("utf-8"))))
    replace_zero_shot(con, rows)
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
    with store.transaction(), no_cycle_collection():
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
    counts = results_counts.counts(store.con)
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
    dated: dict[int, tuple] = {}  # ... and their date, year, location and url
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
            (rid, _text(by_line[line].get("notes")))
            for line, rid in plan.existing
            if rid not in touched
        )
        dated.update(
            (rid, _dated(by_line[line])) for line, rid in plan.existing if rid not in touched
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
    redated = _sync_dated(store.con, dated)
    return {
        "added": added["results"],
        "unchanged": len(held) - updated - len(left) - sync["restored"],
        "updated": updated,
        "notes_updated": renoted,
        "dates_updated": redated,
        "roles_changed": roles_changed,
        **sync,
        "left": sorted(set(sync["left"]) | set(left)),
    }


def _sync_notes(con: duckdb.DuckDBPyConnection, notes: dict[int, str | None]) -> int:
    """The seeds' notes on the rows they hold with the same value and nobody changed (a
    note the seeds added since, e.g. which qrels NIST's DL passage summaries used): one
    UPDATE and one history INSERT (field 'notes'); the number of rows changed."""
    if not notes:
        return 0
    diff = seeded.notes_differing(con, notes)
    if not diff:
        return 0
    now = history_store.now()
    ids, old, new = (list(c) for c in zip(*diff, strict=True))
    results_write.set_many(con, "notes", ids, new, at=now)
    history_store.record_many(
        con,
        ("result", ids),
        "edit",
        field="notes",
        old=old,
        new=new,
        reason="the seeds' note changed: see seeds/README.md",
        who=SEED_USER,
        at=now,
    )
    return len(diff)


def _text(cell) -> str | None:
    """:func:`text_or_none`, a text cell's (a seed file's) at a method call's cost."""
    return (cell.strip() or None) if type(cell) is str else text_or_none(cell)


def _dated(data: dict) -> tuple:
    """A seed row's (date, year, location, url) as the store holds them."""
    year = _text(data.get("year"))
    return (
        _text(data.get("date")),
        int(year) if year is not None else None,
        _text(data.get("location")),
        _text(data.get("url")),
    )


def _sync_dated(con: duckdb.DuckDBPyConnection, dated: dict[int, tuple]) -> int:
    """The seeds' date, year, location and url on the rows they hold with the same value
    and nobody changed (issue 32: Pyserini's reproductions, seeded dated 2026-08-07, the
    day they were read, are now dated by the commits that added their values): one
    UPDATE, and one history INSERT per field that changed; the number of rows changed."""
    diff = seeded.dated_differing(con, dated)
    if not diff:
        return 0
    now = history_store.now()
    results_write.set_dated(con, [(i, new) for i, _, new in diff], at=now)
    for k, field in enumerate(seeded.DATED):
        changed = [(i, old[k], new[k]) for i, old, new in diff if old[k] != new[k]]
        if not changed:
            continue
        ids, old_v, new_v = (list(c) for c in zip(*changed, strict=True))
        history_store.record_many(
            con,
            ("result", ids),
            "edit",
            field=field,
            old=[None if v is None else str(v) for v in old_v],
            new=[None if v is None else str(v) for v in new_v],
            reason=f"the seeds' {field} changed: see seeds/README.md",
            who=SEED_USER,
            at=now,
        )
    return len(diff)


def _change_roles(con: duckdb.DuckDBPyConnection, reasons: list[str]) -> int:
    """:data:`ROLE_CHANGES` on the rows seeded from today's files: one UPDATE and one
    history INSERT per change; the number of rows changed."""
    n = 0
    for track, old, new, why in ROLE_CHANGES:
        ids = seeded.role_changes(con, track, old, new, who=SEED_USER, reasons=reasons)
        if not ids:
            continue
        now = history_store.now()
        results_write.set_many(con, "role", ids, new, at=now)
        history_store.record_many(
            con,
            ("result", ids),
            "edit",
            field="role",
            old=old,
            new=new,
            reason=why,
            who=SEED_USER,
            at=now,
        )
        n += len(ids)
    return n


def _touched(con: duckdb.DuckDBPyConnection) -> set[int]:
    """Results with a history entry by someone other than ``init``: edited, verified,
    retracted or imported over by a user. ``init`` leaves them as they are."""
    return history_store.ids_changed_by_others(con, SEED_USER)


def _seeded_reasons(tables: list) -> list[str]:
    """The history reasons of rows seeded from today's seed files, gzipped or not (a file
    gzipped since keeps its rows): rows seeded from a file that is gone are left alone, so
    that a seeds folder missing a file retracts nothing."""
    names = {p.name.removesuffix(".gz") for p, _ in tables}
    return sorted(SEED_REASON + n + gz for n in names for gz in ("", ".gz"))


def _sync(
    con: duckdb.DuckDBPyConnection,
    held: list[int],
    new: tuple[int, ...] | list[int],
    touched: set[int],
    reasons: list[str],
) -> dict:
    """Rows an earlier ``init`` seeded that the seeds no longer hold are retracted (with
    the reason in the history); rows it retracted that the seeds hold again get their
    status back. Rows a user changed are left as they are and returned (``left``).

    Only rows seeded from one of today's files count (``reasons``). A retracted row's
    reason names the measure the seeds now hold its value under when exactly one seed
    row seeded after it has the same key but the measure and the same value (trec7's
    P@10, now P@15); else :data:`GONE_REASON`."""
    held_ids = [*held, *new]
    gone = seeded.gone(con, held_ids, who=SEED_USER, reasons=reasons)
    held_set = set(held_ids)
    back = [  # retracted by init (the last retraction), held again
        (rid, old) for rid, old in seeded.retracted_by(con, SEED_USER) if rid in held_set
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


def _set_statuses(
    con: duckdb.DuckDBPyConnection, changes: list[tuple[int, str, str, str, str]]
) -> None:
    """(id, action, old status, new status, reason): one UPDATE and one history INSERT."""
    if not changes:
        return
    now = history_store.now()
    ids, actions, old, new, reasons = (list(c) for c in zip(*changes, strict=True))
    results_write.set_many(con, "status", ids, new, at=now)
    order = sorted(range(len(ids)), key=ids.__getitem__)  # the history by id

    def by_id(xs):
        return [xs[i] for i in order]

    history_store.record_many(
        con,
        ("result", by_id(ids)),
        by_id(actions),
        field="status",
        old=by_id(old),
        new=by_id(new),
        reason=by_id(reasons),
        who=SEED_USER,
        at=now,
    )
