"""What `litaudit report` prints: the report (or a claims file's one document) built from
the stored audits (:func:`~litaudit.render.report.build.build_report`), formatted (Markdown,
HTML, JSON or the plain-text review form) and written to its file with its plots (all or
nothing, never over the database: :func:`litaudit.files.write_files`), or printed on
standard output."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from litaudit.analyses.report_request import ReportAnswer
from litaudit.files import write_files
from litaudit.render.console import err, terminal_json
from litaudit.render.progress import progress_bar
from litaudit.render.report import render_json
from litaudit.render.report.build import build_report
from litaudit.render.report.claims import TITLE, claims_blocks, claims_json
from litaudit.render.report.html import render_html, render_html_blocks
from litaudit.render.report.markdown import render_markdown, render_markdown_blocks
from litaudit.render.report.model import Report
from litaudit.render.report.text import render_text, render_text_blocks

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, kw_only=True)
class ReportDocument:
    """A report as written: its text (JSON already escaped for a terminal) and, for
    Markdown to a file, its plots by path (written beside it)."""

    text: str
    plots: dict[str, str]


def report_document(con: duckdb.DuckDBPyConnection, done: ReportAnswer) -> ReportDocument:
    """The document of ``done``: each report built from its stored audits on ``con``
    (timestamped when asked), then formatted as the request says."""
    req = done.request
    reps = [build_report(con, a, timestamp=req.timestamp) for a in done.audits]
    assert req.fmt is not None  # checked()
    if req.claims is not None:
        text, plots = _claims_text(reps, req.fmt, req.target, str(req.claims))
    else:
        text, plots = _text(reps[0], req.fmt, req.target)
    return ReportDocument(text=terminal_json(text) if req.fmt == "json" else text, plots=plots)


def print_report(con: duckdb.DuckDBPyConnection, done: ReportAnswer) -> None:
    """Build and format the report of ``done`` (:func:`report_document`, under a bar of
    its own); print it on standard output, or write it with its plots (the report last, so it never points at
    a missing image) and say so on stderr."""
    req = done.request
    with progress_bar("report: rendering", unit="steps", quiet=req.fmt == "json"):
        doc = report_document(con, done)
    target = req.target
    if target is None:
        typer.echo(doc.text, nl=False)
        return
    # the report last, so it never points at a missing plot
    files: dict[str | os.PathLike, str] = dict(doc.plots.items())
    files[str(target)] = doc.text
    write_files(files, [req.database])
    err.print(
        f"wrote {target}" + (f" and {len(files) - 1} plot(s) beside it" if len(files) > 1 else ""),
        markup=False,
    )


def _claims_text(
    reps: list[Report], fmt: str, target: Path | None, source: str
) -> tuple[str, dict[str, str]]:
    """The claims document's text and, for Markdown to a file, its plots by path."""
    if fmt == "json":
        return claims_json(reps, source), {}
    bs = claims_blocks(reps, source)
    if fmt == "md":
        text, images = render_markdown_blocks(bs, target.stem if target else None)
        return text, _beside(target, images)
    if fmt == "html":
        return render_html_blocks(TITLE, bs), {}
    return render_text_blocks(bs), {}


def _text(rep: Report, fmt: str, target: Path | None) -> tuple[str, dict[str, str]]:
    """The report's text and, for Markdown to a file, its plots by path."""
    if fmt == "md":
        text, images = render_markdown(rep, target.stem if target else None)
        return text, _beside(target, images)
    if fmt == "html":
        return render_html(rep), {}
    if fmt == "text":
        return render_text(rep), {}
    return render_json(rep), {}


def _beside(target: Path | None, images: dict[str, str]) -> dict[str, str]:
    """The plots by their path beside ``target`` (none on standard output)."""
    return {str(target.parent / name): svg for name, svg in images.items()} if target else {}
