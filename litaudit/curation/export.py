"""Results export in the import format (CSV, JSON, Parquet): export -> import round-trips.

Values are written as the printed text (``value`` = ``value_text``) in every format, so
0.30 stays 0.30 and no digit is gained or lost.
"""

from __future__ import annotations

from pathlib import Path

from litaudit.curation.filters import CURATION, Filters
from litaudit.curation.results import query_results
from litaudit.curation.rows import COLUMNS
from litaudit.errors import LitauditError

FORMATS = ("csv", "json", "parquet")


def export_rows(con, f: Filters = CURATION, *, collection: str | None = None,
                measure: str | None = None) -> list[dict]:
    out = []
    for r in query_results(con, f, collection=collection, measure=measure):
        row = {
            "source": r["source"], "paper": r["bibkey"],
            "paper_citation": r["citation"], "paper_title": r["paper_title"],
            "paper_authors": r["paper_authors"], "paper_venue": r["paper_venue"],
            "paper_year": r["paper_year"], "paper_doi": r["paper_doi"],
            "paper_url": r["paper_url"], "paper_tags": r["paper_tags"],
            "track": r["track"], "collection": r["collection_id"], "topic_set": r["topic_set"],
            "n_topics": r["n_topics"], "measure": r["measure"], "value": r["value_text"],
            "system": r["system"], "participant": r["participant"], "role": r["role"],
            "run_type": r["run_type"], "year": r["year"],
            "standard": "true" if r["standard"] else "false", "location": r["location"],
            "transcribed_by": r["transcribed_by"], "transcribed_at": r["transcribed_at"],
            "status": r["status"], "notes": r["notes"], "date": r["date"],
            "reporter": r["reporter"], "url": r["url"], "code_url": r["code_url"],
        }
        out.append({c: ("" if row[c] is None else str(row[c])) for c in COLUMNS})
    return out


def format_for(path: Path, fmt: str | None) -> str:
    f = (fmt or Path(path).suffix.lstrip(".")).lower()
    if f not in FORMATS:
        raise LitauditError(f"{path}: cannot tell the export format; use --format "
                            f"{'|'.join(FORMATS)}")
    return f


def write_export(rows: list[dict], path: Path, fmt: str) -> None:
    """Write atomically: a temporary file beside the target, renamed at the end."""
    import csv
    import json

    from litaudit.files import atomic_path

    with atomic_path(path) as tmp:
        if fmt == "csv":
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                w = csv.DictWriter(fh, fieldnames=list(COLUMNS), lineterminator="\n")
                w.writeheader()
                w.writerows(rows)
        elif fmt == "json":
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(rows, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.table({c: pa.array([r[c] for r in rows], type=pa.string())
                              for c in COLUMNS})
            pq.write_table(table, tmp)
