"""`litaudit export-tree`, `sync` and `check`: a store as a folder of files under version
control (:mod:`litaudit.curation.tree`, :mod:`litaudit.curation.sync`)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import Json

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
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Check and list each change; write nothing."
    ),
    prune: bool = typer.Option(
        False,
        "--prune",
        help="The folder wins: retract results it does not hold, take its version of "
        "results changed here since (default: keep and name them).",
    ),
    who: str = typer.Option(
        None, "--who", help="Curator name (default: $LITAUDIT_USER or login).", show_default=False
    ),
    json_out: Json = False,
):
    """Bring the database to a store folder, in one transaction.

    Adds and updates what the folder holds; copies the folder's history and records a
    change it does not explain as yours ("synced from FILE"). Local work the folder
    does not have (results not in it, results changed here since their last export) is
    kept and named; --prune retracts those results and takes the folder's version.
    Validated like `results import`, and refused whenever `check` refuses: any problem
    writes nothing. A second sync of the same folder changes nothing."""
    from dataclasses import asdict

    from litaudit.curation.fields import current_user
    from litaudit.curation.sync import sync_tree
    from litaudit.render.console import out, print_json

    name = current_user(who)
    with open_write(ctx, migrate=not dry_run) as store:
        rep = sync_tree(store, folder, who=name, dry_run=dry_run, prune=prune)
    if json_out:
        print_json(asdict(rep))
        return
    would = "would " if rep.dry_run else ""
    out.print(
        f"{folder}: {rep.files} files; {would}add {rep.added} results and "
        f"{rep.papers_added} papers, {would}update {rep.updated} results and "
        f"{rep.papers_updated} papers, {would}retract {rep.retracted}; {rep.unchanged} "
        f"unchanged; {rep.history} history entries copied",
    )
    if rep.collections_added:
        out.print(f"collections {would}added: {', '.join(rep.collections_added)}")
    if rep.dry_run:
        for c in rep.changes:
            change = "" if c.old is None and c.new is None else f": {c.old!r} -> {c.new!r}"
            out.print(f"  {c.what} {c.field}{change}")
    if rep.not_in_folder:
        ids = ", ".join(f"#{i}" for i in rep.not_in_folder[:20])
        more = f" and {len(rep.not_in_folder) - 20} more" if len(rep.not_in_folder) > 20 else ""
        out.print(
            f"{len(rep.not_in_folder)} results of the database are not in the folder, kept: "
            f"{ids}{more} (`export-tree` adds them to it; `sync --prune` retracts them)",
            markup=False,
        )
    if rep.local_changes:
        out.print(
            f"{len(rep.local_changes)} results or papers changed here since the folder's version, "
            "kept as they are (`export-tree` to share them; `sync --prune` takes the "
            "folder's):",
            markup=False,
        )
        for line in rep.local_changes:
            out.print(f"  {line}")


def check(
    ctx: typer.Context,
    folder: Path = FolderArg,
    consistency: str = typer.Option(
        "flag",
        "--consistency",
        help="Values their measure's arithmetic does not allow (see `results consistency`): "
        "flag (listed, exit 0) | refuse (problems, exit 1) | off.",
    ),
    json_out: Json = False,
):
    """Check a store folder as `sync` would, for CI.

    Every problem with its file and line, exit code 1 if there is any (with --json, a
    JSON list on stderr); values that fail the consistency check are flagged or refused
    (--consistency)."""
    from litaudit.curation.sync import check_tree
    from litaudit.errors import ValidationFailed
    from litaudit.render.console import out, print_json

    mode = consistency.strip().lower()
    if mode not in ("flag", "refuse", "off"):
        from litaudit.errors import ParameterError

        raise ParameterError(f"--consistency: {consistency!r} is not one of flag, refuse, off")
    problems = check_tree(folder)
    flagged = []
    if mode != "off" and not problems:
        from litaudit.curation.consistency_rows import as_problems, folder_findings

        flagged = folder_findings(folder)
        if mode == "refuse" and flagged:
            problems = as_problems(flagged)
    if problems:
        raise ValidationFailed(problems)
    if json_out:
        print_json([{"flagged": f.line(), "other": f.other} for f in flagged])
    else:
        out.print(f"{folder}: no problems")
        for f in flagged:
            out.print(f"flagged: {f.line()}" + (f" [other value: {f.other}]" if f.other else ""))
