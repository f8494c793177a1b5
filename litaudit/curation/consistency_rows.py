"""The value consistency check (:mod:`litaudit.curation.consistency`) fed from an import
file's rows, a store folder, or the whole store.

- :func:`row_findings`: the rows of a file as `results import` reads them, each finding
  at its file and line (`results import --consistency flag|refuse|off`);
- :func:`folder_findings`: every file of a store folder (`check --consistency`);
- :func:`store_findings`: every result in the store that is not retracted (`results
  consistency`), each finding with its result id and location; a result whose notes
  hold ``consistency:`` (a curator's word: corrected with a reason, or checked against
  the paper and left as published) is reported as curated, not open.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.consistency import Finding, Value, check_values
from litaudit.curation.import_context import Context
from litaudit.curation.rows import Row
from litaudit.curation.tree_read import TreeRead, read_tree
from litaudit.errors import LitauditError, Problem
from litaudit.measures import parse_measure
from litaudit.store.consistency import check_rows
from litaudit.store.db import open_store
from litaudit.store.refdata import SEEDS_DIR, load_reference_data

if TYPE_CHECKING:
    import duckdb

CONSISTENCY_MODES = ("flag", "refuse", "off")
ANNOTATION = "consistency:"  # in a result's notes: the finding was curated


def values_of_rows(
    con: duckdb.DuckDBPyConnection,
    rows: Sequence[Row],
    file: str,
    group: tuple = (),
    ctx: Context | None = None,
) -> list[Value]:
    """The rows as the check sees them: measures canonical, topic counts from the
    collection's topic set where the row leaves them out. Rows that do not parse are left
    to the import's own problems. ``ctx``: the look-ups of ``con`` (collection names,
    topic sets), read once for many calls."""

    if ctx is None:
        ctx = Context(con)
    out: list[Value] = []
    for row in rows:
        d = row.data
        try:
            measure = str(parse_measure(str(d.get("measure") or "")))
            cid = ctx.collections.resolve(str(d.get("collection") or ""))
        except LitauditError:
            continue
        value = str(d.get("value") or "").strip()
        if not value:
            continue
        n = _topics(ctx, d, cid)
        out.append(
            Value(
                where=f"{file}:{row.line}",
                group=(
                    *group,
                    str(d.get("source") or "").strip(),
                    str(d.get("paper") or "").strip(),
                    str(d.get("track") or "").strip(),
                    cid,
                    n,
                    str(d.get("system") or "").strip(),
                    str(d.get("role") or "").strip(),
                ),
                measure=measure,
                value=value,
                n_topics=n,
            )
        )
    return [v for v in out if _number(v.value)]


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.replace(".", "", 1).isdigit()


def _topics(ctx, d: dict, cid: str) -> int | None:
    raw = str(d.get("n_topics") or "").strip()
    if raw.isdigit():
        return int(raw)
    ts = str(d.get("topic_set") or "").strip()
    if ts and (cid, ts) in ctx.topic_sets:
        return int(ctx.topic_sets[(cid, ts)])
    if cid in ctx.default_topics:
        return int(ctx.default_topics[cid][1])
    return None


def row_findings(
    con: duckdb.DuckDBPyConnection, rows: Sequence[Row], file: str, ctx: Context | None = None
) -> list[Finding]:
    """The findings of one import file's rows; ``ctx``: the look-ups of ``con`` (the
    import's plan's, read once for both)."""
    return check_values(values_of_rows(con, rows, file, ctx=ctx))


def as_problems(findings: Sequence[Finding]) -> list[Problem]:
    """Findings as import problems (``--consistency refuse``): file, line, message."""
    out = []
    for f in findings:
        file, _, line = f.where.rpartition(":")
        msg = f.line().split(": ", 1)[1]
        if f.other:
            msg += f" [other value: {f.other}]"
        out.append(Problem(file, int(line) if line.isdigit() else None, msg, "value"))
    return out


def folder_findings(folder: Path, read: TreeRead | None = None, reference=None) -> list[Finding]:
    """The findings of every file of a store folder (each file its own group); ``read``:
    the folder as :func:`~litaudit.curation.tree_read.read_tree` read it (else it is read);
    ``reference``: an open store holding only the reference data (else one is made)."""

    files, _problems, _manifest = read if read is not None else read_tree(folder)
    if reference is None:
        with open_store(":memory:") as store:
            load_reference_data(store.con)
            return folder_findings(folder, (files, _problems, _manifest), store)
    out: list[Finding] = []
    con = reference.con
    ctx = Context(con)  # the reference data's look-ups, once for every file
    for tf in files:
        out += check_values(values_of_rows(con, tf.rows, tf.path, (tf.path,), ctx))
    return out


@dataclass(frozen=True, kw_only=True)
class StoreFinding:
    """A finding on a stored result: its id, where it was read from, and whether a
    curator has annotated it (notes holding ``consistency:``)."""

    result_id: int
    location: str
    collection: str
    system: str
    finding: Finding
    curated: str  # the annotation, "" when open


SEED_ANNOTATIONS = "consistency.csv"  # in the seeds folder: the seeds' curated findings


def seed_annotations(seeds_dir: Path | None = None) -> dict[tuple[str, str, str, str], str]:
    """The curated findings of the seeds (``seeds/consistency.csv``): (location, system,
    measure, value) -> "consistency: <verdict>: <reason>"."""

    if seeds_dir is None:
        seeds_dir = SEEDS_DIR
    path = Path(seeds_dir) / SEED_ANNOTATIONS
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as f:
        return {
            (r["location"], r["system"], r["measure"], r["value"]): (
                f"{ANNOTATION} {r['verdict']}: {r['reason']} (seeds/{SEED_ANNOTATIONS})"
            )
            for r in csv.DictReader(f)
        }


def store_findings(
    con: duckdb.DuckDBPyConnection,
    *,
    include_curated: bool = True,
    annotations: dict[tuple[str, str, str, str], str] | None = None,
) -> list[StoreFinding]:
    """Every finding over the store's results that are not retracted, in id order.
    ``annotations``: curated findings by (location, system, measure, value), as
    :func:`seed_annotations` reads them (a result's own notes are read too)."""
    annotations = annotations or {}

    rows = check_rows(con)
    info = {}
    values = []
    for rid, source, bib, track, cid, n, measure, text, system, role, loc, notes in rows:
        where = f"result #{rid}"
        note = _annotation(notes) or annotations.get((loc, system, measure, text), "")
        info[where] = (rid, loc, cid, system, note)
        values.append(
            Value(
                where=where,
                group=(source, bib, track, cid, n, system, role),
                measure=measure,
                value=text,
                n_topics=n,
            )
        )
    out = []
    for f in check_values(values):
        rid, loc, cid, system, curated = info[f.where]
        if f.other and not curated:
            curated = info[f.other][4]
        if curated and not include_curated:
            continue
        out.append(
            StoreFinding(
                result_id=rid,
                location=loc,
                collection=cid,
                system=system,
                finding=f,
                curated=curated,
            )
        )
    return out


def _annotation(notes: str) -> str:
    i = notes.find(ANNOTATION)
    return notes[i:].split(";", 1)[0].strip() if i >= 0 else ""
