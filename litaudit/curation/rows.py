"""The results file format (docs/DEVELOPING.md, "Results import format"): its columns,
in export order, and reading a CSV / TSV, JSON or Parquet file into raw rows with their
line numbers. Validation is in :mod:`litaudit.curation.plan`, writing in
:mod:`litaudit.curation.importer`;
:mod:`litaudit.curation.export` writes the same columns.

Reading keeps every value as the text the file holds: JSON numbers are read as their
literal (``0.30`` stays ``0.30``), Parquet strings and decimals as text, and a binary
float column by the shortest text that reads back as the same float of its own width
(``repr``; a float32 0.3012 gives ``0.3012``). Structural problems (not UTF-8, a column
twice, an unknown column, a row with too many or too few cells, an unterminated quote)
are returned with the rows, so that they are reported together with the problems of the
values; a file that cannot be read at all raises :class:`~litaudit.errors.InputError`.
JSON is decoded with its lines by :mod:`litaudit.curation.rows_json`, Parquet read by
:mod:`litaudit.curation.rows_parquet`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from litaudit.curation.columns import SYNONYMS
from litaudit.curation.rows_json import DUPLICATES, decode_json
from litaudit.curation.rows_parquet import cell_text, read_parquet
from litaudit.defaults import MAX_CSV_FIELD
from litaudit.errors import InputError, Problem, ValidationFailed
from litaudit.measures import did_you_mean

# The import/export columns, in export order (docs/DEVELOPING.md, "Results import format").
COLUMNS = (
    "source",
    "paper",
    "paper_citation",
    "paper_title",
    "paper_authors",
    "paper_venue",
    "paper_year",
    "paper_doi",
    "paper_url",
    "paper_tags",
    "track",
    "collection",
    "topic_set",
    "n_topics",
    "measure",
    "value",
    "system",
    "participant",
    "role",
    "run_type",
    "year",
    "standard",
    "location",
    "transcribed_by",
    "transcribed_at",
    "status",
    "notes",
    "date",
    "reporter",
    "url",
    "code_url",
)
MAX_FIELD = MAX_CSV_FIELD
# columns whose cells are numbers; the others are text, which a CSV export writes so that
# a spreadsheet does not run it as a formula (see spreadsheet_safe)
NUMERIC_COLUMNS = frozenset(("n_topics", "value", "year", "paper_year"))
_FORMULA_START = frozenset("=+-@\t\r")


def _escaped(text: str) -> bool:
    """Does a text cell start as a formula (=, +, -, @, tab, CR), once any leading
    apostrophes are set aside?"""
    return text.lstrip("'")[:1] in _FORMULA_START and text[:1] != ""


def spreadsheet_safe(text: str) -> str:
    """A text cell for a CSV export: one that a spreadsheet would run as a formula
    (starting with =, +, -, @, tab or CR) gets an apostrophe in front, as does one that
    would look so escaped (apostrophes, then one of those); :func:`spreadsheet_text`
    undoes it on import."""
    return "'" + text if _escaped(text) else text


def spreadsheet_text(cell: str) -> str:
    """A text cell of a CSV file as written before :func:`spreadsheet_safe`."""
    return cell[1:] if cell[:1] == "'" and _escaped(cell[1:]) else cell


@dataclass
class Row:
    """One raw input row: its line number, its fields as text and (JSON) its position in
    the list of results, from 1."""

    line: int
    data: dict
    index: int | None = None


@dataclass
class Table:
    """The rows of a file, its columns and the structural problems found reading it."""

    rows: list[Row]
    columns: tuple[str, ...]
    problems: list[Problem] = field(default_factory=list)
    bundle: dict | None = None  # the papers and history of a curation export (JSON)
    header_line: int | None = None  # the line of the column names (CSV: 1)


def read_rows(path: Path) -> list[Row]:
    """Rows of a CSV (header line 1), JSON (a list of objects) or Parquet file; raises
    ValidationFailed on any structural problem."""
    t = read_table(path)
    if t.problems:
        raise ValidationFailed(t.problems)
    return t.rows


def read_table(path: Path) -> Table:
    """The rows of a results file with its structural problems (see the module doc)."""
    path = Path(path)
    name = str(path)
    if path.is_dir():
        raise InputError(name, None, "is a directory, not a results file")
    suffix = path.suffix.lower()
    gz = suffix == ".gz"
    if gz:  # a gzipped CSV/TSV (the large seed files)
        suffix = Path(path.stem).suffix.lower()
    if suffix not in (".csv", ".tsv", ".txt", ".json", ".parquet") or (
        gz and suffix not in (".csv", ".tsv", ".txt")
    ):
        raise InputError(
            name,
            None,
            f"unknown format {path.suffix.lower()!r} (use .csv, .tsv, .csv.gz, .json or .parquet)",
        )
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(name, None, "no such file") from None
    except OSError as exc:
        raise InputError(name, None, f"cannot read: {exc.strerror or exc}") from None
    if gz:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"not a readable gzip file ({exc})") from None
    if suffix == ".parquet":
        return _parquet(name, raw)
    text = decode_utf8(name, raw)
    if suffix == ".json":
        return _json(name, text)
    return _csv(name, text, "\t" if suffix == ".tsv" else ",")


def decode_utf8(name: str, raw: bytes) -> str:
    """The bytes as UTF-8 text (a UTF-8 byte-order mark dropped); anything else is refused
    with the line of the first byte that is not UTF-8."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            name,
            1,
            "not UTF-8: the file is UTF-16 (it starts with a UTF-16 "
            "byte-order mark); save it as UTF-8",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            name,
            line,
            f"not UTF-8: byte 0x{raw[exc.start]:02x} cannot be "
            "decoded (Latin-1 or another encoding?); save the file as "
            "UTF-8",
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _unknown(name: str, columns, line: int | None) -> list[Problem]:
    problems, seen = [], set()
    for c in columns:
        if c in seen:
            problems.append(Problem(name, line, f"column {c!r} appears twice", c))
        seen.add(c)
        if c not in COLUMNS:
            problems.append(Problem(name, line, f"unknown column {c!r}{_suggest(c)}"))
    return problems


def _suggest(column: str) -> str:
    """'' or "; did you mean 'X'?": the column a curator's name stands for (dataset,
    metric, score, model, ...), else the nearest by spelling."""

    key = column.strip().lower().replace(" ", "_").replace("-", "_")
    if key in SYNONYMS:
        return f"; did you mean {SYNONYMS[key]!r}?"
    return did_you_mean(column, COLUMNS)


def _csv(name: str, text: str, delimiter: str) -> Table:
    if not text.strip():
        raise InputError(name, None, "empty file (no header line)")
    if csv.field_size_limit() < MAX_FIELD:
        csv.field_size_limit(MAX_FIELD)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    problems: list[Problem] = []
    try:
        header = next(reader)
    except csv.Error as exc:
        raise InputError(name, 1, _csv_problem(exc)) from None
    header = [h.strip() for h in header]
    problems += _unknown(name, header, 1)
    known = [c if c in COLUMNS and header.index(c) == i else None for i, c in enumerate(header)]
    dropped = None in known  # an unknown or repeated column: its cells are left out
    escapes = may_escape(text, delimiter)
    rows: list[Row] = []
    while True:
        start = reader.line_num + 1
        try:
            rec = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(name, start, _csv_problem(exc)))
            break  # the reader cannot resynchronise after a broken quote
        if not rec or rec == [""]:
            continue
        if len(rec) > len(header):
            problems.append(
                Problem(
                    name,
                    start,
                    f"{len(rec)} cells but the header has "
                    f"{len(header)} columns (an unquoted comma?)",
                )
            )
            continue
        if len(rec) < len(header):
            problems.append(
                Problem(name, start, f"{len(rec)} cells but the header has {len(header)} columns")
            )
            continue
        data = dict(zip(known, rec, strict=True))
        if dropped:
            del data[None]
        if escapes and "\0'" in "\0" + "\0".join(rec):  # a cell starting with ': unescaped
            data = {c: v if c in NUMERIC_COLUMNS else spreadsheet_text(v) for c, v in data.items()}
        rows.append(Row(start, data))
    return Table(rows, tuple(c for c in known if c), problems, header_line=1)


def may_escape(text: str, delimiter: str) -> bool:
    """Can a cell start with an apostrophe (at the start, after a delimiter, a line end or
    an opening quote)? Else no cell needs :func:`spreadsheet_text`. Each apostrophe is
    found by ``str.find`` (a byte scan) and the character before it looked at: 0.1 ms for
    the 10 MB of mteb_beir.csv, where searching the four two-character pairs took 35."""
    at = text.find("'")
    while at != -1:
        if at == 0 or text[at - 1] in (delimiter, "\n", "\r", '"'):
            return True
        at = text.find("'", at + 1)
    return False


def _csv_problem(exc: csv.Error) -> str:
    msg = str(exc)
    if "unexpected end of data" in msg or "EOF" in msg:
        return 'unterminated quote: a field opened with " is never closed'
    if "field larger than field limit" in msg:
        return f"a field is longer than {MAX_FIELD} characters"
    if "expected after" in msg:
        return f"malformed quoted field ({msg})"
    return f"cannot read CSV: {msg}"


def _json(name: str, text: str) -> Table:
    try:
        data, lines = decode_json(text)
    except json.JSONDecodeError as exc:
        raise InputError(name, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(
            name, None, "JSON nested too deeply (a results file is a list of flat objects)"
        ) from None
    bundle = None
    if isinstance(data, dict) and "results" in data:
        bundle = data
        data = data["results"]
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise InputError(
            name, None, 'expected a JSON list of objects (or an object with "results")'
        )
    problems: list[Problem] = []
    columns: list[str] = []
    for x in data:
        for k in x:
            if k not in columns and k != DUPLICATES:
                columns.append(k)
    problems += [
        p
        for p in _unknown(name, columns, None)
        if not (
            bundle is not None
            and p.message.startswith("unknown column")
            and p.message.split("'")[1] in BUNDLE_RESULT_KEYS
        )
    ]
    rows = [
        Row(i, _json_values(name, i, x, problems), index)
        for index, (i, x) in enumerate(zip(lines or range(1, len(data) + 1), data, strict=True), 1)
    ]
    return Table(rows, tuple(c for c in columns if c in COLUMNS), problems, bundle)


def _json_values(name: str, i: int, x: dict, problems: list[Problem]) -> dict[str, str]:
    """The known columns of the JSON object ``x`` (line ``i``) as text; a duplicate key or
    a value that is an object or a list is a problem."""
    for k in x.pop(DUPLICATES, []):
        problems.append(Problem(name, i, f"key {k!r} appears twice in the object", k))
    vals = {}
    for k, v in x.items():
        if k not in COLUMNS:
            continue
        if isinstance(v, (dict, list)):
            problems.append(
                Problem(
                    name,
                    i,
                    f"a JSON {'object' if isinstance(v, dict) else 'list'} is not a value",
                    k,
                )
            )
            continue
        vals[k] = cell_text(v)
    return vals


# keys a curation export (a JSON object with papers, results and history) adds to a row
BUNDLE_RESULT_KEYS = ("created_at", "updated_at")


def _parquet(name: str, raw: bytes) -> Table:
    names, columns, n, type_problems = read_parquet(name, raw, COLUMNS)
    problems = _unknown(name, names, None) + type_problems
    rows = [Row(i + 2, {c: columns[c][i] for c in columns}) for i in range(n)]
    return Table(rows, tuple(c for c in dict.fromkeys(names) if c in COLUMNS), problems)
