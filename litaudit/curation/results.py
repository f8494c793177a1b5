"""Published results: query, add, edit, verify, retract, history.

Every change goes to ``history`` with who, when, field, old and new value and a reason.
Retracted results stay queryable; audits leave them out by default.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from litaudit.curation import fields as F
from litaudit.curation.importer import apply_plan, plan_import
from litaudit.curation.rows import Row
from litaudit.errors import LitauditError, NotFound
from litaudit.measures import did_you_mean


@dataclass(frozen=True)
class ResultFilter:
    """Filters shared by `results list`, `results export` and the audits."""

    collection: str | None = None
    measure: str | None = None
    role: str | None = None
    status: str | None = None
    source: str | None = None        # paper | official
    years: str | None = None         # 2010 or 2005-2012
    paper: str | None = None         # bibkey
    track: str | None = None
    include_retracted: bool = True


def parse_years(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    parts = text.strip().replace("..", "-").split("-")
    bad = LitauditError(f"--years: expected YEAR or FROM-TO (e.g. 2005-2012), got {text!r}")
    if len(parts) > 2 or not all(p.strip() == "" or (p.strip().isascii() and p.strip().isdigit())
                                 for p in parts) or not any(p.strip() for p in parts):
        raise bad
    try:
        if len(parts) == 1:
            y = F.parse_year(parts[0])
            return y, y
        lo = F.parse_year(parts[0]) if parts[0].strip() else 1950
        hi = F.parse_year(parts[1]) if parts[1].strip() else 2100
    except F.FieldError as e:
        raise LitauditError(f"--years: {e}") from None
    if lo > hi:
        raise LitauditError(f"--years: {text!r} runs backwards (from {lo} to {hi}); "
                            f"did you mean {hi}-{lo}?")
    return lo, hi


def where_clause(con, f: ResultFilter) -> tuple[str, list]:
    """SQL WHERE (on results r LEFT JOIN papers p) for a filter; names resolved by alias."""
    from litaudit.store.refdata import resolve_collection, resolve_measure

    where: list[str] = []
    args: list[object] = []
    if f.collection:
        where.append("r.collection_id = ?")
        args.append(resolve_collection(con, f.collection).id)
    if f.measure:
        where.append("r.measure = ?")
        args.append(resolve_measure(con, f.measure))
    if f.role:
        where.append("r.role = ?")
        args.append(_choice(f.role, F.ROLES, "--role"))
    if f.status:
        where.append("r.status = ?")
        args.append(_choice(f.status, F.STATUSES, "--status"))
    if f.source:
        src = f.source.lower().rstrip("s")  # papers -> paper
        where.append("r.source = ?")
        args.append(_choice(src, F.SOURCES, "--source"))
    yrs = parse_years(f.years)
    if yrs:
        where.append("r.year BETWEEN ? AND ?")
        args.extend(yrs)
    if f.paper:
        where.append("p.bibkey = ?")
        args.append(f.paper)
    if f.track:
        where.append("r.track = ?")
        args.append(f.track)
    if not f.include_retracted:
        where.append("r.status <> 'retracted'")
    return (" WHERE " + " AND ".join(where)) if where else "", args


def _choice(value: str, choices, opt: str) -> str:
    v = value.strip().lower()
    if v not in choices:
        raise LitauditError(f"{opt}: {value!r} is not one of {', '.join(choices)}"
                            f"{did_you_mean(value, choices)}")
    return v


LIST_SQL = """
SELECT r.id, r.source, p.bibkey, p.citation, r.track, c.name AS collection, r.collection_id,
       r.topic_set, r.n_topics, r.measure, r.value, r.value_text, r.system, r.participant,
       r.role, r.run_type, r.year, r.standard, r.location, r.transcribed_by,
       CAST(r.transcribed_at AS VARCHAR) AS transcribed_at, r.status, r.notes,
       p.title AS paper_title, p.authors AS paper_authors, p.venue AS paper_venue,
       p.year AS paper_year, p.doi AS paper_doi, p.url AS paper_url, p.tags AS paper_tags
FROM results r JOIN collections c ON c.id = r.collection_id
LEFT JOIN papers p ON p.id = r.paper_id
"""


def query_results(con, f: ResultFilter, limit: int | None = None) -> list[dict]:
    w, args = where_clause(con, f)
    sql = LIST_SQL + w + " ORDER BY r.collection_id, r.measure, r.year, r.id"
    if limit is not None:
        if limit < 1:
            raise LitauditError(f"--limit must be at least 1, got {limit}")
        sql += f" LIMIT {min(int(limit), 2**62)}"
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def get_result(con, result_id: int) -> dict:
    rows = con.execute(LIST_SQL + " WHERE r.id = ?", [result_id])
    names = [d[0] for d in rows.description]
    row = rows.fetchone()
    if row is None:
        raise NotFound(f"no result with id {result_id}")
    return dict(zip(names, row, strict=True))


def add_result(store, data: dict, *, who: str) -> int:
    """Add one result (fields as in the import format); the same validation as import."""
    from litaudit.errors import Problem, ValidationFailed

    data = {"transcribed_by": who, "transcribed_at": dt.date.today().isoformat(), **data}
    try:
        plan = plan_import(store.con, [Row(1, data)], "")
    except ValidationFailed as exc:   # command-line values: named by their option
        raise ValidationFailed([Problem("", None, p.message, p.field and
                                        "--" + p.field.replace("_", "-"))
                                for p in exc.problems]) from None
    report = apply_plan(store, plan, who=who, reason="added with `results add`", action="create")
    return report.result_ids[0]


# fields that `results edit` may change, with their parsers
def _parse_for_edit(con, fld: str, text: str):
    from litaudit.store.refdata import resolve_collection, resolve_measure

    why = F.check_text(text)
    if why:
        raise F.FieldError(why)
    if fld == "value":
        return F.parse_value(text)
    parsers = {
        "collection": lambda s: resolve_collection(con, s).id,
        "measure": lambda s: resolve_measure(con, s),
        "n_topics": lambda s: F.parse_int(s, "n_topics", minimum=1),
        "year": F.parse_year,
        "role": lambda s: F.parse_choice(s, F.ROLES, "role"),
        "run_type": F.parse_run_type,
        "standard": F.parse_bool,
        "transcribed_at": F.parse_date,
        "system": lambda s: _nonblank(s, "system"),
        "transcribed_by": lambda s: _nonblank(s, "transcribed_by"),
        "participant": F.text_or_none, "topic_set": F.text_or_none,
        "location": F.text_or_none, "notes": F.text_or_none, "track": F.text_or_none,
    }
    if fld not in parsers:
        raise LitauditError(f"field {fld!r} cannot be edited{did_you_mean(fld, list(parsers) + ['value'])}"
                            " (status changes go through verify/retract)")
    return parsers[fld](text)


def _nonblank(s: str, what: str) -> str:
    if F.blank(s):
        raise F.FieldError(f"{what} cannot be empty")
    return s.strip()


_COLUMN = {"collection": "collection_id"}


def edit_result(store, result_id: int, changes: dict[str, str], *, reason: str, who: str) -> list[tuple]:
    """Apply field changes to one result; each goes to history. Returns (field, old, new)."""
    if F.blank(reason):
        raise LitauditError("an edit needs a reason (--reason)")
    if not changes:
        raise LitauditError("nothing to change: give --set FIELD=VALUE")
    con = store.con
    current = get_result(con, result_id)
    updates: dict[str, object] = {}
    log: list[tuple] = []
    for fld, text in changes.items():
        try:
            new = _parse_for_edit(con, fld, text)
        except F.FieldError as e:
            raise LitauditError(f"--set {fld}: {e}") from None
        if fld == "value":
            value, value_text = new
            lo, hi = con.execute("SELECT min_value, max_value FROM measures WHERE name = ?",
                                 [current["measure"]]).fetchone()
            if not lo <= value <= hi:
                raise LitauditError(f"--set value: {value_text} is outside the range of "
                                    f"{current['measure']} [{lo:g}, {hi:g}]")
            if value_text != current["value_text"]:
                updates["value"], updates["value_text"] = value, value_text
                log.append(("value", current["value_text"], value_text))
            continue
        col = _COLUMN.get(fld, fld)
        old = current[col]
        if old != new:
            updates[col] = new
            log.append((fld, _s(old), _s(new)))
    if not updates:
        return []
    if current["status"] == "verified":
        # the verification was of the old values: an edited result is a draft again
        updates["status"] = "draft"
        log.append(("status", "verified", "draft"))
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with store.transaction():
        _update(con, result_id, {**updates, "updated_at": now})
        for fld, old, new in log:
            con.execute("INSERT INTO history (entity, entity_id, action, field, old_value, "
                        "new_value, reason, who, changed_at) VALUES ('result', ?, 'edit', ?, ?, ?, ?, ?, ?)",
                        [result_id, fld, old, new, reason, who, now])
    return log


def _update(con, result_id: int, updates: dict) -> None:
    import duckdb

    sets = ", ".join(f"{c} = ?" for c in updates)
    try:
        con.execute(f"UPDATE results SET {sets} WHERE id = ?", [*updates.values(), result_id])
    except duckdb.ConstraintException as exc:
        raise LitauditError(f"result #{result_id}: the change would duplicate another result "
                            f"({str(exc).splitlines()[0]})") from None


def _s(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def set_status(store, result_id: int, status: str, *, reason: str | None, who: str) -> bool:
    """verify / retract. Returns False when the result already had that status."""
    if status == "retracted" and F.blank(reason):
        raise LitauditError("retracting needs a reason (--reason)")
    con = store.con
    current = get_result(con, result_id)
    if current["status"] == status:
        return False
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    action = {"verified": "verify", "retracted": "retract"}[status]
    with store.transaction():
        _update(con, result_id, {"status": status, "updated_at": now})
        con.execute("INSERT INTO history (entity, entity_id, action, field, old_value, new_value, "
                    "reason, who, changed_at) VALUES ('result', ?, ?, 'status', ?, ?, ?, ?, ?)",
                    [result_id, action, current["status"], status, reason, who, now])
    return True


def history(con, entity: str, entity_id: int) -> list[dict]:
    cur = con.execute(
        "SELECT id, action, field, old_value, new_value, reason, who, "
        "CAST(changed_at AS VARCHAR) AS changed_at FROM history "
        "WHERE entity = ? AND entity_id = ? ORDER BY id", [entity, entity_id])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
