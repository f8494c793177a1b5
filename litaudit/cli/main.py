"""Root of the `litaudit` command: global options, sub-apps, error handling."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from typer.core import TyperGroup

from litaudit import __version__
from litaudit.errors import LitauditError, ValidationFailed


class _Group(TyperGroup):
    """Turns every LitauditError into one red line on stderr and exit code 1."""

    def invoke(self, ctx):  # click.Context (typer may vendor click: not annotated)
        try:
            return super().invoke(ctx)
        except ValidationFailed as exc:
            from litaudit.render.console import err, error

            for p in exc.problems:
                err.print(f"  {p}", markup=False)
            error(f"{len(exc.problems)} problem(s); nothing was written")
            raise typer.Exit(1) from None
        except LitauditError as exc:
            from litaudit.render.console import error

            error(str(exc))
            raise typer.Exit(1) from None
        except Exception as exc:
            # a DuckDB error that no layer turned into a LitauditError: still one line
            if type(exc).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
                raise
            from litaudit.render.console import error

            root = ctx.find_root().obj or {}
            where = f"{root.get('db')}: " if root.get("db") else ""
            error(f"{where}database error: {str(exc).splitlines()[0]}")
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=_Group,
    name="litaudit",
    help="Audit published IR effectiveness claims and test-collection reusability.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool):
    if value:
        print(f"litaudit {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: Path = typer.Option(None, "--db", envvar="LITAUDIT_DB",
                            help="Database file (default: $LITAUDIT_DB or ./litaudit.duckdb).",
                            show_default=False),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
):
    """litaudit: is this state-of-the-art claim real, and can this collection be trusted?"""
    ctx.obj = {"db": db}


def _register():
    from litaudit.cli import (
        audit,
        collections,
        db,
        measures,
        papers,
        report,
        results,
        reuse,
        runs,
    )

    app.add_typer(db.app, name="db")
    app.command("init")(db.init)
    app.add_typer(collections.app, name="collections")
    app.add_typer(measures.app, name="measures")
    app.add_typer(papers.app, name="papers")
    app.add_typer(results.app, name="results")
    app.add_typer(runs.app, name="runs")
    app.add_typer(audit.app, name="audit")
    app.add_typer(reuse.app, name="reuse")
    app.command("report")(report.report)


_register()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
