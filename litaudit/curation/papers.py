"""Papers: add, list, show, edit and import from BibTeX (bibtexparser v2).

Papers are read and written by :mod:`litaudit.store.papers` as typed rows
(``store.models.Paper``, validated); every creation and edit is recorded in ``history``
(:mod:`litaudit.store.history`).
"""

from __future__ import annotations

import csv
import io
import logging
import re
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit.curation import fields as field_parsers
from litaudit.curation.filters import parse_years
from litaudit.curation.rows import decode_utf8
from litaudit.errors import InputError, LitauditError, Problem, ValidationFailed
from litaudit.measures import did_you_mean
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

EDITABLE = ("citation", "title", "authors", "venue", "year", "doi", "url", "tags", "notes")
VENUES = (
    "SIGIR",
    "CIKM",
    "ECIR",
    "WSDM",
    "WWW",
    "KDD",
    "ICTIR",
    "TOIS",
    "TREC",
    "IRJ",
    "IPM",
    "JASIST",
    "EMNLP",
    "NAACL",
    "ACL",
    "AAAI",
    "IJCAI",
    "ICLR",
    "NeurIPS",
    "TKDE",
    "TOIS",
)
_ACRONYM = re.compile(r"\b(" + "|".join(VENUES) + r")\b")


def short_venue(text: str | None) -> str | None:
    if not text:
        return None
    m = _ACRONYM.search(text)
    return m.group(1) if m else text.strip()


def short_citation(authors: str | None, venue: str | None, year: int | None) -> str:
    """'Yang et al. (SIGIR 2019)' from a BibTeX author list."""
    names = [a.strip() for a in re.split(r"\s+and\s+", authors or "") if a.strip()]
    surnames = [(n.split(",")[0] if "," in n else n.split()[-1]).strip("{} ") for n in names]
    who = (
        surnames[0]
        if len(surnames) == 1
        else f"{surnames[0]} and {surnames[1]}"
        if len(surnames) == 2
        else f"{surnames[0]} et al."
        if surnames
        else "Anonymous"
    )
    where = " ".join(str(x) for x in (venue, year) if x)
    return f"{who} ({where})" if where else who


def add_paper(store, values: dict, *, who: str, reason: str = "added with `papers add`") -> int:
    """Insert one paper (a validated :class:`~litaudit.store.models.Paper`). Raises on a
    duplicate bibkey."""
    bibkey = (values.get("bibkey") or "").strip()
    if not bibkey:
        raise LitauditError("a paper needs a bibkey")
    for k, v in values.items():
        why = field_parsers.check_text(v)
        if why:
            raise LitauditError(f"{k}: {why}")
    if bibkey in paper_store.bibkeys(store.con):
        raise LitauditError(f"paper {bibkey!r} already exists")
    why = field_parsers.check_bibkey(
        bibkey, {k.casefold(): k for k in paper_store.bibkeys(store.con)}
    )
    if why:
        raise LitauditError(why)
    year = values.get("year")
    try:
        year = field_parsers.parse_year(year) if not field_parsers.blank(year) else None
    except field_parsers.FieldError as e:
        raise LitauditError(f"year: {e}") from None
    citation = values.get("citation") or short_citation(
        values.get("authors"), values.get("venue"), year
    )
    texts: dict[str, Any] = {
        k: field_parsers.text_or_none(values.get(k))
        for k in ("title", "authors", "venue", "doi", "url", "tags", "notes")
    }
    try:
        texts["url"] = field_parsers.parse_url(texts["url"])
    except field_parsers.FieldError as e:
        raise LitauditError(f"url: {e}") from None
    # start-up: pydantic, sqlalchemy, sqlmodel (through litaudit.store.models)
    from litaudit.store.models import Paper

    now = history_store.now()
    paper = Paper(bibkey=bibkey, citation=citation, year=year, created_at=now, **texts)
    con = store.con
    with store.transaction():  # the row and its history, or neither
        pid = paper_store.insert(con, paper)
        history_store.record(con, ("paper", pid), "create", reason=reason, who=who, at=now)
    return pid


def get_paper(con: duckdb.DuckDBPyConnection, key: str) -> paper_store.PaperRecord:
    """A paper by bibkey or numeric id (typed)."""
    return paper_store.get(con, key)


def list_papers(
    con: duckdb.DuckDBPyConnection,
    *,
    year: str | None = None,
    venue: str | None = None,
    tag: str | None = None,
    collection: str | None = None,
) -> list[paper_store.PaperListed]:
    """Papers by year, venue, tag or collection (with results on it), by year and bibkey."""

    where: list[str] = []
    args: list[object] = []
    yrs = parse_years(year)
    if yrs:
        where.append("p.year BETWEEN ? AND ?")
        args.extend(yrs)
    if venue:
        where.append("lower(p.venue) = lower(?)")
        args.append(venue)
    if tag:
        where.append("list_contains(string_split(coalesce(p.tags, ''), ','), ?)")
        args.append(tag)
    cid = None
    if collection:
        cid = resolve_collection(con, collection).id
    return paper_store.listing(con, where, args, collection_id=cid)


def edit_paper(store, key: str, changes: dict[str, str], *, reason: str, who: str) -> list[tuple]:
    if field_parsers.blank(reason):
        raise LitauditError("an edit needs a reason (--reason)")
    paper = get_paper(store.con, key)
    log, updates = [], {}
    for fld, text in changes.items():
        if fld not in EDITABLE:
            raise LitauditError(f"field {fld!r} cannot be edited{did_you_mean(fld, EDITABLE)}")
        if field_parsers.check_text(text):
            raise LitauditError(f"--set {fld}: {field_parsers.check_text(text)}")
        try:
            new = (
                (field_parsers.parse_year(text) if not field_parsers.blank(text) else None)
                if fld == "year"
                else field_parsers.text_or_none(text)
            )
        except field_parsers.FieldError as e:
            raise LitauditError(f"--set {fld}: {e}") from None
        if fld == "citation" and new is None:
            raise LitauditError("--set citation: a paper needs a citation")
        old = getattr(paper, fld)
        if old != new:
            updates[fld] = new
            log.append((fld, history_store.text(old), history_store.text(new)))
    if updates:
        # start-up: pydantic, sqlalchemy, sqlmodel (through litaudit.store.models)
        from litaudit.store.models import Paper, validated

        # the edited paper as a whole, validated before it is written
        validated(Paper, {**paper.as_dict(), **updates}, f"paper {paper.bibkey!r}")
        now = history_store.now()
        with store.transaction():
            paper_store.update(store.con, paper.id, updates)
            for fld, old, new in log:
                history_store.record(
                    store.con,
                    ("paper", paper.id),
                    "edit",
                    field=fld,
                    old=old,
                    new=new,
                    reason=reason,
                    who=who,
                    at=now,
                )
    return log


def _line_of(block) -> int | None:
    """The 1-based line a bibtexparser block starts on (None when it does not say)."""
    return None if block.start_line is None else block.start_line + 1


def _bibtex_reason(block) -> str:
    """Why bibtexparser could not use a block, in words (its exceptions carry the reason
    that it otherwise only logs)."""
    # start-up: bibtexparser
    from bibtexparser import model

    if isinstance(block, model.DuplicateBlockKeyBlock):
        return f"entry key {block.key!r} appears twice"
    if isinstance(block, model.DuplicateFieldKeyBlock):
        dup = ", ".join(sorted(getattr(block, "duplicate_keys", ()) or ())) or "a field"
        return f"field {dup} appears twice in the entry"
    err = getattr(block, "error", None)
    reason = (getattr(err, "abort_reason", None) or (str(err) if err else "")).strip()
    if "entry key" in reason:
        return f"entry without a key ({reason})"
    if "end of file" in reason.lower():
        return 'unterminated entry: a { or " is never closed before the end of the file'
    return reason or type(err).__name__ if err else "cannot parse this block"


@contextmanager
def _quiet_bibtexparser():
    """Every bibtexparser logger off for the block (its splitter logs each failed block
    on a logger of its own, which a disabled parent does not silence)."""

    loggers = [logging.getLogger("bibtexparser")] + [
        logging.getLogger(n)
        for n in list(logging.root.manager.loggerDict)
        if n.startswith("bibtexparser.")
    ]
    was = [lg.disabled for lg in loggers]
    for lg in loggers:
        lg.disabled = True
    try:
        yield
    finally:
        for lg, w in zip(loggers, was, strict=True):
            lg.disabled = w


def read_bibtex(path: Path) -> tuple[list[dict], list[Problem]]:
    """Paper records from a .bib file, and every problem found (with its line).

    LaTeX in the fields (accents, braces protecting capitals) becomes Unicode through
    bibtexparser's own LatexDecodingMiddleware; its log lines are kept off the terminal
    and its reasons reported as problems instead."""
    # start-up: bibtexparser
    import bibtexparser

    # start-up: bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    path = Path(path)
    text = _bib_text(path)
    try:
        with _quiet_bibtexparser():
            lib = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    except RecursionError:
        raise InputError(str(path), None, "cannot parse BibTeX: nested too deeply") from None
    except Exception as exc:  # bibtexparser's own state errors
        raise InputError(str(path), None, f"cannot parse BibTeX: {exc}") from None
    problems = [
        Problem(str(path), _line_of(b), f"cannot parse BibTeX: {_bibtex_reason(b)}")
        for b in lib.failed_blocks
    ]
    records = [r for e in lib.entries if (r := _bib_record(path, e, problems)) is not None]
    return records, problems


def _bib_text(path: Path) -> str:
    """The text of a .bib file (UTF-8, no NUL byte)."""

    if path.is_dir():
        raise InputError(str(path), None, "is a directory, not a BibTeX file")
    try:
        text = decode_utf8(str(path), path.read_bytes())
    except FileNotFoundError:
        raise InputError(str(path), None, "no such file") from None
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
    if "\x00" in text:
        nul_line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(str(path), nul_line, "contains a NUL byte (not a BibTeX text file)")
    return text


def _bib_record(path: Path, e, problems: list[Problem]) -> dict | None:
    """The paper record of the BibTeX entry ``e``, or None with its problems added."""
    f = {fl.key.lower(): " ".join(str(fl.value).split()) for fl in e.fields}
    line = _line_of(e)
    if not e.key or not e.key.strip():
        problems.append(Problem(str(path), line, "entry without a key"))
        return None
    bad = False
    for need in ("title", "author", "year"):
        if not f.get(need):
            problems.append(Problem(str(path), line, f"entry {e.key!r}: missing {need}"))
            bad = True
    for k, v in f.items():
        why = field_parsers.check_text(v)
        if why:
            problems.append(Problem(str(path), line, f"entry {e.key!r}: {k} {why}"))
            bad = True
    try:
        year = field_parsers.parse_year(f["year"]) if f.get("year") else None
    except field_parsers.FieldError as err:
        problems.append(Problem(str(path), line, f"entry {e.key!r}: {err}"))
        bad = True
    if bad:
        return None
    venue = short_venue(f.get("booktitle") or f.get("journal"))
    doi = f.get("doi")
    return {
        "bibkey": e.key,
        "title": f["title"],
        "authors": f["author"],
        "venue": venue,
        "year": year,
        "doi": doi,
        "url": f.get("url") or (f"https://doi.org/{doi}" if doi else None),
        "citation": short_citation(f["author"], venue, year),
        "line": line,
    }


PAPER_CSV_COLUMNS = tuple(k for k in field_parsers.PAPER_KEYS if k != "created_at")


def read_papers_csv(path: Path) -> tuple[list[dict], list[Problem]]:
    """Paper records from a CSV with the columns of PAPER_CSV_COLUMNS (bibkey, citation required)."""

    path = Path(path)
    if path.is_dir():
        raise InputError(str(path), None, "is a directory, not a CSV file")
    try:
        text = decode_utf8(str(path), path.read_bytes())
    except FileNotFoundError:
        raise InputError(str(path), None, "no such file") from None
    records, problems = [], []
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        names = reader.fieldnames or []
    except csv.Error as exc:
        raise InputError(str(path), 1, f"cannot read CSV: {exc}") from None
    problems += _csv_header_problems(path, list(names))
    if problems:
        return [], problems
    rows = iter(reader)
    while True:
        try:
            rec = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            msg = str(exc)
            problems.append(
                Problem(
                    str(path),
                    reader.line_num,
                    "unterminated quote" if "end of data" in msg else f"cannot read CSV: {msg}",
                )
            )
            break
        r = _paper_row(path, reader.line_num, rec, problems)
        if r is not None:
            records.append(r)
    return records, problems


def _csv_header_problems(path: Path, names: list[str]) -> list[Problem]:
    """A papers CSV's columns that appear twice or are not PAPER_CSV_COLUMNS."""

    problems = []
    for i, c in enumerate(names):
        if c in names[:i]:
            problems.append(Problem(str(path), 1, f"column {c!r} appears twice"))
        if c not in PAPER_CSV_COLUMNS:
            problems.append(
                Problem(str(path), 1, f"unknown column {c!r}{did_you_mean(c, PAPER_CSV_COLUMNS)}")
            )
    return problems


def _paper_row(path: Path, line: int, rec: dict, problems: list[Problem]) -> dict | None:
    """The paper record of a CSV row, or None with its problem added."""
    if None in rec or None in rec.values():
        problems.append(
            Problem(str(path), line, "the row's cells do not match the header's columns")
        )
        return None
    r: dict[str, Any] = {c: field_parsers.text_or_none(rec.get(c)) for c in PAPER_CSV_COLUMNS}
    why = next(
        (
            f"{c}: {field_parsers.check_text(v)}"
            for c, v in r.items()
            if field_parsers.check_text(v)
        ),
        None,
    )
    if why:
        problems.append(Problem(str(path), line, why))
        return None
    if not r["bibkey"] or not r["citation"]:
        problems.append(Problem(str(path), line, "a paper needs a bibkey and a citation"))
        return None
    try:
        r["year"] = field_parsers.parse_year(r["year"]) if r["year"] else None
    except field_parsers.FieldError as e:
        problems.append(Problem(str(path), line, str(e), "year"))
        return None
    r["line"] = line
    return r


def import_bibtex(
    store, path: Path, *, who: str, dry_run: bool = False, skip_existing: bool = False
) -> dict:
    """Import papers from a .bib file (or a papers .csv): validated whole, all or nothing."""
    if Path(path).suffix.lower() == ".csv":
        records, problems = read_papers_csv(path)
    else:
        records, problems = read_bibtex(path)
    existing = paper_store.bibkeys(store.con)
    folded = {k.casefold(): k for k in existing}
    seen: dict[str, int] = {}
    todo, skipped = [], 0
    for r in records:
        if r["bibkey"] in seen:
            problems.append(
                Problem(
                    str(path),
                    r["line"],
                    f"entry {r['bibkey']!r} appears again (first on line {seen[r['bibkey']]})",
                )
            )
            continue
        seen[r["bibkey"]] = r["line"]
        why = r["bibkey"] not in existing and field_parsers.check_bibkey(r["bibkey"], folded)
        try:
            field_parsers.parse_url(r.get("url"))
        except field_parsers.FieldError as e:
            why = why or f"url: {e}"
        folded.setdefault(r["bibkey"].casefold(), r["bibkey"])
        if why:
            problems.append(Problem(str(path), r["line"], why, "bibkey"))
            continue
        if r["bibkey"] in existing:
            if skip_existing:
                skipped += 1
                continue
            problems.append(
                Problem(
                    str(path),
                    r["line"],
                    f"paper {r['bibkey']!r} already exists (use --skip-existing)",
                )
            )
            continue
        todo.append(r)
    if problems:
        raise ValidationFailed(problems)
    if not records:
        raise LitauditError(f"{path}: no papers found")
    if not dry_run and todo:
        now, con = history_store.now(), store.con
        with store.transaction():  # all or nothing; one statement per table (bulk)
            ids = paper_store.insert_many(con, todo, at=now)
            history_store.record_many(
                con,
                ("paper", ids),
                "import",
                reason=f"imported from {Path(path).name}",
                who=who,
                at=now,
            )
    return {
        "file": str(path),
        "added": 0 if dry_run else len(todo),
        "would_add": len(todo),
        "skipped": skipped,
        "dry_run": dry_run,
        "papers": [r["bibkey"] for r in todo],
    }
