"""`litaudit export-tree`, `sync` and `check`: a store as a folder of files under version
control (:mod:`litaudit.curation.tree`, :mod:`litaudit.curation.sync`)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import ConsistencyOpt, DryRunOpt, Json, WhoOpt

FolderArg = typer.Argument(..., help="The store folder (papers/, official/).")


def export_tree(ctx: typer.Context, folder: Path = FolderArg, json_out: Json = False):
    """Write the store as a folder of small files, for git.

    One file per paper and per official track and collection, one result per line with
    its history. Files whose text is unchanged are not rewritten; a paper or track the store no
    longer has loses its file. Format: docs/DEVELOPING.md, "Store folder"."""
    from dataclasses import asdict

    from litaudit.curation.tree_write import write_tree
    from litaudit.render.console import out, print_json

    with open_read(ctx) as store:
        rep = write_tree(store.con, folder)
    if json_out:
        print_json({"folder": str(folder), **asdict(rep)})
        return
    out.print(
        f"{folder}: {rep.results} results and {rep.papers} papers in "
        f"{rep.written + rep.unchanged} files ({rep.written} written, {rep.unchanged} "
        f"unchanged, {rep.removed} removed; {rep.bytes} bytes)"
    )


def sync(
    ctx: typer.Context,
    folder: Path = FolderArg,
    dry_run: bool = DryRunOpt,
    prune: bool = typer.Option(
        False,
        "--prune",
        help="The folder wins: retract results it does not hold, take its version of "
        "results changed here since (default: keep and name them).",
    ),
    who: str = WhoOpt,
    json_out: Json = False,
):
    """Bring the database to a store folder, in one transaction.

    Adds and updates what the folder holds; copies the folder's history and records a
    change it does not explain as yours ("synced from FILE"). Local work the folder
    does not have (results not in it, results changed here since their last export) is
    kept and named; --prune retracts those results and takes the folder's version.
    Validated like `results import`, and refused whenever `check` refuses: any problem
    writes nothing. A second sync of the same folder changes nothing."""
    from litaudit.curation.tree_requests import answer_sync
    from litaudit.render.curation import print_sync

    with open_write(ctx, migrate=not dry_run) as store:
        rep = answer_sync(store, folder, who=who, dry_run=dry_run, prune=prune)
    print_sync(folder, rep, json_out)


def check(
    ctx: typer.Context,
    folder: Path = FolderArg,
    consistency: str = ConsistencyOpt,
    json_out: Json = False,
):
    """Check a store folder as `sync` would, for CI.

    Every problem with its file and line, exit code 1 if there is any (with --json, a
    JSON list on stderr); values that fail the consistency check are flagged or refused
    (--consistency)."""
    from litaudit.curation.tree_requests import answer_check
    from litaudit.render.curation import print_check

    print_check(folder, answer_check(folder, consistency), json_out)
