"""Root of the `litaudit` command: global options, sub-apps, error handling."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from typer._click.exceptions import UsageError  # typer >= 0.26 vendors click
from typer.core import TyperCommand, TyperGroup

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
        except BrokenPipeError:
            raise  # the reader of stdout went away (`litaudit ... | head`): see main()
        except OSError as exc:
            # a file the command reads or writes: one line naming it and the system's reason
            name = f"{exc.filename}: " if exc.filename else ""
            _report(ctx, [Problem("", None, f"{name}{exc.strerror or exc}")], None, details=False)
            raise typer.Exit(1) from None
        except Exception as exc:
            # a DuckDB error that no layer turned into a LitauditError: still one line
            if type(exc).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
                raise
            from litaudit.store.db import describe_error

            root = ctx.find_root().obj or {}
            said = describe_error(exc, str(root["db"]) if root.get("db") else None)
            _report(ctx, [Problem("", None, said)], None, details=False)
            raise typer.Exit(1) from None


# Every command: (its words, module of litaudit.cli, function), in the order --help lists
# them; the one way a command is registered. A command of two words belongs to the group
# named by its first (`audit best`), whose help is _LISTED_HELP's; a group's commands may
# live in several modules, each module named after its commands. A group or command is
# imported and turned into a click command only when it is used (see _LazyCommands): a
# command loads its group's modules and nothing of the others.
_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("init", "init", "init"),
    ("report", "report", "report"),
    ("db migrate", "db", "migrate"),
    ("db info", "db", "info"),
    ("collections list", "collections", "list_"),
    ("collections show", "collections", "show"),
    ("collections add", "collections", "add"),
    ("collections depth", "collections", "depth_cmd"),
    ("measures list", "measures", "list_"),
    ("papers add", "papers", "add"),
    ("papers list", "papers", "list_"),
    ("papers show", "papers", "show"),
    ("papers edit", "papers", "edit"),
    ("papers import", "papers", "import_"),
    ("results list", "results_read", "list_"),
    ("results show", "results_read", "show"),
    ("results add", "results_write", "add"),
    ("results import", "results_write", "import_"),
    ("results template", "results_write", "template"),
    ("results edit", "results_write", "edit"),
    ("results verify", "results_write", "verify"),
    ("results retract", "results_write", "retract"),
    ("results reinstate", "results_write", "reinstate"),
    ("results history", "results_read", "history_"),
    ("results export", "results_read", "export"),
    ("results consistency", "results_read", "consistency_"),
    ("export-tree", "tree", "export_tree"),
    ("sync", "tree", "sync"),
    ("check", "tree", "check"),
    ("check-change", "change", "check_change"),
    ("runs import", "runs", "import_"),
    ("runs list", "runs", "list_"),
    ("runs show", "runs", "show"),
    ("runs delete", "runs", "delete"),
    ("runs eval", "runs", "eval_"),
    ("audit best", "audit", "best"),
    ("audit claim", "audit", "claim"),
    ("audit baselines", "audit", "baselines"),
    ("audit history", "audit", "history"),
    ("audit summary", "audit", "summary"),
    ("audit ranks", "audit", "ranks"),
    ("audit list", "audit_store", "list_"),
    ("audit show", "audit_store", "show"),
    ("audit matrix", "audit_store", "matrix"),
    ("audit resolution", "audit_records", "resolution"),
    ("reuse rao", "reuse_overlap", "rao_cmd"),
    ("reuse lou", "reuse_overlap", "lou_cmd"),
    ("reuse subcollections", "reuse_overlap", "subcollections_cmd"),
    ("reuse verdict", "reuse_verdict", "verdict_cmd"),
    ("reuse power", "reuse_design", "power_cmd"),
    ("reuse table", "reuse_design", "table_cmd"),
    ("reuse design", "reuse_design", "design_cmd"),
    ("reuse holdout", "reuse_design", "holdout_cmd"),
    ("reuse agreement", "reuse_design", "agreement_cmd"),
    ("site", "site", "site"),
)
# the root's commands and groups, in --help order
_TOP: tuple[str, ...] = tuple(dict.fromkeys(words.split()[0] for words, _, _ in _COMMANDS))


# What the root's --help lists for each (the first paragraph of its help): listing them
# loads none of their modules (tests/cli/test_command_imports.py checks each against the
# command's own help and the whole screen against one made from the loaded commands).
_LISTED_HELP: dict[str, str] = {
    "init": "Create the database (if needed) and load seeds/, or bring an existing one up to them.",
    "report": "Write an audit report of a collection, built only from stored audits.",
    "db": "Create, migrate and inspect the database.",
    "collections": "Test collections (ir_datasets ids, aliases, topic sets).",
    "measures": "Measures in ir_measures syntax, with trec_eval aliases.",
    "papers": "Add, list, show, edit and import (BibTeX) papers.",
    "results": "Add, import, edit, verify, retract and export published results.",
    "export-tree": "Write the store as a folder of small files, for git.",
    "sync": "Bring the database to a store folder, in one transaction.",
    "check": "Check a store folder as `sync` would, for CI.",
    "check-change": "The Markdown verdict on the results a change adds to a store folder, for CI.",
    "runs": "Import TREC run archives and evaluate them as trec_eval does.",
    "audit": "Published results against the record and against chance (Carterette, SIGIR 2015)",
    "reuse": "Can this test collection be trusted for systems that did not build it?",
    "site": "Write a static site of the audited leaderboards, built only from stored audits.",
}


def _typer(**kw: Any) -> typer.Typer:
    """A Typer app with the root's settings (which add_typer passes on to sub-apps)."""
    return typer.Typer(add_completion=False, pretty_exceptions_enable=False, **kw)


class _LazyCommands(dict):
    """The root's sub-commands by name, each made on first look-up (``get``, ``[]``);
    iterating (help, suggestions) makes them all."""

    def __init__(self, eager):
        super().__init__(eager)
        self._todo = {name for name in _TOP if name not in eager}
        self.listing = False  # the root's --help is being written: names and help suffice

    def _load(self, name: str) -> None:
        import importlib

        self._todo.discard(name)
        holder = _typer()
        group = None
        for words, mod, attr in _COMMANDS:
            first, _, sub = words.partition(" ")
            if first != name:
                continue
            fn = getattr(importlib.import_module(f"litaudit.cli.{mod}"), attr)
            if not sub:
                holder.command(name)(fn)
                continue
            if group is None:
                group = typer.Typer(help=_LISTED_HELP[name], no_args_is_help=True)
                holder.add_typer(group, name=name)
            group.command(sub)(fn)
        super().__setitem__(name, typer.main.get_group(holder).commands[name])

    def __getitem__(self, name):
        if self.listing and name in self._todo:
            return TyperCommand(name=name, help=_LISTED_HELP[name])
        if name in self._todo:
            self._load(name)
        return super().__getitem__(name)

    def get(self, name, default=None):
        return self[name] if name in self else default

    def __contains__(self, name) -> bool:
        return name in self._todo or super().__contains__(name)

    def keys(self):
        return list(_TOP)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self) -> int:
        return len(_TOP)

    def items(self):
        return [(name, self[name]) for name in self.keys()]

    def values(self):
        return [self[name] for name in self.keys()]


class _Root(_Group):
    """The root group: its sub-commands come from _COMMANDS, made when used."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.commands: _LazyCommands = _LazyCommands(self.commands)

    def format_help(self, ctx, formatter) -> None:
        self.commands.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.commands.listing = False


app = _typer(
    cls=_Root,
    name="litaudit",
    help="Audit published IR effectiveness claims and test-collection reusability.",
    no_args_is_help=True,
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


def main() -> None:
    from litaudit.runtime import command_environment

    command_environment()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # stdout was closed by its reader (`| head`): stop quietly, as other tools do, and
        # keep Python from reporting the failed flush of stdout at exit
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
