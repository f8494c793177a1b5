"""Root of the `litaudit` command: global options, sub-apps, error handling."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from typer.core import TyperGroup

try:  # typer >= 0.16 vendors click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover
    from click import UsageError  # type: ignore[no-redef]

from litaudit import __version__
from litaudit.defaults import MAX_PROBLEMS_SHOWN as MAX_SHOWN
from litaudit.errors import LitauditError, ValidationFailed


def _json_errors(ctx: typer.Context) -> bool:
    """Was the command given --json (errors then go to stderr as JSON)?"""
    return "--json" in (ctx.meta.get("litaudit.argv") or [])


def _report(ctx: typer.Context, problems, summary: str | None, *, details: bool) -> None:
    """Print problems on stderr: one line each (and a summary), or a JSON list."""
    if _json_errors(ctx):
        from litaudit.render.console import dumps, terminal_json

        sys.stderr.write(terminal_json(dumps([p.as_dict() for p in problems])) + "\n")
        return
    from litaudit.render.console import err, error

    if details:
        for p in problems[:MAX_SHOWN]:
            err.print(f"  {p}")
        if len(problems) > MAX_SHOWN:
            err.print(f"  ... and {len(problems) - MAX_SHOWN} more (all of them with --json)")
    error(summary if summary is not None else str(problems[0]))


class _Group(TyperGroup):
    """Turns every LitauditError into one red line on stderr and exit code 1 (with
    --json: a JSON list of {file, line, field, message} on stderr)."""

    def invoke(self, ctx):  # click.Context (typer may vendor click: not annotated)
        from litaudit.errors import Problem, problems_of

        ctx.meta["litaudit.argv"] = [*(getattr(ctx, "_protected_args", None) or []), *ctx.args]
        try:
            return super().invoke(ctx)
        except ValidationFailed as exc:
            _report(
                ctx,
                exc.problems,
                f"{len(exc.problems)} problem(s); nothing was written",
                details=True,
            )
            raise typer.Exit(1) from None
        except LitauditError as exc:
            _report(ctx, problems_of(exc), str(exc), details=False)
            raise typer.Exit(1) from None
        except UsageError as exc:
            if not _json_errors(ctx):
                raise
            _report(ctx, [Problem("", None, exc.format_message())], None, details=False)
            raise typer.Exit(2) from None
        except OSError as exc:
            # a file the command reads or writes: one line naming it and the system's reason
            name = f"{exc.filename}: " if exc.filename else ""
            _report(ctx, [Problem("", None, f"{name}{exc.strerror or exc}")], None, details=False)
            raise typer.Exit(1) from None
        except Exception as exc:
            # a DuckDB error that no layer turned into a LitauditError: still one line
            if type(exc).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
                raise
            root = ctx.find_root().obj or {}
            where = f"{root.get('db')}: " if root.get("db") else ""
            _report(
                ctx,
                [Problem("", None, f"{where}database error: {str(exc).splitlines()[0]}")],
                None,
                details=False,
            )
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
    db: Path = typer.Option(
        None,
        "--db",
        envvar="LITAUDIT_DB",
        help="Database file (default: $LITAUDIT_DB or ./litaudit.duckdb).",
        show_default=False,
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
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
    from litaudit.runtime import command_environment

    command_environment()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
