"""Papers: add, list, show, edit and import from BibTeX (bibtexparser v2).

Papers are read and written by :mod:`litaudit.store.papers` as typed rows
(``store.models.Paper``'s rules, checked by :mod:`litaudit.store.paper_rules`); every
creation and edit is recorded in ``history``
(:mod:`litaudit.store.history`). Reading a BibTeX or papers CSV file is in
:mod:`litaudit.curation.papers_read`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit.curation import fields as field_parsers
from litaudit.curation.filters import parse_years
from litaudit.curation.papers_read import read_bibtex, read_papers_csv, short_citation
from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.measures import did_you_mean
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

EDITABLE = ("citation", "title", "authors", "venue", "year", "doi", "url", "tags", "notes")


def check_paper_values(values: dict) -> str:
    """The bibkey of a new paper's ``values`` (stripped), after what needs no database:
    a bibkey given, no control character in any field (LitauditError naming it)."""
    bibkey = (values.get("bibkey") or "").strip()
    if not bibkey:
        raise LitauditError("a paper needs a bibkey")
    for k, v in values.items():
        why = field_parsers.check_text(v)
        if why:
            raise LitauditError(f"{k}: {why}")
    return bibkey


def add_paper(store, values: dict, *, who: str, reason: str = "added with `papers add`") -> int:
    """Insert one paper (validated by :func:`~litaudit.store.papers.check_paper`).
    Raises on a duplicate bibkey."""
    bibkey = check_paper_values(values)
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
    now = history_store.now()
    paper = {"bibkey": bibkey, "citation": citation, "year": year, "created_at": now, **texts}
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


def check_paper_edit(reason: str | None) -> None:
    """An edit of a paper needs a reason."""
    if field_parsers.blank(reason):
        raise LitauditError("an edit needs a reason (--reason)")


def edit_paper(store, key: str, changes: dict[str, str], *, reason: str, who: str) -> list[tuple]:
    """Apply field changes to one paper (bibkey or id); each goes to history. Returns
    (field, old, new)."""
    check_paper_edit(reason)
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
        # the edited paper as a whole, validated before it is written
        paper_store.check_paper({**paper.as_dict(), **updates}, f"paper {paper.bibkey!r}")
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


def read_papers(path: Path) -> tuple[list[dict], list[Problem]]:
    """The paper records of a .bib file (or a papers .csv, by its suffix) with the
    problems found in them (each with its line); a file that cannot be read at all
    raises InputError."""
    if Path(path).suffix.lower() == ".csv":
        return read_papers_csv(path)
    return read_bibtex(path)


def import_bibtex(
    store,
    path: Path,
    *,
    who: str,
    dry_run: bool = False,
    skip_existing: bool = False,
    read: tuple[Sequence[dict], Sequence[Problem]] | None = None,
) -> dict:
    """Import papers from a .bib file (or a papers .csv): validated whole, all or nothing.
    ``read``: the file's records and problems as :func:`read_papers` gave them (None:
    read it now)."""
    records, problems = read if read is not None else read_papers(path)
    records, problems = list(records), list(problems)
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
