"""`litaudit papers ...`: the papers results are transcribed from."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from litaudit.cli.common import open_read, open_write, parse_assignments
from litaudit.cli.options import Json


def _who(who):
    from litaudit.curation.fields import current_user

    return current_user(who)


def add(
    ctx: typer.Context,
    bibkey: str = typer.Argument(..., help="BibTeX key."),
    citation: str = typer.Option(None, help="Short citation (default: from authors, venue, year)."),
    title: str = typer.Option(None),
    authors: str = typer.Option(None, help="'A and B and C'"),
    venue: str = typer.Option(None),
    year: int = typer.Option(None),
    doi: str = typer.Option(None),
    url: str = typer.Option(None),
    tags: str = typer.Option(None, help="Comma-separated, e.g. neural."),
    who: str = typer.Option(None, help="Curator name."),
    json_out: Json = False,
):
    """Add a paper."""
    from litaudit.curation.papers import add_paper
    from litaudit.render.console import out, print_json

    with open_write(ctx) as store:
        pid = add_paper(
            store,
            {
                "bibkey": bibkey,
                "citation": citation,
                "title": title,
                "authors": authors,
                "venue": venue,
                "year": year,
                "doi": doi,
                "url": url,
                "tags": tags,
            },
            who=_who(who),
        )
    if json_out:
        print_json({"id": pid, "bibkey": bibkey})
    else:
        out.print(f"added paper #{pid} {bibkey}")


def list_(
    ctx: typer.Context,
    year: str = typer.Option(None, "--year", "--years", help="YEAR or FROM-TO"),
    venue: str = typer.Option(None),
    tag: str = typer.Option(None),
    collection: str = typer.Option(
        None, "--collection", "-c", help="Only papers with results on this collection."
    ),
    json_out: Json = False,
):
    """List papers."""
    from litaudit.curation.papers import list_papers
    from litaudit.render.console import out, print_json, table

    with open_read(ctx) as store:
        rows = list_papers(store.con, year=year, venue=venue, tag=tag, collection=collection)
    if json_out:
        print_json([r.as_dict() for r in rows])
        return
    out.print(
        table(
            f"{len(rows)} papers",
            ["id", "bibkey", "citation", "year", "results", "link"],
            [
                (
                    r.id,
                    r.bibkey,
                    r.citation,
                    r.year,
                    r.results,
                    r.doi and f"doi:{r.doi}" or r.url,
                )
                for r in rows
            ],
        )
    )


def show(
    ctx: typer.Context,
    key: str = typer.Argument(..., help="Bibkey or id."),
    json_out: Json = False,
):
    """A paper with its results and history."""
    from litaudit.curation.filters import CURATION
    from litaudit.curation.papers import get_paper
    from litaudit.curation.results import history, query_results
    from litaudit.render.console import out, print_json, table

    with open_read(ctx) as store:
        p = get_paper(store.con, key)
        results = query_results(store.con, dataclasses.replace(CURATION, paper=p.bibkey))
        h = history(store.con, "paper", p.id)
    if json_out:
        print_json(
            {
                **p.as_dict(),
                "results": [r.as_dict() for r in results],
                "history": [x.as_dict() for x in h],
            }
        )
        return
    out.print(
        table(
            f"Paper {p.bibkey}",
            ["field", "value"],
            list(p.as_dict().items()),
            justify_numbers=False,
        )
    )
    out.print(
        table(
            "Results",
            ["id", "collection", "measure", "value", "system", "role", "status"],
            [
                (
                    r.id,
                    r.collection,
                    r.measure,
                    r.value_text,
                    r.system,
                    r.role,
                    r.status,
                )
                for r in results
            ],
        )
    )


def edit(
    ctx: typer.Context,
    key: str = typer.Argument(..., help="Bibkey or id."),
    set_: list[str] = typer.Option(..., "--set", help="FIELD=VALUE (repeatable)."),
    reason: str = typer.Option(..., help="Why (goes to history)."),
    who: str = typer.Option(None, help="Curator name."),
):
    """Change fields of a paper; every change goes to history."""
    from litaudit.curation.papers import edit_paper
    from litaudit.render.console import out

    changes = parse_assignments(set_)
    with open_write(ctx) as store:
        log = edit_paper(store, key, changes, reason=reason, who=_who(who))
    for f, o, n in log:
        out.print(f"{key} {f}: {o} -> {n}")
    if not log:
        out.print(f"{key}: nothing changed")


def import_(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ...,
        help="A .bib file, or a .csv with bibkey,citation,title,authors,venue,year,doi,url,tags,notes.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate and show; write nothing."),
    skip_existing: bool = typer.Option(False, help="Skip bibkeys already present."),
    who: str = typer.Option(None, help="Curator name."),
    json_out: Json = False,
):
    """Import papers from BibTeX or CSV (validated whole; all or nothing)."""
    from litaudit.curation.papers import import_bibtex
    from litaudit.render.console import out, print_json

    with open_write(ctx) as store:
        rep = import_bibtex(
            store, file, who=_who(who), dry_run=dry_run, skip_existing=skip_existing
        )
    if json_out:
        print_json(rep)
    else:
        verb = "would add" if dry_run else "added"
        out.print(
            f"{file}: {verb} {rep['would_add']} papers"
            + (f", skipped {rep['skipped']} already present" if rep["skipped"] else "")
        )
