"""Results export in the import format (CSV, JSON, Parquet): export -> import round-trips.

Values are written as the printed text (``value`` = ``value_text``) in every format, so
0.30 stays 0.30 and no digit is gained or lost.
"""

from __future__ import annotations

import functools
import io
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.codec import escape_json_text
from litaudit.curation.filters import CURATION, Filters
from litaudit.curation.results import query_results
from litaudit.curation.rows import COLUMNS, NUMERIC_COLUMNS, spreadsheet_safe
from litaudit.errors import LitauditError
from litaudit.files import STDOUT, atomic_path
from litaudit.store.results import ResultRecord

if TYPE_CHECKING:
    import duckdb

FORMATS = ("csv", "json", "parquet")


def export_row(r: ResultRecord) -> dict:
    """One row of :func:`litaudit.curation.results.query_results` in the import format."""
    row = {
        "source": r.source,
        "paper": r.bibkey,
        "paper_citation": r.citation,
        "paper_title": r.paper_title,
        "paper_authors": r.paper_authors,
        "paper_venue": r.paper_venue,
        "paper_year": r.paper_year,
        "paper_doi": r.paper_doi,
        "paper_url": r.paper_url,
        "paper_tags": r.paper_tags,
        "track": r.track,
        "collection": r.collection_id,
        "topic_set": r.topic_set,
        "n_topics": r.n_topics,
        "measure": r.measure,
        "value": r.value_text,
        "system": r.system,
        "participant": r.participant,
        "role": r.role,
        "run_type": r.run_type,
        "year": r.year,
        "standard": "true" if r.standard else "false",
        "location": r.location,
        "transcribed_by": r.transcribed_by,
        "transcribed_at": r.transcribed_at,
        "status": r.status,
        "notes": r.notes,
        "date": r.date,
        "reporter": r.reporter,
        "url": r.url,
        "code_url": r.code_url,
    }
    return {c: ("" if row[c] is None else str(row[c])) for c in COLUMNS}


def export_rows(
    con: duckdb.DuckDBPyConnection,
    f: Filters = CURATION,
    *,
    collection: str | None = None,
    measure: str | None = None,
) -> list[dict]:
    return [export_row(r) for r in query_results(con, f, collection=collection, measure=measure)]


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _is_flat(values) -> bool:
    """Are these values all scalars? (exact types: fast; a subclass takes the long way)"""
    return set(map(type, values)) <= _SCALARS or not any(
        isinstance(v, (dict, list, tuple)) for v in values
    )


def json_chunks(obj, indent: int = 1, level: int = 0, tick=None) -> Iterator[str]:
    """The text of ``json.dump(obj, fh, indent=indent, ensure_ascii=False)``, to the byte,
    in pieces, at a fraction of its time: the standard library's C encoder is used only
    without ``indent``, so every object or array of scalars alone (a result, a paper, a
    history entry) is encoded by it with its items separated by a newline and the
    indentation of their level (a JSON string holds no raw newline, so nothing else
    changes), and only the containers around them are walked in Python. ``tick()``, when
    given, is called after each item of an array of containers (each row)."""

    pad = "\n" + " " * (indent * (level + 1))
    close = "\n" + " " * (indent * level)
    if isinstance(obj, dict) and obj and set(map(type, obj)) == {str}:
        if _is_flat(obj.values()):
            yield _flat(obj, pad, indent, level)
            return
        yield "{"
        sep = pad
        for k, v in obj.items():
            yield sep + json.encoder.encode_basestring(k) + ": "
            yield from json_chunks(v, indent, level + 1, tick)
            sep = "," + pad
        yield close + "}"
    elif isinstance(obj, (list, tuple)) and obj:
        if _is_flat(obj):
            yield _flat(obj, pad, indent, level)
            return
        yield "["
        sep = pad
        for v in obj:
            yield sep
            yield from json_chunks(v, indent, level + 1, tick)
            if tick is not None:
                tick()
            sep = "," + pad
        yield close + "]"
    else:  # a scalar, an empty container, a dict with other keys: as json itself writes
        yield json.dumps(obj, indent=indent, ensure_ascii=False).replace("\n", close)


@functools.lru_cache(maxsize=64)
def _encoder(pad: str):
    """json's encoder without indent (the C encoder) with items separated by ``,pad``."""

    return json.JSONEncoder(ensure_ascii=False, separators=("," + pad, ": ")).encode


def _flat(obj, pad: str, indent: int, level: int) -> str:
    """A non-empty object or array of scalars, indented at ``level``, by the C encoder."""
    text = _encoder(pad)(obj)
    return text[0] + pad + text[1:-1] + "\n" + " " * (indent * level) + text[-1]


def format_for(path: Path, fmt: str | None) -> str:
    if fmt is not None and fmt.strip().lower() not in FORMATS:
        raise LitauditError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    f = (fmt or Path(path).suffix.lstrip(".")).strip().lower()
    if f not in FORMATS:
        raise LitauditError(
            f"{path}: cannot tell the export format; use --format {'|'.join(FORMATS)}"
        )
    return f


PROGRESS_ROWS = 1000  # rows written between two calls of write_export's progress


def export_steps(rows: list[dict], fmt: str, bundle: dict | None = None) -> int:
    """The steps of :func:`write_export`'s ``progress``: the rows of a CSV, the papers,
    results and history entries of a curation export (the rows of a bare JSON list), one
    for a Parquet file (written at once)."""
    if fmt == "parquet":
        return 1
    if fmt == "json" and bundle is not None:
        return sum(len(bundle[k]) for k in ("papers", "results", "history"))
    return len(rows)


def write_export(
    rows: list[dict],
    path,
    fmt: str,
    *,
    protect=(),
    bundle: dict | None = None,
    progress=None,
) -> None:
    """Write atomically: a temporary file beside the target, renamed at the end (see
    :mod:`litaudit.files`; ``protect``: the open database). ``path`` ``-`` writes to
    standard output. JSON with ``bundle`` writes the curation export (papers, results,
    history) instead of the bare list of rows. ``progress(steps)``: the rows written, in
    steps of up to :data:`PROGRESS_ROWS` (:func:`export_steps` of them in all)."""

    def write(fh_path):
        if fmt == "csv":
            _write_csv(fh_path, rows, progress)
        elif fmt == "json":
            _write_json(fh_path, rows if bundle is None else bundle, progress)
        else:
            # start-up: pyarrow
            import pyarrow as pa

            # start-up: pyarrow
            import pyarrow.parquet as pq

            table = pa.table({c: pa.array([r[c] for r in rows], type=pa.string()) for c in COLUMNS})
            pq.write_table(table, fh_path)
            if progress is not None:
                progress(1)

    if str(path) == STDOUT:
        buf = io.BytesIO()
        if fmt == "parquet":
            # start-up: pyarrow
            import pyarrow.parquet as pq  # noqa: F401

            write(buf)
        else:
            with tempfile.TemporaryDirectory() as d:
                write(f"{d}/out")
                buf.write(open(f"{d}/out", "rb").read())
        sys.stdout.flush()
        sys.stdout.buffer.write(buf.getvalue())
        sys.stdout.flush()
        return
    with atomic_path(path, protect) as tmp:
        write(tmp)


def csv_cell(text: str) -> str:
    """A cell as CSV writes it: quoted (quotes doubled) when it holds a comma, a quote, a
    newline or a carriage return (Python's csv module leaves a lone CR unquoted when
    lines end in LF, and the file then does not read back)."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(row: dict) -> str:
    """A result row as a line of a CSV export: text cells made safe to open in a
    spreadsheet (:func:`~litaudit.curation.rows.spreadsheet_safe`), numbers as they are."""
    return (
        ",".join(
            csv_cell(row[c] if c in NUMERIC_COLUMNS else spreadsheet_safe(row[c])) for c in COLUMNS
        )
        + "\n"
    )


def _write_csv(path, rows: list[dict], progress) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(",".join(COLUMNS) + "\n")
        for i in range(0, len(rows), PROGRESS_ROWS):
            part = rows[i : i + PROGRESS_ROWS]
            fh.writelines(csv_line(r) for r in part)
            if progress is not None:
                progress(len(part))


def _write_json(path, obj, progress) -> None:
    """``obj`` as ``json.dump(obj, fh, indent=1, ensure_ascii=False)`` and a newline
    writes it (:func:`json_chunks`), its rows counted to ``progress``."""
    done = [0]

    def tick() -> None:
        done[0] += 1
        if done[0] == PROGRESS_ROWS:
            progress(done[0])
            done[0] = 0

    with open(path, "w", encoding="utf-8") as fh:
        chunks = json_chunks(obj, 1, tick=None if progress is None else tick)
        fh.writelines(escape_json_text(c) for c in chunks)  # as --json writes them
        fh.write("\n")
    if progress is not None and done[0]:
        progress(done[0])
