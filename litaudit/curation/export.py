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


def export_row(r: dict) -> dict:
    """One row of :func:`litaudit.curation.results.query_results` in the import format."""
    row = {
        "source": r["source"],
        "paper": r["bibkey"],
        "paper_citation": r["citation"],
        "paper_title": r["paper_title"],
        "paper_authors": r["paper_authors"],
        "paper_venue": r["paper_venue"],
        "paper_year": r["paper_year"],
        "paper_doi": r["paper_doi"],
        "paper_url": r["paper_url"],
        "paper_tags": r["paper_tags"],
        "track": r["track"],
        "collection": r["collection_id"],
        "topic_set": r["topic_set"],
        "n_topics": r["n_topics"],
        "measure": r["measure"],
        "value": r["value_text"],
        "system": r["system"],
        "participant": r["participant"],
        "role": r["role"],
        "run_type": r["run_type"],
        "year": r["year"],
        "standard": "true" if r["standard"] else "false",
        "location": r["location"],
        "transcribed_by": r["transcribed_by"],
        "transcribed_at": r["transcribed_at"],
        "status": r["status"],
        "notes": r["notes"],
        "date": r["date"],
        "reporter": r["reporter"],
        "url": r["url"],
        "code_url": r["code_url"],
    }
    return {c: ("" if row[c] is None else str(row[c])) for c in COLUMNS}


def export_rows(
    con, f: Filters = CURATION, *, collection: str | None = None, measure: str | None = None
) -> list[dict]:
    return [export_row(r) for r in query_results(con, f, collection=collection, measure=measure)]


def format_for(path: Path, fmt: str | None) -> str:
    if fmt is not None and fmt.strip().lower() not in FORMATS:
        raise LitauditError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    f = (fmt or Path(path).suffix.lstrip(".")).strip().lower()
    if f not in FORMATS:
        raise LitauditError(
            f"{path}: cannot tell the export format; use --format {'|'.join(FORMATS)}"
        )
    return f


def write_export(
    rows: list[dict], path, fmt: str, *, protect=(), bundle: dict | None = None
) -> None:
    """Write atomically: a temporary file beside the target, renamed at the end (see
    :mod:`litaudit.files`; ``protect``: the open database). ``path`` ``-`` writes to
    standard output. JSON with ``bundle`` writes the curation export (papers, results,
    history) instead of the bare list of rows."""
    import csv
    import io
    import json
    import sys

    from litaudit.files import STDOUT, atomic_path

    def write(fh_path):
        if fmt == "csv":
            with open(fh_path, "w", newline="", encoding="utf-8") as fh:
                w = csv.DictWriter(fh, fieldnames=list(COLUMNS), lineterminator="\n")
                w.writeheader()
                w.writerows(rows)
        elif fmt == "json":
            with open(fh_path, "w", encoding="utf-8") as fh:
                json.dump(rows if bundle is None else bundle, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.table({c: pa.array([r[c] for r in rows], type=pa.string()) for c in COLUMNS})
            pq.write_table(table, fh_path)

    if str(path) == STDOUT:
        buf = io.BytesIO()
        if fmt == "parquet":
            import pyarrow.parquet as pq  # noqa: F401

            write(buf)
        else:
            import tempfile

            with tempfile.TemporaryDirectory() as d:
                write(f"{d}/out")
                buf.write(open(f"{d}/out", "rb").read())
        sys.stdout.flush()
        sys.stdout.buffer.write(buf.getvalue())
        sys.stdout.flush()
        return
    with atomic_path(path, protect) as tmp:
        write(tmp)
