"""`papers add`, `list`, `show`, `edit` and `import` asked once (issue 37 item 1): each
command's options as one frozen settings object, checked before the store opens, and the
one call that answers it with a typed result (printed by :mod:`litaudit.render.papers`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import duckdb

from litaudit.curation import fields
from litaudit.curation.filters import CURATION, parse_years
from litaudit.curation.papers import (
    add_paper,
    check_paper_edit,
    check_paper_values,
    edit_paper,
    get_paper,
    import_bibtex,
    list_papers,
    read_papers,
)
from litaudit.curation.result_requests import FieldChange
from litaudit.curation.results import history, query_results
from litaudit.errors import Problem
from litaudit.store.history import Entry
from litaudit.store.papers import PaperListed, PaperRecord
from litaudit.store.results import ResultRecord


@dataclass(frozen=True, kw_only=True)
class PaperAdd:
    """`papers add`: a paper's fields (the citation made from authors, venue and year
    when not given) and the curator."""

    bibkey: str
    citation: str | None = None
    title: str | None = None
    authors: str | None = None
    venue: str | None = None
    year: int | None = None
    doi: str | None = None
    url: str | None = None
    tags: str | None = None
    who: str | None = None

    def values(self) -> dict:
        """The paper's fields as :func:`~litaudit.curation.papers.add_paper` takes them."""
        return {
            "bibkey": self.bibkey,
            "citation": self.citation,
            "title": self.title,
            "authors": self.authors,
            "venue": self.venue,
            "year": self.year,
            "doi": self.doi,
            "url": self.url,
            "tags": self.tags,
        }

    def checked(self) -> PaperAdd:
        """The curator named; a bibkey given and no control character in any field."""
        who = fields.current_user(self.who)
        check_paper_values(self.values())
        return dataclasses.replace(self, who=who)


@dataclass(frozen=True, kw_only=True)
class AddedPaper:
    """What `papers add` did: the new paper's id and its bibkey as given."""

    id: int
    bibkey: str


def answer_add(store, req: PaperAdd) -> AddedPaper:
    """Add the paper (:func:`~litaudit.curation.papers.add_paper`), with its history."""
    pid = add_paper(store, req.values(), who=fields.current_user(req.who))
    return AddedPaper(id=pid, bibkey=req.bibkey)


@dataclass(frozen=True, kw_only=True)
class PapersList:
    """`papers list`: papers of a year or range (YEAR or FROM-TO), a venue, a tag, or with
    results on a collection (any alias)."""

    year: str | None = None
    venue: str | None = None
    tag: str | None = None
    collection: str | None = None

    def checked(self) -> PapersList:
        """The years read (a bad range: LitauditError naming --years)."""
        parse_years(self.year)
        return self


def answer_list(con: duckdb.DuckDBPyConnection, req: PapersList) -> tuple[PaperListed, ...]:
    """The papers asked for, by year and bibkey, each with its number of results."""
    return tuple(
        list_papers(con, year=req.year, venue=req.venue, tag=req.tag, collection=req.collection)
    )


@dataclass(frozen=True, kw_only=True)
class PaperDetails:
    """`papers show`: a paper, its results (any status) and its history, oldest first."""

    paper: PaperRecord
    results: tuple[ResultRecord, ...]
    history: tuple[Entry, ...]


def paper_details(con: duckdb.DuckDBPyConnection, key: str) -> PaperDetails:
    """The paper of bibkey or id ``key`` (NotFound, with the nearest bibkey) with its
    results and history."""
    paper = get_paper(con, key)
    results = query_results(con, dataclasses.replace(CURATION, paper=paper.bibkey))
    return PaperDetails(
        paper=paper, results=tuple(results), history=tuple(history(con, "paper", paper.id))
    )


@dataclass(frozen=True, kw_only=True)
class PaperEdit:
    """`papers edit`: a paper (bibkey or id), its --set FIELD=VALUE assignments (parsed
    into ``changes`` by :meth:`checked`), the reason and the curator."""

    key: str
    assignments: tuple[str, ...] = ()
    reason: str | None = None
    who: str | None = None
    changes: tuple[tuple[str, str], ...] = ()

    def checked(self) -> PaperEdit:
        """The assignments parsed, the curator named, a reason given."""
        changes = fields.parse_assignments(self.assignments)
        who = fields.current_user(self.who)
        check_paper_edit(self.reason)
        return dataclasses.replace(self, changes=changes, who=who)


@dataclass(frozen=True, kw_only=True)
class EditedPaper:
    """What `papers edit` did to the paper named ``key`` (as given)."""

    key: str
    changes: tuple[FieldChange, ...]


def answer_edit(store, req: PaperEdit) -> EditedPaper:
    """Apply the edit (:func:`~litaudit.curation.papers.edit_paper`): the paper validated
    whole, each change in the history with the reason."""
    log = edit_paper(
        store,
        req.key,
        dict(req.changes),
        reason=req.reason or "",
        who=fields.current_user(req.who),
    )
    return EditedPaper(
        key=req.key, changes=tuple(FieldChange(field=f, old=o, new=n) for f, o, n in log)
    )


@dataclass(frozen=True, kw_only=True)
class PapersImport:
    """`papers import`: a .bib file (or a papers .csv), a dry run or not, bibkeys already
    stored skipped or refused, and the curator."""

    file: Path
    dry_run: bool = False
    skip_existing: bool = False
    who: str | None = None
    read: tuple[tuple[dict, ...], tuple[Problem, ...]] | None = None

    def checked(self) -> PapersImport:
        """The curator named, and the file read (a file that cannot be read at all: an
        InputError naming it); the problems in its entries are reported with those the
        stored papers show (a bibkey already there)."""
        who = fields.current_user(self.who)
        records, problems = read_papers(self.file)
        return dataclasses.replace(self, who=who, read=(tuple(records), tuple(problems)))


@dataclass(frozen=True, kw_only=True)
class ImportedPapers:
    """What `papers import` did (or would do: ``dry_run``): the papers added (their
    bibkeys), and how many were skipped as already stored."""

    file: str
    added: int
    would_add: int
    skipped: int
    dry_run: bool
    papers: tuple[str, ...]


def answer_import(store, req: PapersImport) -> ImportedPapers:
    """Import the papers (:func:`~litaudit.curation.papers.import_bibtex`): validated
    whole, all or nothing."""
    rep = import_bibtex(
        store,
        req.file,
        who=fields.current_user(req.who),
        dry_run=req.dry_run,
        skip_existing=req.skip_existing,
        read=req.read,
    )
    return ImportedPapers(
        file=rep["file"],
        added=rep["added"],
        would_add=rep["would_add"],
        skipped=rep["skipped"],
        dry_run=rep["dry_run"],
        papers=tuple(rep["papers"]),
    )
