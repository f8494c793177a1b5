"""Results import: read CSV / JSON / Parquet, validate the whole file, then write all or nothing.

Every problem in a file is collected (with its line) before anything is written; a file
with any problem raises :class:`~litaudit.errors.ValidationFailed` and changes nothing.
Papers named by a new bibkey are created from the row's ``paper_*`` columns.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from litaudit.curation import fields as F
from litaudit.curation.rows import Row, read_rows
from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.measures import parse_measure

PAPER_FIELDS = ("citation", "title", "authors", "venue", "year", "doi", "url", "tags")
REQUIRED = ("source", "collection", "measure", "value", "system", "role", "transcribed_by",
            "transcribed_at")


@dataclass
class PreparedResult:
    line: int
    key: tuple
    values: dict          # column -> typed value for the results table (paper_id filled later)
    bibkey: str | None


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
    skipped: int = 0      # rows already in the database (skip mode)
    new_measures: set = field(default_factory=set)


@dataclass(frozen=True)
class ImportReport:
    file: str
    added_results: int
    added_papers: int
    skipped: int
    dry_run: bool
    result_ids: tuple[int, ...] = ()


# ---------------------------------------------------------------- validation

class _Context:
    """Lookups cached once per import: aliases, measures, papers, existing keys."""

    def __init__(self, con):
        self.con = con
        self.aliases = dict(con.execute("SELECT alias, collection_id FROM collection_aliases").fetchall())
        self.default_topics = {
            cid: (name, n) for cid, name, n in con.execute(
                "SELECT collection_id, name, n_topics FROM topic_sets WHERE is_default").fetchall()}
        self.topic_sets = {(cid, name): n for cid, name, n in con.execute(
            "SELECT collection_id, name, n_topics FROM topic_sets").fetchall()}
        self.measures = {name: (lo, hi) for name, lo, hi in con.execute(
            "SELECT name, min_value, max_value FROM measures").fetchall()}
        self.papers = {k: (i, y) for i, k, y in con.execute(
            "SELECT id, bibkey, year FROM papers").fetchall()}
        self.existing = {}
        for rid, src, bib, track, cid, n, m, sysl, role, vt in con.execute(
                "SELECT r.id, r.source, p.bibkey, r.track, r.collection_id, r.n_topics, "
                "r.measure, r.system, r.role, r.value_text FROM results r "
                "LEFT JOIN papers p ON p.id = r.paper_id").fetchall():
            self.existing[(src, bib or "", track or "", cid, n, m, sysl, role)] = (rid, vt)


def natural_key(v: dict, bibkey: str | None) -> tuple:
    return (v["source"], bibkey or "", v.get("track") or "", v["collection_id"], v["n_topics"],
            v["measure"], v["system"], v["role"])


def plan_import(con, rows: list[Row], file: str, *, on_duplicate: str = "error") -> ImportPlan:
    """Validate every row; return the plan or raise ValidationFailed listing every problem."""
    ctx = _Context(con)
    plan = ImportPlan(file=file)
    problems: list[Problem] = []
    seen: dict[tuple, int] = {}
    new_papers: dict[str, PreparedPaper] = {}

    for row in rows:
        n_before = len(problems)
        d = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.data.items()}

        def bad(msg, fld=None, _line=row.line):
            problems.append(Problem(file, _line, msg, fld))

        missing = [c for c in REQUIRED if F.blank(d.get(c))]
        for c in missing:
            what = "missing provenance" if c.startswith("transcribed") else "missing value"
            bad(what, c)
        if missing:
            continue
        v: dict = {}
        try:
            v["source"] = F.parse_choice(d["source"], F.SOURCES, "source")
        except F.FieldError as e:
            bad(str(e), "source")
            continue
        bibkey = F.text_or_none(d.get("paper"))
        v["track"] = F.text_or_none(d.get("track"))
        if v["source"] == "paper":
            if not bibkey:
                bad("missing provenance: a paper result needs the paper's bibkey", "paper")
            elif bibkey not in ctx.papers:
                pp = _prepare_paper(d, bibkey, row.line, file, problems)
                if pp is not None:
                    prev = new_papers.get(bibkey)
                    if prev is None:
                        new_papers[bibkey] = pp
                    elif prev.values != pp.values:
                        bad(f"paper {bibkey!r} is described differently on line {prev.line}",
                            "paper")
        elif not v["track"]:
            bad("missing provenance: an official result needs its track, e.g. trec7/adhoc",
                "track")
        # collection
        coll = d["collection"]
        cid = ctx.aliases.get(coll.lower())
        if cid is None:
            from litaudit.store.refdata import near_names

            near = near_names(coll, list(ctx.aliases))
            bad(f"unknown collection {coll!r}"
                + (f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""),
                "collection")
        v["collection_id"] = cid
        # measure
        try:
            m = str(parse_measure(d["measure"]))
            if m not in ctx.measures:
                # parseable but not yet registered: registered when the plan is applied
                pm = parse_measure(m)
                ctx.measures[m] = (pm.min_value, pm.max_value)
                plan.new_measures.add(m)
            v["measure"] = m
        except LitauditError as e:
            bad(str(e), "measure")
            v["measure"] = None
        # value
        try:
            v["value"], v["value_text"] = F.parse_value(d["value"])
            if v["measure"]:
                lo, hi = ctx.measures[v["measure"]]
                if not lo <= v["value"] <= hi:
                    hint = " (a percentage? give it as a fraction)" if hi == 1 and v["value"] <= 100 else ""
                    bad(f"{v['value_text']} is outside the range of {v['measure']} "
                        f"[{lo:g}, {hi:g}]{hint}", "value")
        except F.FieldError as e:
            bad(str(e), "value")
        v["system"] = d["system"]
        v["participant"] = F.text_or_none(d.get("participant"))
        for name, fn in (
            ("role", lambda s: F.parse_choice(s, F.ROLES, "role")),
            ("run_type", F.parse_run_type),
            ("status", lambda s: F.parse_choice(s or "draft", F.STATUSES, "status")),
            ("standard", lambda s: True if F.blank(s) else F.parse_bool(s)),
            ("transcribed_at", F.parse_date),
            ("date", lambda s: None if F.blank(s) else F.parse_date(s)),
            ("reporter", F.parse_reporter),
            ("url", F.parse_url),
            ("code_url", F.parse_url),
        ):
            try:
                v[name] = fn(d.get(name, ""))
            except F.FieldError as e:
                bad(str(e), name)
        v["transcribed_by"] = d["transcribed_by"]
        v["location"] = F.text_or_none(d.get("location"))
        v["notes"] = F.text_or_none(d.get("notes"))
        # topics
        v["topic_set"] = F.text_or_none(d.get("topic_set"))
        try:
            if not F.blank(d.get("n_topics")):
                v["n_topics"] = F.parse_int(d["n_topics"], "n_topics", minimum=1)
            elif cid and v["topic_set"] and (cid, v["topic_set"]) in ctx.topic_sets:
                v["n_topics"] = ctx.topic_sets[(cid, v["topic_set"])]
            elif cid and cid in ctx.default_topics:
                name, n = ctx.default_topics[cid]
                v["topic_set"] = v["topic_set"] or name
                v["n_topics"] = n
            else:
                v["n_topics"] = None
                if cid:
                    bad("missing number of topics and the collection has no default", "n_topics")
        except F.FieldError as e:
            bad(str(e), "n_topics")
            v["n_topics"] = None
        # year
        try:
            if not F.blank(d.get("year")):
                v["year"] = F.parse_year(d["year"])
            elif v.get("date"):
                v["year"] = v["date"].year
            elif v["source"] == "paper" and bibkey in new_papers and new_papers[bibkey].values.get("year"):
                v["year"] = new_papers[bibkey].values["year"]
            elif v["source"] == "paper" and bibkey in ctx.papers and ctx.papers[bibkey][1]:
                v["year"] = ctx.papers[bibkey][1]
            elif v["track"] and v["track"].lower().startswith("trec") and v["track"][4:].split("/")[0].isdigit():
                v["year"] = 1991 + int(v["track"][4:].split("/")[0])
            else:
                bad("missing year (of the paper or the submission)", "year")
                v["year"] = None
        except F.FieldError as e:
            bad(str(e), "year")
        if len(problems) > n_before:
            continue
        key = natural_key(v, bibkey if v["source"] == "paper" else None)
        if key in seen:
            bad(f"duplicate of line {seen[key]} (same source, collection, topics, measure, "
                "system and role)")
            continue
        seen[key] = row.line
        if key in ctx.existing:
            rid, vt = ctx.existing[key]
            if on_duplicate == "skip" and vt == v["value_text"]:
                plan.skipped += 1
                continue
            bad(f"duplicate of existing result #{rid} (value {vt})")
            continue
        if v["source"] == "official":
            bibkey = None
        plan.results.append(PreparedResult(row.line, key, v, bibkey))
    if problems:
        raise ValidationFailed(problems)
    plan.papers = list(new_papers.values())
    return plan


def _prepare_paper(d: dict, bibkey: str, line: int, file: str,
                   problems: list[Problem]) -> PreparedPaper | None:
    vals = {f: F.text_or_none(d.get(f"paper_{f}")) for f in PAPER_FIELDS}
    if not vals["citation"]:
        problems.append(Problem(file, line, f"unknown paper {bibkey!r}: add it first "
                                "(litaudit papers add/import) or give paper_citation", "paper"))
        return None
    if vals["year"] is not None:
        try:
            vals["year"] = F.parse_year(vals["year"])
        except F.FieldError as e:
            problems.append(Problem(file, line, str(e), "paper_year"))
            return None
    return PreparedPaper(bibkey, vals, line)


# ---------------------------------------------------------------- writing

RESULT_DB_COLUMNS = (
    "id", "source", "paper_id", "track", "collection_id", "topic_set", "n_topics", "measure",
    "value", "value_text", "system", "participant", "role", "run_type", "year", "standard",
    "location", "transcribed_by", "transcribed_at", "status", "notes", "created_at",
    "updated_at", "date", "reporter", "url", "code_url",
)
# Arrow types of the bulk insert's columns (filled on first use; default: string)
_ARROW_TYPES: dict = {}


def _arrow_types(pa) -> None:
    if not _ARROW_TYPES:
        _ARROW_TYPES.update({
            "id": pa.int64(), "paper_id": pa.int64(), "n_topics": pa.int64(),
            "value": pa.float64(), "year": pa.int64(), "standard": pa.bool_(),
            "transcribed_at": pa.date32(), "date": pa.date32(), "created_at": pa.timestamp("us"),
            "updated_at": pa.timestamp("us")})
        for c in RESULT_DB_COLUMNS:
            _ARROW_TYPES.setdefault(c, pa.string())


def apply_plan(store, plan: ImportPlan, *, who: str, reason: str | None = None,
               action: str = "import") -> ImportReport:
    """Write a validated plan in one transaction (papers, results, history)."""
    import pyarrow as pa

    _arrow_types(pa)
    con = store.con
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    note = reason or f"imported from {Path(plan.file).name}"
    with store.transaction():
        from litaudit.store.refdata import ensure_measure

        for m in sorted(plan.new_measures):
            ensure_measure(con, m)
        paper_ids: dict[str, int] = {}
        for p in plan.papers:
            pid = con.execute(
                "INSERT INTO papers (bibkey, citation, title, authors, venue, year, doi, url, "
                "tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                [p.bibkey, *(p.values[f] for f in PAPER_FIELDS), now]).fetchone()[0]
            paper_ids[p.bibkey] = pid
            con.execute("INSERT INTO history (entity, entity_id, action, reason, who, changed_at) "
                        "VALUES ('paper', ?, 'create', ?, ?, ?)", [pid, note, who, now])
        need = [r.bibkey for r in plan.results if r.bibkey and r.bibkey not in paper_ids]
        if need:
            for k, i in con.execute("SELECT bibkey, id FROM papers WHERE bibkey IN "
                                    f"({','.join('?' * len(set(need)))})", list(set(need))).fetchall():
                paper_ids[k] = i
        n = len(plan.results)
        ids: list[int] = []
        if n:
            ids = [r[0] for r in con.execute(
                "SELECT nextval('results_id_seq') FROM range(?)", [n]).fetchall()]
            records = []
            for rid, r in zip(ids, plan.results, strict=True):
                v = dict(r.values)
                v["id"] = rid
                v["paper_id"] = paper_ids.get(r.bibkey) if r.bibkey else None
                v["created_at"] = v["updated_at"] = now
                records.append({c: v.get(c) for c in RESULT_DB_COLUMNS})
            # bulk insert from an Arrow table (DuckDB's executemany is slow; pyarrow
            # imports in a fraction of pandas' time)
            table = pa.table({c: pa.array([r[c] for r in records], type=_ARROW_TYPES.get(c))
                              for c in RESULT_DB_COLUMNS})
            con.register("_import_results", table)
            try:
                cols = ", ".join(RESULT_DB_COLUMNS)
                con.execute(f"INSERT INTO results ({cols}) SELECT {cols} FROM _import_results")
            finally:
                con.unregister("_import_results")
            hist = pa.table({"entity_id": pa.array(ids, type=pa.int64()),
                             "new_value": pa.array([r.values["value_text"]
                                                    for r in plan.results], type=pa.string())})
            con.register("_import_history", hist)
            try:
                con.execute("INSERT INTO history (entity, entity_id, action, new_value, reason, "
                            "who, changed_at) SELECT 'result', entity_id, ?, new_value, ?, ?, ? "
                            "FROM _import_history", [action, note, who, now])
            finally:
                con.unregister("_import_history")
    return ImportReport(plan.file, n, len(plan.papers), plan.skipped, False, tuple(ids))


def import_file(store, path, *, who: str | None = None, dry_run: bool = False,
                on_duplicate: str = "error") -> tuple[ImportReport, ImportPlan]:
    """Validate and (unless dry_run) import one results file. All or nothing."""
    rows = read_rows(Path(path))
    if not rows:
        raise LitauditError(f"{path}: no rows to import")
    plan = plan_import(store.con, rows, str(path), on_duplicate=on_duplicate)
    if dry_run:
        return ImportReport(str(path), len(plan.results), len(plan.papers), plan.skipped,
                            True), plan
    return apply_plan(store, plan, who=who or F.current_user()), plan
