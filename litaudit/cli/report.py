"""`litaudit report`: audit reports for reviewers (Markdown, HTML, JSON)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from litaudit.cli.common import db_path, existing_db
from litaudit.cli.filter_options import POPULATION, WINDOW, with_filters
from litaudit.defaults import MIN_N
from litaudit.errors import LitauditError

if TYPE_CHECKING:
    from litaudit.curation.filters import Filters

_SUFFIX_FORMAT = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".txt": "text",
}


# the claim's evidence (issue 21): the 'Same-topic comparison' and 'Baseline' sections
_RunOpt = typer.Option(
    None, "--run", help="The claim's TREC run (its value when --claim is not given)."
)
_AgainstOpt = typer.Option(
    None, "--against", help="Archive run to compare the claim's run with (repeatable)."
)
_BaselineOpt = typer.Option(None, "--baseline", help="The paper's baseline value, as printed.")
_BaselineSystemOpt = typer.Option(
    None, "--baseline-system", help="The baseline's model (BM25, ...)."
)


@with_filters
def report(
    ctx: typer.Context,
    collection: str = typer.Option(
        None, "--collection", "-c", help="Collection id or alias (or the claims of --claims)."
    ),
    measure: str = typer.Option(
        None,
        "--measure",
        "-m",
        help=f"One measure (default: every measure with at least {MIN_N} results).",
    ),
    claim: str = typer.Option(
        None,
        "--claim",
        help="A claimed value, as printed (0.3100 keeps its 4 digits), to check against the "
        "published results (needs --measure when there are several).",
    ),
    filters: Filters = POPULATION,
    fmt: str = typer.Option(
        None,
        "--format",
        "-f",
        help="md, html, json or text (a review form: no markup, lines <= 100 characters) "
        "(default: from the -o suffix, else md).",
    ),
    output: str = typer.Option(
        None,
        "--output",
        "-o",
        help="Write here (Markdown plots go beside it as <stem>.fig-*.svg); - or none: stdout.",
    ),
    run: str = _RunOpt,
    against: list[str] = _AgainstOpt,
    baseline: str = _BaselineOpt,
    baseline_system: str = _BaselineSystemOpt,
    subcollections: bool = typer.Option(
        False,
        "--subcollections",
        help="Add the sub-collection test (Sanderson et al. 2012) to the reusability section.",
    ),
    depth: int = typer.Option(
        None,
        "--depth",
        "-k",
        min=1,
        help="Pool depth the reusability verdict decides at (default: the collection's "
        "recorded one; record it with `collections depth`).",
    ),
    timestamp: bool = typer.Option(
        False,
        "--timestamp",
        help="Stamp the report and its audits with times (the "
        "report is otherwise byte-identical for the same "
        "database).",
    ),
    _window: None = WINDOW,
    with_reproductions: bool = typer.Option(
        False, "--with-reproductions", help="The history plot through the reproductions too."
    ),
    claims: Path = typer.Option(
        None,
        "--claims",
        help="A paper's claims, one a line (CSV or JSON: collection, measure, value as "
        "printed, baseline, baseline_system, run, against): one document, a verdict per claim.",
    ),
):
    """Write an audit report of a collection, built only from stored audits.

    It opens with its conclusions (the claim against the record and against
    chance, the reusability decision); then the claim's same-topic comparison
    (--run, --against) and baseline (--baseline), the claim check, the tables of
    Carterette (2015), the candidate best set with citations, reusability
    where runs are stored, the data, and appendices (audits, provenance).
    The filters choose the published results as for `audit claim` (--until
    2021-12: the record when a paper was submitted). Missing audits are run
    and stored first.
    """
    from litaudit.analyses.extreme.claim_evidence import Asked
    from litaudit.render.progress import progress_bar

    one = (collection, measure, claim, run, baseline, baseline_system)
    if claims is not None and (any(x is not None for x in one) or against):
        raise LitauditError(
            "--claims takes every claim from its file: leave out -c, -m, --claim, --run, "
            "--against, --baseline and --baseline-system"
        )
    if claims is None and collection is None:
        raise LitauditError("give the collection (-c COLLECTION) or a claims file (--claims FILE)")
    target, fmt, path = _checked_target(ctx, claim, fmt, output)
    lines = None
    if claims is not None:
        from litaudit.analyses.claims_file import read_claims

        lines = read_claims(claims)  # every problem before any audit
    asked = Asked(run, tuple(against or ()), baseline, baseline_system)
    # the audits a report runs are not known ahead: the bar counts them as they are run,
    # and the reusability verdict's steps when it is run (announced by it)
    with progress_bar("report: audits", unit="steps", quiet=fmt == "json") as bar:
        if lines is not None:
            kw = dict(filters=filters, with_reproductions=with_reproductions)
            reps = _build_claims(ctx, lines, subcollections, timestamp, bar, kw)
            bar.update(description="report: rendering")
            text, files = _render_claims(reps, fmt, target, str(claims))
        else:
            rep = _build(
                ctx,
                collection,
                measure,
                claim,
                (subcollections, depth),
                timestamp,
                bar,
                dict(filters=filters, with_reproductions=with_reproductions),
                asked,
            )
            bar.update(description="report: rendering")
            text, files = _render(rep, fmt, target)
    if target is None:
        from litaudit.render.console import terminal_json

        typer.echo(terminal_json(text) if fmt == "json" else text, nl=False)
        return
    if fmt == "json":  # escaped as --json and standard output are
        from litaudit.render.console import terminal_json

        text = terminal_json(text)
    files[str(target)] = text  # last, so the report never points at missing images
    _write_all(files, [path])
    from litaudit.render.console import err

    err.print(
        f"wrote {target}" + (f" and {len(files) - 1} plot(s) beside it" if len(files) > 1 else ""),
        markup=False,
    )


def _checked_target(ctx: typer.Context, claim, fmt, output):
    """Check --claim and the output before any audit: (target path or None, format, db path)."""
    from litaudit.analyses.extreme.printed import printed
    from litaudit.files import STDOUT, check_target

    printed(claim, "--claim")  # a bad value refused before any audit

    target = None if output is None or output == STDOUT else Path(output)
    fmt = _format(fmt, target)
    path = db_path(ctx)
    if target is not None:
        check_target(output, [path])  # refused before any audit is run or stored
    existing_db(ctx)  # only `litaudit init` creates a database
    return target, fmt, path


def _build(
    ctx: typer.Context, collection, measure, claim, subcollections, timestamp, bar, filters, asked
):
    """Run and store the missing audits (each note a step of ``bar``), then build the
    report from the stored ones."""
    from litaudit.analyses.report_audits import ReuseAsked, prepare_report
    from litaudit.cli.common import open_write
    from litaudit.render.console import err
    from litaudit.render.report import build_report

    def note(message: str) -> None:
        err.print(message, markup=False)
        bar(1)

    with open_write(ctx) as store:
        audits = prepare_report(
            store.con,
            collection,
            measure=measure,
            claim=claim,
            note=note,
            subcollections=ReuseAsked(subcollections=subcollections[0], depth=subcollections[1]),
            **filters,  # the filters and whether the history takes reproductions
            evidence=asked,
            progress=bar,
        )
        return build_report(store.con, audits, timestamp=timestamp)


def _build_claims(ctx: typer.Context, lines, subcollections, timestamp, bar, filters) -> list:
    """One report per claim of the file, its audits run and stored first; a claim that
    cannot be audited is named by its file and line."""
    from litaudit.analyses.claims_file import ClaimLine
    from litaudit.analyses.extreme.claim_evidence import Asked
    from litaudit.analyses.report_audits import prepare_report
    from litaudit.cli.common import open_write
    from litaudit.errors import InputError
    from litaudit.render.console import err
    from litaudit.render.report import build_report

    def note(message: str) -> None:
        err.print(message, markup=False)
        bar(1)

    reps = []
    with open_write(ctx) as store:
        for c in lines:
            assert isinstance(c, ClaimLine)
            asked = Asked(c.run, c.against, c.baseline, c.baseline_system)
            try:
                audits = prepare_report(
                    store.con,
                    c.collection,
                    measure=c.measure,
                    claim=c.value,
                    note=note,
                    subcollections=subcollections,
                    **filters,  # the filters and whether the history takes reproductions
                    evidence=asked,
                    progress=bar,
                )
                reps.append(build_report(store.con, audits, timestamp=timestamp))
            except InputError:
                raise
            except LitauditError as exc:
                raise InputError(c.file, c.line, f"{c.label()}: {exc}") from None
    return reps


def _render_claims(reps, fmt, target, source: str):
    """The claims document's text and, for Markdown to a file, its plots by path."""
    from litaudit.render.report.claims import TITLE, claims_blocks, claims_json
    from litaudit.render.report.html import render_html_blocks
    from litaudit.render.report.markdown import render_markdown_blocks
    from litaudit.render.report.text import render_text_blocks

    files: dict[str | os.PathLike, str] = {}
    if fmt == "json":
        return claims_json(reps, source), files
    bs = claims_blocks(reps, source)
    if fmt == "md":
        text, images = render_markdown_blocks(bs, target.stem if target else None)
        if target:
            files = {str(target.parent / name): svg for name, svg in images.items()}
    elif fmt == "html":
        text = render_html_blocks(TITLE, bs)
    else:
        text = render_text_blocks(bs)
    return text, files


def _render(rep, fmt, target):
    """The report's text and, for Markdown to a file, its plots by path."""
    from litaudit.render.report import render_html, render_json, render_markdown, render_text

    files: dict[str | os.PathLike, str] = {}
    if fmt == "md":
        text, images = render_markdown(rep, target.stem if target else None)
        if target:
            files = {str(target.parent / name): svg for name, svg in images.items()}
    elif fmt == "html":
        text = render_html(rep)
    elif fmt == "text":
        text = render_text(rep)
    else:
        text = render_json(rep)
    return text, files


def _format(fmt: str | None, output: Path | None) -> str:
    if fmt is None:
        return _SUFFIX_FORMAT.get(output.suffix.lower(), "md") if output else "md"
    f = fmt.strip().lower().lstrip(".")
    f = {"markdown": "md", "htm": "html", "txt": "text"}.get(f, f)
    if f not in ("md", "html", "json", "text"):
        raise LitauditError(f"--format: {fmt!r} is not one of md, html, json, text")
    return f


def _write_all(files: dict[str | os.PathLike, str], protect) -> None:
    """Write every file through a temporary beside it, then rename: nothing half-written,
    nothing left behind, never over the database."""
    from litaudit.files import write_files

    write_files(files, protect)
