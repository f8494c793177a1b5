"""What `init` and `db migrate` print: what they did to the database, a table or lines of
text, or ``--json`` (the answers of :mod:`litaudit.curation.init_request` and
:mod:`litaudit.store.migration_requests`)."""

from __future__ import annotations

import dataclasses

from litaudit.codec import to_jsonable
from litaudit.curation.init_request import InitReport
from litaudit.render.console import out, print_json, table
from litaudit.render.seeds import seed_sync_lines
from litaudit.store.migration_requests import MigrationDone, MigrationList


def print_init(rep: InitReport, json_out: bool) -> None:
    """`init`: the rows added, the seed sync (ids a user changed, left alone) and the
    results per collection and measure; ``--no-seeds``: the first line alone."""
    if json_out:
        data = to_jsonable(rep)
        if rep.seeds is None:  # --no-seeds: no sync to report
            del data["seeds"]
        print_json(data)
        return
    a = rep.added
    out.print(
        f"{rep.path}: added {a.results} results, {a.papers} papers, {a.collections} "
        f"collections ({a.measures} measures)"
    )
    if rep.seeds is None:
        return
    for line in seed_sync_lines(dataclasses.asdict(rep.seeds)):
        out.print(line)
    out.print(
        table(
            "Results per collection and measure (excluding retracted)",
            ["collection", "measure", "papers", "official"],
            [(r.collection, r.measure, r.paper, r.official) for r in rep.counts],
        )
    )


def print_migrations(answer: MigrationList | MigrationDone, json_out: bool) -> None:
    """`db migrate`: the migrations and when each was applied (``--list``), or what was
    applied (the schema before and after)."""
    if isinstance(answer, MigrationList):
        if json_out:
            print_json(answer.rows)
        else:
            rows = [(m.version, m.name, m.applied_at) for m in answer.rows]
            out.print(table(f"Migrations ({answer.path})", ["version", "name", "applied"], rows))
        return
    if json_out:
        print_json(
            {
                "path": str(answer.path),
                "from": answer.before,
                "to": answer.after,
                "applied": list(answer.applied),
            }
        )
    elif answer.applied:
        done = ", ".join(answer.applied)
        out.print(f"{answer.path}: schema {answer.before} -> {answer.after} ({done})")
    else:
        out.print(f"{answer.path}: schema {answer.after} is up to date")
