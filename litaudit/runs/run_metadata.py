"""Run metadata for an import: participant, run type and pooled flag of each run tag,
from a CSV file the user gives or from the official results seeded for the collection."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.curation.rows import decode_utf8
from litaudit.errors import InputError, Problem, ValidationFailed
from litaudit.measures import did_you_mean
from litaudit.runs.model import RunInfo
from litaudit.store import results_counts

if TYPE_CHECKING:
    import duckdb

RUN_TYPES = {
    "automatic": "automatic",
    "auto": "automatic",
    "relauto": "automatic",
    "manual": "manual",
    "human-assisted": "manual",
}


METADATA_COLUMNS = (
    "tag",
    "run",
    "run_id",
    "runid",
    "participant",
    "site",
    "group",
    "run_type",
    "type",
    "pooled",
)


def read_metadata_csv(path: Path) -> dict[str, RunInfo]:
    """Run metadata CSV: columns ``tag`` (or ``run``/``run_id``), ``participant`` (or
    ``site``), ``run_type`` (automatic|manual), ``pooled`` (true|false|yes|no|1|0)."""
    problems: list[Problem] = []
    out: dict[str, RunInfo] = {}

    try:
        text = decode_utf8(str(path), Path(path).read_bytes())
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read file: {exc.strerror}") from None
    with io.StringIO(text, newline="") as fh:
        reader = csv.DictReader(fh)
        cols = {c.strip().lower(): c for c in (reader.fieldnames or [])}
        unknown = [
            Problem(str(path), 1, f"unknown column {c!r}{did_you_mean(c, METADATA_COLUMNS)}")
            for c in cols
            if c not in METADATA_COLUMNS
        ]
        if unknown:
            raise ValidationFailed(unknown)
        tag_col = next((cols[c] for c in ("tag", "run", "run_id", "runid") if c in cols), None)
        if tag_col is None:
            raise InputError(str(path), 1, "no 'tag' column (also accepted: run, run_id)")
        site_col = next((cols[c] for c in ("participant", "site", "group") if c in cols), None)
        type_col = cols.get("run_type") or cols.get("type")
        pool_col = cols.get("pooled")
        for no, row in enumerate(reader, start=2):
            tag = (row.get(tag_col) or "").strip()
            if not tag:
                problems.append(Problem(str(path), no, "empty run tag", "tag"))
                continue
            if tag in out:
                problems.append(Problem(str(path), no, f"run {tag!r} listed twice", "tag"))
                continue
            rt = (row.get(type_col) or "").strip().lower() if type_col else ""
            if rt and rt not in RUN_TYPES:
                problems.append(
                    Problem(
                        str(path), no, f"unknown run type {rt!r} (automatic or manual)", "run_type"
                    )
                )
                continue
            pv = (row.get(pool_col) or "").strip().lower() if pool_col else ""
            pooled = None
            if pv in ("true", "yes", "1", "y"):
                pooled = True
            elif pv in ("false", "no", "0", "n"):
                pooled = False
            elif pv:
                problems.append(
                    Problem(str(path), no, f"pooled must be true or false, got {pv!r}", "pooled")
                )
                continue
            site = (row.get(site_col) or "").strip() if site_col else ""
            out[tag] = RunInfo(tag, site or None, RUN_TYPES.get(rt), pooled)
    if problems:
        raise ValidationFailed(problems)
    return out


def official_metadata(con: duckdb.DuckDBPyConnection, collection_id: str) -> dict[str, RunInfo]:
    """Participant and run type of official TREC runs seeded in ``results``."""

    return {
        s: RunInfo(s, p, rt, None) for s, p, rt in results_counts.official_runs(con, collection_id)
    }
