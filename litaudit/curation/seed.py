"""`litaudit init`: reference data, ``seeds/papers/*.csv``, then ``seeds/results/*.csv``.

The seed files are imported through the normal importer (same validation); rows already
present with the same value are skipped, so a second run adds nothing. The loader reads
only ``seeds/`` (never ../shared).
"""

from __future__ import annotations

from pathlib import Path

from litaudit.curation.importer import ImportProgress, apply_plan, plan_import
from litaudit.curation.rows import read_table
from litaudit.store.refdata import SEEDS_DIR, load_reference_data

SEED_USER = "litaudit init"


def seed_files(seeds_dir: Path = SEEDS_DIR) -> list[Path]:
    d = seeds_dir / "results"
    return sorted([*d.glob("*.csv"), *d.glob("*.csv.gz")])


def load_seeds(
    store,
    seeds_dir: Path = SEEDS_DIR,
    *,
    seeds: bool = True,
    progress: ImportProgress | None = None,
) -> dict:
    """Reference data, then (unless ``seeds=False``) the seed papers and results;
    ``progress`` is told every seed row, when the files are read, checked and written."""
    added = {"results": 0, "papers": 0}
    with store.transaction():
        added.update(load_reference_data(store.con, seeds_dir))
    files: list[dict] = []
    if not seeds:
        return {"path": store.path, "added": added, "files": files, "counts": []}
    from litaudit.curation.papers import import_bibtex

    for path in sorted((seeds_dir / "papers").glob("*.csv")):
        bib = import_bibtex(store, path, who=SEED_USER, skip_existing=True)
        added["papers"] += bib["added"]
        files.append(
            {"file": f"papers/{path.name}", "added": bib["added"], "skipped": bib["skipped"]}
        )
    tables = [(path, read_table(path)) for path in seed_files(seeds_dir)]
    if progress is not None:
        progress(total=sum(len(t.rows) for _, t in tables))
    for path, table in tables:
        plan = plan_import(
            store.con,
            table.rows,
            str(path),
            on_existing="same",
            columns=table.columns,
            header_line=table.header_line,
            problems=table.problems,
            progress=progress,
        )
        rep = apply_plan(
            store,
            plan,
            who=SEED_USER,
            reason=f"seeded from seeds/results/{path.name}",
            progress=progress,
        )
        added["results"] += rep.added_results
        added["papers"] += rep.added_papers
        files.append(
            {"file": f"results/{path.name}", "added": rep.added_results, "skipped": rep.skipped}
        )
    counts = store.con.execute(
        "SELECT c.name, r.measure, count(*) FILTER (WHERE r.source = 'paper'), "
        "count(*) FILTER (WHERE r.source = 'official') FROM results r "
        "JOIN collections c ON c.id = r.collection_id WHERE r.status <> 'retracted' "
        "GROUP BY ALL ORDER BY 1, 2"
    ).fetchall()
    return {
        "path": store.path,
        "added": added,
        "files": files,
        "counts": [
            {"collection": c, "measure": m, "paper": p, "official": o} for c, m, p, o in counts
        ],
    }
