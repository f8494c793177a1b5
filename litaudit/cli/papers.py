"""`litaudit papers ...`: the papers results are transcribed from. Each command parses
its options into one request of :mod:`litaudit.curation.paper_requests` and prints its
answer through :mod:`litaudit.render.papers`."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import DryRunOpt, Json, SetOpt, WhoOpt, collection_option, years_option
from litaudit.cli.result_options import (
    citation_option,
    reason_option,
    title_option,
    url_option,
    year_option,
)


def add(
    ctx: typer.Context,
    bibkey: str = typer.Argument(..., help="BibTeX key."),
    citation: str = citation_option(None, "default: from authors, venue, year"),
    title: str = title_option(None, ""),
    authors: str = typer.Option(None, help="'A and B and C'"),
    venue: str = typer.Option(None),
    year: int = year_option(None, ""),
    doi: str = typer.Option(None),
    url: str = url_option(None, ""),
    tags: str = typer.Option(None, help="Comma-separated, e.g. neural."),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Add a paper."""
    from litaudit.curation.paper_requests import PaperAdd, answer_add
    from litaudit.render.papers import print_added

    req = PaperAdd(
        bibkey=bibkey,
        citation=citation,
        title=title,
        authors=authors,
        venue=venue,
        year=year,
        doi=doi,
        url=url,
        tags=tags,
        who=who,
    ).checked()
    with open_write(ctx) as store:
        added = answer_add(store, req)
    print_added(added, json_out)


def list_(
    ctx: typer.Context,
    year: str = years_option("papers of those years", "--year"),
    venue: str = typer.Option(None),
    tag: str = typer.Option(None),
    collection: str = collection_option(None, "only papers with results on it"),
    json_out: Json = False,
):
    """List papers."""
    from litaudit.curation.paper_requests import PapersList, answer_list
    from litaudit.render.papers import print_papers

    req = PapersList(year=year, venue=venue, tag=tag, collection=collection).checked()
    with open_read(ctx) as store:
        rows = answer_list(store.con, req)
    print_papers(rows, json_out)


def show(
    ctx: typer.Context,
    key: str = typer.Argument(..., help="Bibkey or id."),
    json_out: Json = False,
):
    """A paper with its results and history."""
    from litaudit.curation.paper_requests import paper_details
    from litaudit.render.papers import print_paper

    with open_read(ctx) as store:
        details = paper_details(store.con, key)
    print_paper(details, json_out)


def edit(
    ctx: typer.Context,
    key: str = typer.Argument(..., help="Bibkey or id."),
    set_: list[str] = SetOpt,
    reason: str = reason_option(..., ""),
    who: str = WhoOpt,
):
    """Change fields of a paper; every change goes to history."""
    from litaudit.curation.paper_requests import PaperEdit, answer_edit
    from litaudit.render.papers import print_edited

    req = PaperEdit(key=key, assignments=tuple(set_), reason=reason, who=who).checked()
    with open_write(ctx) as store:
        edited = answer_edit(store, req)
    print_edited(edited)


def import_(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ...,
        help="A .bib file, or a .csv with bibkey,citation,title,authors,venue,year,doi,url,tags,notes.",
    ),
    dry_run: bool = DryRunOpt,
    skip_existing: bool = typer.Option(False, help="Skip bibkeys already present."),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Import papers from BibTeX or CSV (validated whole; all or nothing)."""
    from litaudit.curation.paper_requests import PapersImport, answer_import
    from litaudit.render.papers import print_imported

    req = PapersImport(file=file, dry_run=dry_run, skip_existing=skip_existing, who=who).checked()
    with open_write(ctx) as store:
        rep = answer_import(store, req)
    print_imported(rep, json_out)
