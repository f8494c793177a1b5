"""The curation export: papers, results and their history in one JSON object, the lossless
form of `results export` (docs/DEVELOPING.md, "Curation export").

``{"format": "litaudit-curation", "version": 1, "papers": [...], "results": [...],
"history": [...]}``: ``results`` are rows of the results import format (plus their
``created_at`` and ``updated_at``); ``papers`` every paper with its notes (results or
not); ``history`` every change, in order, naming a result by its position in
``results`` (from 1) or a paper by its bibkey. Importing it into a database without these
rows reproduces all of it digit for digit; rows already present (by their natural key,
papers by bibkey) are failed, skipped or updated as ``--on-existing`` says, and only the
history of the rows the import creates is copied.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import TYPE_CHECKING

from litaudit.curation import fields as field_parsers
from litaudit.curation.apply import apply_plan
from litaudit.curation.export import export_row
from litaudit.curation.fields import PAPER_KEYS
from litaudit.curation.filters import CURATION
from litaudit.curation.plan import ImportProgress, plan_import
from litaudit.curation.results import query_results
from litaudit.curation.rows import Table
from litaudit.curation.rows_json import DUPLICATES
from litaudit.errors import Problem, ValidationFailed
from litaudit.measures import did_you_mean
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store import results as result_store

if TYPE_CHECKING:
    import duckdb

FORMAT = "litaudit-curation"
VERSION = 1
HISTORY_KEYS = (
    "entity",
    "result",
    "paper",
    "action",
    "field",
    "old_value",
    "new_value",
    "reason",
    "who",
    "changed_at",
)
ACTIONS = history_store.ACTIONS


def _ts(v) -> str | None:
    return None if v is None else str(v)


def export_bundle(con: duckdb.DuckDBPyConnection, f) -> dict:
    """Papers, results (filtered by ``f``) and their history as one JSON-ready object."""

    results = query_results(con, f)
    times = result_store.times(con)
    rows, position = [], {}
    for i, r in enumerate(results, start=1):
        row = export_row(r)
        row["created_at"], row["updated_at"] = times[r.id]
        rows.append(row)
        position[r.id] = i

    filtered = f != CURATION
    papers = paper_store.every(con, PAPER_KEYS[:-1], order="id")
    if filtered:
        used = {r.bibkey for r in results if r.bibkey}
        papers = [p for p in papers if p[1] in used]
    bibkey = {p[0]: p[1] for p in papers}
    history = []
    for _id, entity, entity_id, action, fld, old, new, reason, who, at in history_store.every(con):
        if entity == "result" and entity_id in position:
            ref = {"result": position[entity_id]}
        elif entity == "paper" and entity_id in bibkey:
            ref = {"paper": bibkey[entity_id]}
        else:
            continue
        history.append(
            {
                "entity": entity,
                **ref,
                "action": action,
                "field": fld,
                "old_value": old,
                "new_value": new,
                "reason": reason,
                "who": who,
                "changed_at": at,
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "papers": [dict(zip(PAPER_KEYS, p[1:], strict=True)) for p in papers],
        "results": rows,
        "history": history,
    }


def _list(b: dict, key: str, name: str, problems: list[Problem]) -> list:
    v = b.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        problems.append(Problem(name, None, f'"{key}" must be a list of objects', key))
        return []
    for i, x in enumerate(v, start=1):
        for k in x.pop(DUPLICATES, []):
            problems.append(Problem(name, None, f"{key}[{i}]: key {k!r} appears twice", k))
    return v


def read_papers(b: dict, name: str, problems: list[Problem]) -> list[dict]:
    """The papers of a curation export (``b["papers"]``), each checked: a paper with a
    problem is left out and its problems added to ``problems``."""
    out = []
    for i, p in enumerate(_list(b, "papers", name, problems), start=1):
        where = f"papers[{i}]"
        n0 = len(problems)

        def bad(msg, fld=None, _w=where):
            problems.append(Problem(name, None, f"{_w}: {msg}", fld))

        for k in p:
            if k not in PAPER_KEYS:
                bad(f"unknown key {k!r}{did_you_mean(k, PAPER_KEYS)}", k)
        vals = {k: p.get(k) for k in PAPER_KEYS}
        for k, v in vals.items():
            if v is not None and not isinstance(v, str) and not (k == "year"):
                bad("must be text", k)
            elif field_parsers.check_text(v):
                bad(field_parsers.check_text(v), k)
        if field_parsers.blank(vals["bibkey"]) or field_parsers.blank(vals["citation"]):
            bad("a paper needs a bibkey and a citation")
        try:
            vals["year"] = (
                None
                if field_parsers.blank(vals["year"])
                else field_parsers.parse_year(vals["year"])
            )
            vals["created_at"] = (
                None
                if field_parsers.blank(vals["created_at"])
                else field_parsers.parse_timestamp(vals["created_at"], "created_at")
            )
        except field_parsers.FieldError as e:
            bad(str(e))
        try:
            vals["url"] = field_parsers.parse_url(vals["url"])
        except field_parsers.FieldError as e:
            bad(str(e), "url")
        if len(problems) == n0:
            out.append(vals)
    return out


def apply_bundle(
    store,
    table: Table,
    name: str,
    *,
    who: str,
    on_existing: str,
    progress: ImportProgress | None = None,
):
    """Import a curation export (inside the caller's transaction). Returns (report, plan).
    ``progress``: see :class:`~litaudit.curation.plan.ImportProgress`."""
    b = table.bundle or {}
    con = store.con
    problems = list(table.problems)
    if b.get("format") not in (None, FORMAT) or str(b.get("version", VERSION)) != str(VERSION):
        raise ValidationFailed(
            [
                Problem(
                    name,
                    None,
                    f"not a {FORMAT} export of version "
                    f"{VERSION} (format {b.get('format')!r}, version "
                    f"{b.get('version')!r})",
                )
            ]
        )
    for k in b.pop(DUPLICATES, []):
        problems.append(Problem(name, None, f"key {k!r} appears twice", k))
    for k in b:
        if k not in ("format", "version", "papers", "results", "history"):
            problems.append(Problem(name, None, f"unknown key {k!r}", k))
    papers = read_papers(b, name, problems)
    history = _list(b, "history", name, problems)
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    existing = paper_store.by_bibkey(con, PAPER_KEYS[1:-1])
    seen = _check_papers(papers, existing, name, on_existing, problems)
    if problems:
        raise ValidationFailed(problems)
    new_papers = _write_papers(con, papers, existing, name, on_existing, who, now)
    # results: the papers above exist now, so rows name them by bibkey alone
    raw = b.get("results") or []
    times, time_problems = _result_times(table.rows, raw, name, now)
    plan = plan_import(
        con,
        table.rows,
        name,
        on_existing=on_existing,
        columns=None,
        problems=time_problems,
        progress=progress,
    )
    # a curation export brings its own history; a bare {"results": [...]} gets "import"
    report = apply_plan(
        store, plan, who=who, record="history" not in b, times=times, progress=progress
    )
    ids = {}  # position in the results list (as the history refers to it) -> result id
    index_of = {row.line: row.index or 0 for row in table.rows}  # (JSON rows all have one)
    for r, rid in zip(plan.results, report.result_ids, strict=True):
        ids[index_of[r.line]] = rid
    hist_problems, pending = _history_rows(history, raw, ids, new_papers, seen, name)
    if hist_problems:
        raise ValidationFailed(hist_problems)
    history_store.record_rows(con, pending)

    report = dataclasses.replace(
        report, added_papers=report.added_papers + len(new_papers), history=len(pending)
    )
    return report, plan


def _check_papers(
    papers: list[dict], existing: dict, name: str, on_existing: str, problems: list[Problem]
) -> set[str]:
    """The bundle's bibkeys; a paper given twice, or (on_existing="fail") already stored
    with other values, is a problem."""
    seen: set[str] = set()
    for p in papers:
        key = p["bibkey"]
        if key in seen:
            problems.append(Problem(name, None, f"paper {key!r} appears twice", "bibkey"))
            continue
        seen.add(key)
        old = existing.get(key)
        if old is None:
            continue
        changed = {k: p[k] for k in PAPER_KEYS[1:-1] if p[k] != old[k]}
        if changed and on_existing == "fail":
            problems.append(
                Problem(
                    name,
                    None,
                    f"paper {key!r} is already in the database "
                    f"with other {', '.join(changed)}; use --on-existing "
                    "skip or update",
                    "bibkey",
                )
            )
    return seen


def _write_papers(
    con: duckdb.DuckDBPyConnection,
    papers: list[dict],
    existing: dict,
    name: str,
    on_existing: str,
    who: str,
    now: dt.datetime,
) -> dict[str, int]:
    """Insert the new papers (bibkey -> new id returned); with on_existing="update", write
    a stored paper's changed fields, each in the history."""
    new = [p for p in papers if p["bibkey"] not in existing]
    ids = paper_store.insert_many(con, new, at=now)
    if on_existing == "update":
        for p in papers:
            old = existing.get(p["bibkey"])
            if old is None:
                continue
            changed = {k: p[k] for k in PAPER_KEYS[1:-1] if p[k] != old[k]}
            paper_store.update(con, old["id"], changed)
            history_store.record_many(
                con,
                ("paper", [old["id"]] * len(changed)),
                "edit",
                field=list(changed),
                old=[history_store.text(old[k]) for k in changed],
                new=[history_store.text(v) for v in changed.values()],
                reason=f"updated from {name}",
                who=who,
                at=now,
            )
    return {p["bibkey"]: i for p, i in zip(new, ids, strict=True)}


def _result_times(
    rows: list, raw: list, name: str, now: dt.datetime
) -> tuple[dict[int, tuple], list[Problem]]:
    """Each result row's (created_at, updated_at) when the bundle gives them (line ->
    times), and the problems with them."""
    times, time_problems = {}, []
    for row in rows:
        x = raw[row.index - 1] if row.index is not None and row.index - 1 < len(raw) else {}
        try:
            c = x.get("created_at")
            u = x.get("updated_at")
            if c is not None or u is not None:
                c = field_parsers.parse_timestamp(c, "created_at") if c is not None else now
                u = field_parsers.parse_timestamp(u, "updated_at") if u is not None else c
                times[row.line] = (c, u)
        except field_parsers.FieldError as e:
            time_problems.append(Problem(name, row.line, str(e)))
    return times, time_problems


def _history_rows(
    history: list,
    raw: list,
    ids: dict[int, int],
    new_papers: dict[str, int],
    seen: set[str],
    name: str,
) -> tuple[list[Problem], list[tuple]]:
    """The history entries' problems, and the rows to insert for the results and papers
    this import added (a row that was there already keeps its own history)."""
    hist_problems: list[Problem] = []
    pending: list[tuple] = []
    for i, h in enumerate(history, start=1):
        where = f"history[{i}]"
        unknown = [k for k in h if k not in HISTORY_KEYS]
        if unknown:
            hist_problems.append(Problem(name, None, f"{where}: unknown key {unknown[0]!r}"))
            continue
        entity = h.get("entity")
        if entity == "result":
            pos = h.get("result")
            if (
                not isinstance(pos, str)
                or not pos.isascii()
                or not pos.isdigit()
                or not 1 <= int(pos) <= len(raw)
            ):
                hist_problems.append(
                    Problem(
                        name,
                        None,
                        f'{where}: "result" must be a position in results (1 to {len(raw)})',
                    )
                )
                continue
            eid = ids.get(int(pos))
        elif entity == "paper":
            eid = new_papers.get(h.get("paper")) if isinstance(h.get("paper"), str) else None
            if h.get("paper") not in seen:
                hist_problems.append(
                    Problem(
                        name, None, f"{where}: paper {h.get('paper')!r} is not among the papers"
                    )
                )
                continue
        else:
            hist_problems.append(Problem(name, None, f"{where}: entity must be result or paper"))
            continue
        if h.get("action") not in ACTIONS:
            hist_problems.append(
                Problem(name, None, f"{where}: action must be one of {', '.join(ACTIONS)}")
            )
            continue
        texts = [h.get(k) for k in ("field", "old_value", "new_value", "reason", "who")]
        if any(
            t is not None and (not isinstance(t, str) or field_parsers.check_text(t)) for t in texts
        ) or field_parsers.blank(h.get("who")):
            hist_problems.append(
                Problem(
                    name,
                    None,
                    f"{where}: field, old_value, new_value, "
                    "reason and who must be text (who not empty)",
                )
            )
            continue
        try:
            at = field_parsers.parse_timestamp(h.get("changed_at"), "changed_at")
        except field_parsers.FieldError as e:
            hist_problems.append(Problem(name, None, f"{where}: {e}"))
            continue
        if eid is None:  # a row that was there already keeps its own history
            continue
        pending.append((entity, eid, h["action"], *texts, at))
    return hist_problems, pending
