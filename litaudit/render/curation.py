"""What the curation commands print: `results list`'s rows, `results history`'s window
and what `results import` did (moved out of the commands, which only parse and call)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.results import LIST_COLUMNS
from litaudit.render.console import out, plain_rows, print_json, table
from litaudit.render.findings import finding_json

if TYPE_CHECKING:
    from litaudit.curation.consistency_rows import Finding
    from litaudit.curation.sync import SyncReport

# more rows than this are printed as plain lines (rich lays out ~1,000 rows a second)
PAGE_MAX = 500
# the columns of the terminal's table: what a curator needs at 80 columns
TERMINAL_COLUMNS = ["id", "collection", "measure", "value", "system", "source", "year", "status"]


def print_listing(rows: list[tuple], total: int, given: tuple[str, ...] = ()) -> None:
    """`results list`'s rows: a table that fits the terminal, or plain lines."""
    headers = [h for h, _ in LIST_COLUMNS]
    if not out.is_terminal or len(rows) > PAGE_MAX:  # rich lays out ~1,000 rows a second
        lines = list(plain_rows(headers, rows))
        for i in range(0, len(lines), 4096):  # as --json: pieces, a closed pipe stops it
            sys.stdout.write("".join(line + "\n" for line in lines[i : i + 4096]))
        return
    # the collection or measure asked for goes in the title (every row has it), so that
    # 80 columns leave room for whole words
    same = [h for h in given if rows and len({r[headers.index(h)] for r in rows}) == 1]
    cols = [h for h in TERMINAL_COLUMNS if h not in same]
    shown = [headers.index(h) for h in cols]
    of = " ".join(str(rows[0][headers.index(h)]) for h in same)
    title = f"{total} results" + (f" ({of})" if of else "")
    title += f", the first {len(rows)}" if len(rows) < total else ""
    out.print(
        table(
            title,
            cols,
            [[r[i] for i in shown] for r in rows],
            keep=tuple(h for h in ("id", "measure", "year", "status") if h in cols),
        )
    )
    if len(rows) < total:
        out.print(f"{total - len(rows)} more: --all (or --limit N, --sort, a filter)")


def print_history(title: str, entries: Sequence) -> None:
    """A result's history (`results show`, `results history ID`): one row a change."""
    columns = ["when", "who", "action", "field", "old", "new", "reason"]
    rows = [
        (x.changed_at, x.who, x.action, x.field, x.old_value, x.new_value, x.reason)
        for x in entries
    ]
    out.print(table(title, columns, rows))


def print_window(rows: list) -> None:
    """`results history` of a window: a table, or (over :data:`PAGE_MAX` changes, which
    rich would lay out at ~1,000 rows a second) its title and plain lines."""

    title = f"{len(rows)} changes"
    columns = ["when", "who", "result", "collection", "measure", "system", "action", "field"]
    columns += ["old", "new", "reason"]
    cells = [
        (
            x.changed_at,
            x.who,
            x.result_id,
            x.collection_id,
            x.measure,
            x.system,
            x.action,
            x.field,
            x.old_value,
            x.new_value,
            x.reason,
        )
        for x in rows
    ]
    if len(cells) > PAGE_MAX:
        lines = [title, *plain_rows(columns, cells)]
        for i in range(0, len(lines), 4096):  # in pieces: a closed pipe stops it
            sys.stdout.write("".join(line + "\n" for line in lines[i : i + 4096]))
        return
    out.print(table(title, columns, cells))


def print_import(reports, json_out: bool) -> None:
    """What `results import` did (or would do), file by file."""

    if json_out:
        print_json(
            [
                {
                    "file": r.file,
                    "results": r.added_results,
                    "papers": r.added_papers,
                    "skipped": r.skipped,
                    "updated": r.updated,
                    "unchanged": r.unchanged,
                    "history": r.history,
                    "dry_run": r.dry_run,
                    "flagged": [finding_json(f) for f in p.findings],
                }
                for r, p in reports
            ]
        )
        return
    for rep, plan in reports:
        verb = "would add" if rep.dry_run else "added"
        extra = "".join(
            f", {'would ' if rep.dry_run else ''}{w} {n} {what}"
            for w, n, what in (
                ("skipped", rep.skipped, "already present"),
                ("updated", rep.updated, "existing"),
                ("left", rep.unchanged, "unchanged"),
                ("copied", rep.history, "history entries"),
            )
            if n
        )
        out.print(
            f"{rep.file}: {verb} {rep.added_results} results and {rep.added_papers} papers{extra}"
        )
        if rep.dry_run and plan.results:
            out.print(
                table(
                    None,
                    ["line", "collection", "measure", "value", "system", "role"],
                    [
                        (
                            p.line,
                            p.values["collection_id"],
                            p.values["measure"],
                            p.values["value_text"],
                            p.values["system"],
                            p.values["role"],
                        )
                        for p in plan.results[:50]
                    ],
                )
            )
            if len(plan.results) > 50:
                out.print(f"... and {len(plan.results) - 50} more")
        for f in plan.findings:
            out.print(f"flagged: {f.line()}" + (f" [other value: {f.other}]" if f.other else ""))


def print_db_info(info: dict, json_out: bool) -> None:
    """`db info`: the database's path, schema versions and row counts per table."""
    if json_out:
        print_json(info)
        return
    out.print(
        f"{info['path']}: schema version {info['schema_version']} (code {info['code_version']})"
    )
    out.print(table(None, ["table", "rows"], sorted(info["tables"].items())))


def print_sync(folder: Path, rep: SyncReport, json_out: bool) -> None:
    """`sync`: what it did (or, with --dry-run, would do), each change of a dry run, and
    what it kept: results the folder lacks, results changed here since."""
    if json_out:
        print_json(dataclasses.asdict(rep))
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


def print_check(folder: Path, flagged: Sequence[Finding], json_out: bool) -> None:
    """`check` of a folder without problems: the values flagged (a line each, or JSON)."""
    if json_out:
        print_json([{"flagged": f.line(), "other": f.other} for f in flagged])
        return
    out.print(f"{folder}: no problems")
    for f in flagged:
        out.print(f"flagged: {f.line()}" + (f" [other value: {f.other}]" if f.other else ""))
