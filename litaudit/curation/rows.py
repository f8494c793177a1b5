"""The results file format (docs/DEVELOPING.md, "Results import format"): its columns,
in export order, and reading a CSV / TSV, JSON or Parquet file into raw rows with their
line numbers (unknown columns refused with a did-you-mean). Validation and writing are in
:mod:`litaudit.curation.importer`; :mod:`litaudit.curation.export` writes the same columns.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from litaudit.errors import LitauditError, Problem, ValidationFailed
from litaudit.measures import did_you_mean

# The import/export columns, in export order (docs/DEVELOPING.md, "Results import format").
COLUMNS = (
    "source", "paper", "paper_citation", "paper_title", "paper_authors", "paper_venue",
    "paper_year", "paper_doi", "paper_url", "paper_tags", "track", "collection", "topic_set",
    "n_topics", "measure", "value", "system", "participant", "role", "run_type", "year",
    "standard", "location", "transcribed_by", "transcribed_at", "status", "notes",
    "date", "reporter", "url", "code_url",
)

@dataclass
class Row:
    """One raw input row: its line number and its fields as text."""

    line: int
    data: dict


def read_rows(path: Path) -> list[Row]:
    """Rows of a CSV (header line 1), JSON (a list of objects) or Parquet file."""
    path = Path(path)
    if not path.exists():
        raise LitauditError(f"{path}: no such file")
    suffix = path.suffix.lower()
    gz = suffix == ".gz"
    if gz:  # a gzipped CSV/TSV (the large seed files)
        suffix = Path(path.stem).suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        import gzip

        opener = gzip.open(path, "rt", newline="", encoding="utf-8-sig") if gz else \
            path.open(newline="", encoding="utf-8-sig")
        with opener as fh:
            reader = csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
            if reader.fieldnames is None:
                raise LitauditError(f"{path}: empty file")
            _check_columns(path, reader.fieldnames)
            rows = []
            for rec in reader:
                if None in rec:
                    raise ValidationFailed([Problem(str(path), reader.line_num,
                                                    "more cells than header columns")])
                rows.append(Row(reader.line_num, rec))
            return rows
    if suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise LitauditError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
        if isinstance(data, dict) and "results" in data:
            data = data["results"]
        if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
            raise LitauditError(f"{path}: expected a JSON list of objects")
        cols = sorted({k for x in data for k in x})
        _check_columns(path, cols)
        # JSON records are numbered from 1 (reported as the line)
        return [Row(i + 1, {k: _json_text(v) for k, v in x.items()}) for i, x in enumerate(data)]
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        _check_columns(path, table.column_names)
        return [Row(i + 2, {k: _json_text(v) for k, v in rec.items()})
                for i, rec in enumerate(table.to_pylist())]
    raise LitauditError(f"{path}: unknown format {suffix!r} (use .csv, .tsv, .csv.gz, .json "
                        "or .parquet)")


def _json_text(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _check_columns(path: Path, columns) -> None:
    problems = []
    for c in columns:
        if c not in COLUMNS:
            problems.append(Problem(str(path), 1, f"unknown column {c!r}"
                                    f"{did_you_mean(c, COLUMNS)}"))
    if problems:
        raise ValidationFailed(problems)
