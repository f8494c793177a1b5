"""`litaudit report`: audit reports for reviewers (Markdown, HTML, JSON)."""

from __future__ import annotations

import typer


def report(ctx: typer.Context):
    """Write an audit report for a collection (not built yet)."""
    raise typer.Exit(2)
