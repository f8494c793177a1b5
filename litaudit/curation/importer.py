"""Results import: read CSV / JSON / Parquet, validate the whole file, then write all or nothing.

Every problem in a file is collected (with its line) before anything is written; a file
with any problem raises :class:`~litaudit.errors.ValidationFailed` and changes nothing.
Papers named by a new bibkey are created from the row's ``paper_*`` columns.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from litaudit.curation import fields as F
from litaudit.curation.rows import Row
from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed
from litaudit.measures import did_you_mean, parse_measure

PAPER_FIELDS = ("citation", "title", "authors", "venue", "year", "doi", "url", "tags")
REQUIRED = (
    "source",
    "collection",
    "measure",
    "value",
    "system",
    "role",
    "transcribed_by",
    "transcribed_at",
)


class ImportProgress(Protocol):
    """How far an import is, for a progress bar: ``rows`` more rows checked, ``total``
    more rows to check (announced as each file is read), ``added`` more results written."""

    def __call__(self, rows: int = 0, /, *, total: int = 0, added: int = 0) -> None: ...


PROGRESS_ROWS = 1000  # rows checked between two calls of an import's progress callback


@dataclass
class PreparedResult:
    line: int
    key: tuple
    values: dict  # column -> typed value for the results table (paper_id filled later)
    bibkey: str | None
    existing_id: int | None = None  # the row it updates (on_existing="update")


@dataclass
class PreparedPaper:
    bibkey: str
    values: dict
    line: int


@dataclass
class ImportPlan:
    file: str
    results: list[PreparedResult] = field(default_factory=list)
    papers: list[PreparedPaper] = field(default_factory=list)
    skipped: int = 0  # rows already in the database (skip mode)
    new_measures: set = field(default_factory=set)
    updates: list[PreparedResult] = field(default_factory=list)  # update mode
    existing: list[tuple[int, int]] = field(default_factory=list)  # (line, id) skipped
    differs: list[PreparedResult] = field(default_factory=list)  # same mode: other value


@dataclass(frozen=True)
class ImportReport:
    file: str
    added_results: int
    added_papers: int
    skipped: int
    dry_run: bool
    result_ids: tuple[int, ...] = ()
    updated: int = 0
    history: int = 0  # history entries copied (curation export)


# ---------------------------------------------------------------- validation


class _Context:
    """Lookups cached once per import: aliases, measures, papers, existing keys."""

    def __init__(self, con):
        self.con = con
        self.aliases = dict(
            con.execute("SELECT alias, collection_id FROM collection_aliases").fetchall()
        )
        self.default_topics = {
            cid: (name, n)
            for cid, name, n in con.execute(
                "SELECT collection_id, name, n_topics FROM topic_sets WHERE is_default"
            ).fetchall()
        }
        self.topic_sets = {
            (cid, name): n
            for cid, name, n in con.execute(
                "SELECT collection_id, name, n_topics FROM topic_sets"
            ).fetchall()
        }
        self.measures = {
            name: (lo, hi)
            for name, lo, hi in con.execute(
                "SELECT name, min_value, max_value FROM measures"
            ).fetchall()
        }
        self.papers = {
            k: (i, y) for i, k, y in con.execute("SELECT id, bibkey, year FROM papers").fetchall()
        }
        self.existing = {}
        for rid, src, bib, track, cid, n, m, sysl, role, vt in con.execute(
            "SELECT r.id, r.source, p.bibkey, r.track, r.collection_id, r.n_topics, "
            "r.measure, r.system, r.role, r.value_text FROM results r "
            "LEFT JOIN papers p ON p.id = r.paper_id"
        ).fetchall():
            self.existing[(src, bib or "", track or "", cid, n, m, sysl, role)] = (rid, vt)


def natural_key(v: dict, bibkey: str | None) -> tuple:
    return (
        v["source"],
        bibkey or "",
        v.get("track") or "",
        v["collection_id"],
        v["n_topics"],
        v["measure"],
        v["system"],
        v["role"],
    )


ON_EXISTING = ("fail", "skip", "update")


def plan_import(
    con,
    rows: list[Row],
    file: str,
    *,
    on_existing: str = "fail",
    columns: tuple[str, ...] | None = None,
    header_line: int | None = None,
    problems: list[Problem] | None = None,
    progress: ImportProgress | None = None,
) -> ImportPlan:
    """Validate every row; return the plan or raise ValidationFailed listing every problem.

    ``on_existing`` says what a row whose natural key (source, paper or track, collection,
    topics, measure, system, role) is already in the database does: ``fail`` (a problem),
    ``skip`` (left as it is), ``update`` (its changed fields are written, each in the
    history) or ``same`` (skipped when the value is the same, else put in
    ``plan.differs`` for the caller to decide: seeds).
    ``columns``: the file's columns (a required column missing from the file is reported
    once, not on every row); ``problems``: those found reading the file (reported with
    these); ``progress(rows)`` is called every :data:`PROGRESS_ROWS` rows checked.
    """
    ctx = _Context(con)
    plan = ImportPlan(file=file)
    problems = list(problems or [])
    seen: dict[tuple, int] = {}
    new_papers: dict[str, PreparedPaper] = {}
    absent = _absent_columns(columns, file, header_line, problems)
    conflicts: list[tuple[int, int, str]] = []  # rows already in the database (fail)

    # new bibkeys whose paper some row describes (the others may name it alone)
    described = {
        str(r.data.get("paper")).strip()
        for r in rows
        if any(F.text_or_none(r.data.get(f"paper_{f}")) for f in ("citation", "title", "authors"))
    }
    for i, row in enumerate(rows):
        if progress is not None and i and not i % PROGRESS_ROWS:
            progress(PROGRESS_ROWS)
        n_before = len(problems)

        def bad(msg, fld=None, _line=row.line):
            problems.append(Problem(file, _line, msg, fld))

        v, bibkey, missing = _parse_row(
            ctx, plan, row, file, problems, bad, absent, described, new_papers
        )
        if len(problems) > n_before or missing:
            continue
        key = natural_key(v, bibkey if v["source"] == "paper" else None)
        if key in seen:
            bad(
                f"duplicate of line {seen[key]} (same source, collection, topics, measure, "
                "system and role)"
            )
            continue
        seen[key] = row.line
        if v["source"] == "official":
            bibkey = None
        if key in ctx.existing:
            rid, vt = ctx.existing[key]
            if on_existing == "skip" or (on_existing == "same" and vt == v["value_text"]):
                plan.skipped += 1
                plan.existing.append((row.line, rid))
                continue
            if on_existing in ("update", "same"):
                into = plan.updates if on_existing == "update" else plan.differs
                into.append(PreparedResult(row.line, key, v, bibkey, rid))
                continue
            conflicts.append((row.line, rid, vt))
            continue
        plan.results.append(PreparedResult(row.line, key, v, bibkey))
    if progress is not None and rows:
        progress(len(rows) - (len(rows) - 1) // PROGRESS_ROWS * PROGRESS_ROWS)
    if conflicts:  # one problem, not one per row
        problems.append(_conflicts_problem(file, conflicts))
    if problems:
        raise ValidationFailed(collapse(problems))
    plan.papers = list(new_papers.values())
    return plan


def _absent_columns(
    columns: tuple[str, ...] | None, file: str, header_line: int | None, problems: list[Problem]
) -> set[str]:
    """The required columns missing from the file (each reported once in ``problems``)."""
    absent: set[str] = set()
    for c in REQUIRED:
        if columns is not None and c not in columns:
            problems.append(Problem(file, header_line, f"missing column {c!r}"))
            absent.add(c)
    return absent


def _conflicts_problem(file: str, conflicts: list[tuple[int, int, str]]) -> Problem:
    """One problem for the rows already in the database (on_existing="fail")."""
    line, rid, vt = conflicts[0]
    more = (
        f" (and {len(conflicts) - 1} more rows, lines "
        f"{', '.join(str(c[0]) for c in conflicts[1:6])}"
        f"{', ...' if len(conflicts) > 6 else ''})"
        if len(conflicts) > 1
        else ""
    )
    return Problem(
        file,
        line,
        f"already in the database as result #{rid} "
        f"(value {vt}){more}; use --on-existing skip or update",
    )


def _parse_row(
    ctx: _Context,
    plan: ImportPlan,
    row: Row,
    file: str,
    problems: list[Problem],
    bad,
    absent: set,
    described: set,
    new_papers: dict[str, PreparedPaper],
) -> tuple[dict, str | None, list[str]]:
    """One row's typed values, its bibkey and its missing required fields; its problems
    reported through ``bad`` (every field is checked, so that all are reported at once)."""
    d = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.data.items()}
    for k, text in d.items():
        why = F.check_text(text)
        if why:
            bad(why, k)
            d[k] = ""
    missing = [c for c in REQUIRED if F.blank(d.get(c))]
    for c in missing:
        if c not in absent:
            bad("missing provenance" if c.startswith("transcribed") else "missing value", c)
    # the other fields are still checked, so that every problem is reported at once
    v: dict = {"source": None}
    try:
        if "source" not in missing:
            v["source"] = F.parse_choice(d["source"], F.SOURCES, "source")
    except F.FieldError as e:
        bad(str(e), "source")
    bibkey = F.text_or_none(d.get("paper"))
    v["track"] = F.text_or_none(d.get("track"))
    _check_provenance(ctx, d, v, bibkey, row, file, problems, bad, described, new_papers)
    v["collection_id"] = cid = _parse_collection(ctx, d, missing, bad)
    v["measure"] = _parse_measure(ctx, plan, d, missing, bad)
    _parse_value(ctx, d, v, missing, bad)
    v["system"] = d.get("system")
    v["participant"] = F.text_or_none(d.get("participant"))
    for name, fn in (
        ("role", F.FIELD_PARSERS["role"]),
        ("run_type", F.FIELD_PARSERS["run_type"]),
        ("status", lambda s: F.parse_choice(s or "draft", F.STATUSES, "status")),
        ("standard", lambda s: True if F.blank(s) else F.parse_bool(s)),
        ("transcribed_at", F.FIELD_PARSERS["transcribed_at"]),
        ("date", lambda s: None if F.blank(s) else F.parse_date(s)),
        ("reporter", F.FIELD_PARSERS["reporter"]),
        ("url", F.FIELD_PARSERS["url"]),
        ("code_url", F.FIELD_PARSERS["code_url"]),
    ):
        if name in missing:
            continue
        try:
            v[name] = fn(d.get(name, ""))
        except F.FieldError as e:
            bad(str(e), name)
    v["transcribed_by"] = d.get("transcribed_by")
    v["location"] = F.text_or_none(d.get("location"))
    v["notes"] = F.text_or_none(d.get("notes"))
    _parse_topics(ctx, d, v, cid, bad)
    _parse_year(ctx, d, v, bibkey, new_papers, bad)
    return v, bibkey, missing


def _check_provenance(
    ctx: _Context,
    d: dict,
    v: dict,
    bibkey: str | None,
    row: Row,
    file: str,
    problems: list[Problem],
    bad,
    described: set,
    new_papers: dict[str, PreparedPaper],
) -> None:
    """A paper result's bibkey (its paper prepared when new), an official one's track."""
    if v["source"] == "paper":
        if not bibkey:
            bad("missing provenance: a paper result needs the paper's bibkey", "paper")
        elif (
            bibkey not in ctx.papers
            and bibkey in described
            and not any(F.text_or_none(d.get(f"paper_{f}")) for f in PAPER_FIELDS)
        ):
            pass  # described on another line of the file
        elif bibkey not in ctx.papers:
            pp = _prepare_paper(d, bibkey, row.line, file, problems)
            if pp is not None:
                prev = new_papers.get(bibkey)
                if prev is None:
                    new_papers[bibkey] = pp
                elif prev.values != pp.values:
                    bad(f"paper {bibkey!r} is described differently on line {prev.line}", "paper")
    elif v["source"] == "official" and not v["track"]:
        bad("missing provenance: an official result needs its track, e.g. trec7/adhoc", "track")


def _parse_collection(ctx: _Context, d: dict, missing: list[str], bad) -> str | None:
    coll = d.get("collection") or ""
    cid = ctx.aliases.get(coll.lower())
    if cid is None and "collection" not in missing:
        from litaudit.store.refdata import near_names

        near = near_names(coll, list(ctx.aliases))
        bad(
            f"unknown collection {coll!r}"
            + (f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""),
            "collection",
        )
    return cid


def _parse_measure(ctx: _Context, plan: ImportPlan, d: dict, missing: list[str], bad) -> str | None:
    """The measure's name; one parseable but not yet registered is added to the plan."""
    if "measure" in missing:
        return None
    try:
        m = str(parse_measure(d["measure"]))
        if m not in ctx.measures:
            # parseable but not yet registered: registered when the plan is applied
            pm = parse_measure(m)
            ctx.measures[m] = (pm.min_value, pm.max_value)
            plan.new_measures.add(m)
        return m
    except LitauditError as e:
        bad(str(e), "measure")
        return None


def _parse_value(ctx: _Context, d: dict, v: dict, missing: list[str], bad) -> None:
    """``value`` and ``value_text``, checked against the measure's range."""
    if "value" in missing:
        return
    try:
        v["value"], v["value_text"] = F.parse_value(d["value"])
        if v["measure"]:
            lo, hi = ctx.measures[v["measure"]]
            if not lo <= v["value"] <= hi:
                hint = (
                    " (a percentage? give it as a fraction)"
                    if hi == 1 and v["value"] <= 100
                    else ""
                )
                bad(
                    f"{v['value_text']} is outside the range of {v['measure']} "
                    f"[{lo:g}, {hi:g}]{hint}",
                    "value",
                )
    except F.FieldError as e:
        bad(str(e), "value")


def _parse_topics(ctx: _Context, d: dict, v: dict, cid: str | None, bad) -> None:
    """``topic_set`` and ``n_topics`` (the collection's default topic set when neither
    is given)."""
    v["topic_set"] = F.FIELD_PARSERS["topic_set"](d.get("topic_set"))
    try:
        known = cid and v["topic_set"] and (cid, v["topic_set"]) in ctx.topic_sets
        if cid and v["topic_set"] and not known:
            names = [n for (c, n) in ctx.topic_sets if c == cid]
            bad(
                f"unknown topic set {v['topic_set']!r} of {cid}"
                f"{did_you_mean(v['topic_set'], names) or ' (known: ' + (', '.join(names) or 'none') + ')'}",
                "topic_set",
            )
        if not F.blank(d.get("n_topics")):
            v["n_topics"] = F.FIELD_PARSERS["n_topics"](d["n_topics"])
            if known and ctx.topic_sets[(cid, v["topic_set"])] != v["n_topics"]:
                bad(
                    f"topic set {v['topic_set']!r} has "
                    f"{ctx.topic_sets[(cid, v['topic_set'])]} topics, not {v['n_topics']}",
                    "n_topics",
                )
        elif known:
            v["n_topics"] = ctx.topic_sets[(cid, v["topic_set"])]
        elif cid and cid in ctx.default_topics and not v["topic_set"]:
            name, n = ctx.default_topics[cid]
            v["topic_set"] = name
            v["n_topics"] = n
        else:
            v["n_topics"] = None
            if cid and not v["topic_set"]:
                bad("missing number of topics and the collection has no default", "n_topics")
    except F.FieldError as e:
        bad(str(e), "n_topics")
        v["n_topics"] = None


def _parse_year(
    ctx: _Context, d: dict, v: dict, bibkey: str | None, new_papers: dict[str, PreparedPaper], bad
) -> None:
    """``year``: given, else the date's, the paper's, or a TREC track's (trec7: 1998)."""
    try:
        if not F.blank(d.get("year")):
            v["year"] = F.FIELD_PARSERS["year"](d["year"])
        elif v.get("date"):
            v["year"] = v["date"].year
        elif (
            v["source"] == "paper"
            and bibkey in new_papers
            and new_papers[bibkey].values.get("year")
        ):
            v["year"] = new_papers[bibkey].values["year"]
        elif v["source"] == "paper" and bibkey in ctx.papers and ctx.papers[bibkey][1]:
            v["year"] = ctx.papers[bibkey][1]
        elif (
            v["track"]
            and v["track"].lower().startswith("trec")
            and v["track"][4:].split("/")[0].isascii()
            and v["track"][4:].split("/")[0].isdigit()
        ):
            v["year"] = 1991 + int(v["track"][4:].split("/")[0])
            F.parse_year(v["year"])
        else:
            if v["source"]:
                bad("missing year (of the paper or the submission)", "year")
            v["year"] = None
    except F.FieldError as e:
        bad(str(e), "year")


def collapse(problems: list[Problem], shown: int = 5) -> list[Problem]:
    """One problem once: the same message on the same field on several lines of a file
    becomes one problem at its first line that lists the others."""
    groups: dict[tuple, list[Problem]] = {}
    for p in problems:
        groups.setdefault((p.file, p.field, p.message), []).append(p)
    out = []
    for p in problems:
        same = groups.get((p.file, p.field, p.message))
        if not same:
            continue  # already listed with its first line
        del groups[(p.file, p.field, p.message)]
        others = [q.line for q in same[1:] if q.line is not None]
        if others:
            lines = ", ".join(str(n) for n in others[:shown])
            more = f" and {len(others) - shown} more" if len(others) > shown else ""
            p = Problem(
                p.file,
                p.line,
                f"{p.message} (also on line{'s' if len(others) > 1 else ''} {lines}{more})",
                p.field,
            )
        out.append(p)
    return out


def _prepare_paper(
    d: dict, bibkey: str, line: int, file: str, problems: list[Problem]
) -> PreparedPaper | None:
    """A new paper from the row's paper_* columns. ``paper_citation`` is optional: without
    it the short citation is made from the authors, venue and year (as `papers add`
    does); a row with none of citation, title and authors names an unknown paper."""
    from litaudit.curation.papers import short_citation, short_venue

    vals: dict[str, Any] = {f: F.text_or_none(d.get(f"paper_{f}")) for f in PAPER_FIELDS}
    if not (vals["citation"] or vals["title"] or vals["authors"]):
        problems.append(
            Problem(
                file,
                line,
                f"unknown paper {bibkey!r}: add it first "
                "(litaudit papers add/import) or give paper_citation, "
                "paper_title or paper_authors",
                "paper",
            )
        )
        return None
    if vals["year"] is not None:
        try:
            vals["year"] = F.parse_year(vals["year"])
        except F.FieldError as e:
            problems.append(Problem(file, line, str(e), "paper_year"))
            return None
    if not vals["citation"]:
        vals["citation"] = short_citation(vals["authors"], short_venue(vals["venue"]), vals["year"])
    return PreparedPaper(bibkey, vals, line)


# ---------------------------------------------------------------- writing

RESULT_DB_COLUMNS = (
    "id",
    "source",
    "paper_id",
    "track",
    "collection_id",
    "topic_set",
    "n_topics",
    "measure",
    "value",
    "value_text",
    "system",
    "participant",
    "role",
    "run_type",
    "year",
    "standard",
    "location",
    "transcribed_by",
    "transcribed_at",
    "status",
    "notes",
    "created_at",
    "updated_at",
    "date",
    "reporter",
    "url",
    "code_url",
)
# Arrow types of the bulk insert's columns (filled on first use; default: string)
_ARROW_TYPES: dict = {}


def _arrow_types(pa) -> None:
    if not _ARROW_TYPES:
        _ARROW_TYPES.update(
            {
                "id": pa.int64(),
                "paper_id": pa.int64(),
                "n_topics": pa.int64(),
                "value": pa.float64(),
                "year": pa.int64(),
                "standard": pa.bool_(),
                "transcribed_at": pa.date32(),
                "date": pa.date32(),
                "created_at": pa.timestamp("us"),
                "updated_at": pa.timestamp("us"),
            }
        )
        for c in RESULT_DB_COLUMNS:
            _ARROW_TYPES.setdefault(c, pa.string())


def apply_plan(
    store,
    plan: ImportPlan,
    *,
    who: str,
    reason: str | None = None,
    action: str = "import",
    record: bool = True,
    times: dict[int, tuple] | None = None,
    progress: ImportProgress | None = None,
) -> ImportReport:
    """Write a validated plan in one transaction (papers, results, history).

    ``record=False`` writes no history rows of its own (a curation export brings its
    history); ``times`` maps a row's line to its (created_at, updated_at); ``progress``
    is told the results written."""
    import pyarrow as pa

    _arrow_types(pa)
    con = store.con
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    note = reason or f"imported from {Path(plan.file).name}"
    with store.transaction():
        from litaudit.store.refdata import ensure_measure

        for m in sorted(plan.new_measures):
            ensure_measure(con, m)
        paper_ids = _insert_papers(con, plan, who=who, note=note, record=record, now=now)
        n, ids = _insert_results(
            con,
            pa,
            plan,
            paper_ids,
            who=who,
            note=note,
            action=action,
            record=record,
            now=now,
            times=times,
        )
        if progress is not None and n:
            progress(added=n)
        updated = sum(
            _update_existing(
                con, r, who=who, reason=f"updated from {Path(plan.file).name}", now=now
            )
            for r in plan.updates
        )
    return ImportReport(plan.file, n, len(plan.papers), plan.skipped, False, tuple(ids), updated)


def _insert_papers(con, plan: ImportPlan, *, who: str, note: str, record: bool, now):
    """Insert the plan's new papers (and their history): paper id by bibkey, with the
    existing papers its results name."""
    paper_ids: dict[str, int] = {}
    for p in plan.papers:
        pid = con.execute(
            "INSERT INTO papers (bibkey, citation, title, authors, venue, year, doi, url, "
            "tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [p.bibkey, *(p.values[f] for f in PAPER_FIELDS), now],
        ).fetchone()[0]
        paper_ids[p.bibkey] = pid
        if record:
            con.execute(
                "INSERT INTO history (entity, entity_id, action, reason, who, "
                "changed_at) VALUES ('paper', ?, 'create', ?, ?, ?)",
                [pid, note, who, now],
            )
    need = [r.bibkey for r in plan.results if r.bibkey and r.bibkey not in paper_ids]
    if need:
        for k, i in con.execute(
            f"SELECT bibkey, id FROM papers WHERE bibkey IN ({','.join('?' * len(set(need)))})",
            list(set(need)),
        ).fetchall():
            paper_ids[k] = i
    return paper_ids


def _insert_results(
    con,
    pa,
    plan: ImportPlan,
    paper_ids: dict[str, int],
    *,
    who: str,
    note: str,
    action: str,
    record: bool,
    now,
    times: dict[int, tuple] | None,
) -> tuple[int, list[int]]:
    """Bulk-insert the plan's new results (and their history): (count, ids)."""
    n = len(plan.results)
    ids: list[int] = []
    if n:
        ids = [
            r[0]
            for r in con.execute("SELECT nextval('results_id_seq') FROM range(?)", [n]).fetchall()
        ]
        records = []
        for rid, r in zip(ids, plan.results, strict=True):
            v = dict(r.values)
            v["id"] = rid
            v["paper_id"] = paper_ids.get(r.bibkey) if r.bibkey else None
            v["created_at"], v["updated_at"] = (times or {}).get(r.line, (now, now))
            records.append({c: v.get(c) for c in RESULT_DB_COLUMNS})
        # bulk insert from an Arrow table (DuckDB's executemany is slow; pyarrow
        # imports in a fraction of pandas' time)
        table = pa.table(
            {
                c: pa.array([r[c] for r in records], type=_ARROW_TYPES.get(c))
                for c in RESULT_DB_COLUMNS
            }
        )
        con.register("_import_results", table)
        try:
            cols = ", ".join(RESULT_DB_COLUMNS)
            con.execute(f"INSERT INTO results ({cols}) SELECT {cols} FROM _import_results")
        finally:
            con.unregister("_import_results")
        if record:
            hist = pa.table(
                {
                    "entity_id": pa.array(ids, type=pa.int64()),
                    "new_value": pa.array(
                        [r.values["value_text"] for r in plan.results], type=pa.string()
                    ),
                }
            )
            con.register("_import_history", hist)
            try:
                con.execute(
                    "INSERT INTO history (entity, entity_id, action, new_value, "
                    "reason, who, changed_at) SELECT 'result', entity_id, ?, "
                    "new_value, ?, ?, ? FROM _import_history",
                    [action, note, who, now],
                )
            finally:
                con.unregister("_import_history")
    return n, ids


_UPDATABLE = (
    "topic_set",
    "value_text",
    "participant",
    "run_type",
    "year",
    "standard",
    "location",
    "transcribed_by",
    "transcribed_at",
    "status",
    "notes",
    "date",
    "reporter",
    "url",
    "code_url",
)


def _update_existing(con, r: PreparedResult, *, who: str, reason: str, now) -> int:
    """Write the fields of an existing result that the row changes, each in the history.
    Returns 1 when something changed."""
    cols = ", ".join(_UPDATABLE)
    old = dict(
        zip(
            _UPDATABLE,
            con.execute(f"SELECT {cols} FROM results WHERE id = ?", [r.existing_id]).fetchone(),
            strict=True,
        )
    )
    changes = {c: r.values[c] for c in _UPDATABLE if old[c] != r.values[c]}
    if not changes:
        return 0
    if "value_text" in changes:
        changes["value"] = r.values["value"]
    sets = ", ".join(f"{c} = ?" for c in changes)
    con.execute(
        f"UPDATE results SET {sets}, updated_at = ? WHERE id = ?",
        [*changes.values(), now, r.existing_id],
    )
    for c in _UPDATABLE:
        if c in changes:
            fld = "value" if c == "value_text" else c
            con.execute(
                "INSERT INTO history (entity, entity_id, action, field, old_value, "
                "new_value, reason, who, changed_at) VALUES "
                "('result', ?, 'edit', ?, ?, ?, ?, ?, ?)",
                [r.existing_id, fld, _text(old[c]), _text(changes[c]), reason, who, now],
            )
    return 1


def _text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def import_file(
    store, path, *, who: str | None = None, dry_run: bool = False, on_existing: str = "fail"
) -> tuple[ImportReport, ImportPlan]:
    """Validate and (unless dry_run) import one results file (or a curation export with
    papers and history, see :mod:`litaudit.curation.bundle`). All or nothing."""
    reports = import_files(store, [path], who=who, dry_run=dry_run, on_existing=on_existing)
    return reports[0]


def import_files(
    store,
    paths,
    *,
    who: str | None = None,
    dry_run: bool = False,
    on_existing: str = "fail",
    progress: ImportProgress | None = None,
) -> list[tuple[ImportReport, ImportPlan]]:
    """Import several files in one transaction: every file is written or none is.

    Each file is validated after the ones before it were written (inside the
    transaction), so a later file may use the papers of an earlier one; the problems of
    every file are reported together, and any problem rolls everything back.
    ``progress``: each file's rows announced when it is read, then checked and written."""
    if on_existing not in ON_EXISTING:
        raise LitauditError(
            f"--on-existing: {on_existing!r} is not one of {', '.join(ON_EXISTING)}"
        )
    who = who or F.current_user()
    problems: list[Problem] = []
    out: list[tuple[ImportReport, ImportPlan]] = []

    class _Rollback(Exception):
        pass

    try:
        with store.transaction():
            for path in paths:
                try:
                    done = _import_one(store, Path(path), not problems, who, on_existing, progress)
                except ValidationFailed as exc:
                    problems += exc.problems
                    continue
                except InputError as exc:
                    problems.append(exc.problem)
                    continue
                if done is not None:
                    out.append(done)
            if problems:
                raise ValidationFailed(problems)
            if dry_run:  # everything was checked against the writes; undo them
                raise _Rollback
    except _Rollback:
        import dataclasses

        out = [(dataclasses.replace(r, dry_run=True, result_ids=()), p) for r, p in out]
    return out


def _import_one(
    store, path: Path, write: bool, who: str, on_existing: str, progress: ImportProgress | None
) -> tuple[ImportReport, ImportPlan] | None:
    """One file of :func:`import_files`: read, validated and (when ``write``: no earlier
    file had a problem) written, so that the next file sees it."""
    from litaudit.curation import bundle
    from litaudit.curation.rows import read_table

    table = read_table(path)
    if progress is not None:
        progress(total=len(table.rows))
    if not table.rows and not table.problems and not (table.bundle and table.bundle.get("papers")):
        raise InputError(str(path), None, "no rows to import")
    if table.bundle is not None and write:
        return bundle.apply_bundle(
            store, table, str(path), who=who, on_existing=on_existing, progress=progress
        )
    plan = plan_import(
        store.con,
        table.rows,
        str(path),
        on_existing=on_existing,
        columns=table.columns,
        header_line=table.header_line,
        problems=table.problems,
        progress=progress,
    )
    return (apply_plan(store, plan, who=who, progress=progress), plan) if write else None
