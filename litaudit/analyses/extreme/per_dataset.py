"""A claim with its per-dataset values (`audit claim --per-dataset FILE`), paired with the
record holder's values on the same datasets of a benchmark (issue 30, item 5).

A benchmark's mean (beir-13 nDCG@10) hides which datasets a claim wins on. Given the
paper's table as a file (CSV with the columns ``dataset`` and ``value``, or JSON: a list
of ``{"dataset", "value"}`` objects or one ``{dataset: value}`` object; values as printed),
each dataset is named as the store names collections (``scifact``, ``SciFact``,
``beir/scifact/test``) and must be one of the benchmark's datasets (its topic set's
parts). The record holder's values are its published rows on those datasets. Over the
shared datasets: wins, ties (equal at the coarser of the two printed precisions) and
losses, the mean difference with its t interval and the paired t test
(:mod:`litaudit.stats.paired`, the datasets as units), and the exact sign test
(:mod:`litaudit.stats.signtest`).
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.extreme.population import ResultRow, load_population
from litaudit.analyses.extreme.ranks_input import dataset_parts
from litaudit.curation.filters import Filters
from litaudit.errors import InputError, LitauditError, NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.stats.paired import PairedT, paired_t
from litaudit.stats.signtest import SignTest, sign_test
from litaudit.store.collection_names import CollectionNames

if TYPE_CHECKING:
    import duckdb

DATASET_COLUMNS = ("dataset", "task", "collection")
VALUE_COLUMNS = ("value", "score")


@dataclass(frozen=True, kw_only=True)
class DatasetPair:
    """One shared dataset: the claim's and the holder's values as printed, claim - holder."""

    dataset: str
    claim: str
    holder: str
    difference: float


@dataclass(frozen=True, kw_only=True)
class PerDatasetComparison:
    """The claim's per-dataset values (``file``, its SHA-256) against the record holder's
    (``holder``, from ``holder_source``) on the shared datasets (``pairs``); ``claim_only``:
    datasets of the file the holder has no value on; ``not_given``: datasets of the
    benchmark the file leaves out; ``tie_tolerance``: half a unit of the coarser printed
    precision; ``paired`` (claim - holder) and ``sign``; ``file_mean``: the mean of the
    file's values when it gives every dataset (to set beside the claimed mean); ``given``:
    the file's values by dataset, in the benchmark's order."""

    file: str
    file_sha256: str
    holder: str
    holder_source: str
    pairs: tuple[DatasetPair, ...]
    claim_only: tuple[str, ...]
    not_given: tuple[str, ...]
    tie_tolerance: float
    paired: PairedT
    sign: SignTest
    file_mean: float | None
    answer: str
    given: tuple[tuple[str, str], ...] = ()  # every (dataset, value as printed) of the file


@dataclass(frozen=True)
class _Given:
    line: int
    name: str
    text: str


def _decimals(text: str) -> int:
    t = text.strip().lower()
    if "e" in t:
        return 6
    return len(t.split(".", 1)[1]) if "." in t else 0


def _value_text(path: Path, line: int, raw) -> str:
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise InputError(str(path), line, f"{raw!r} is not a number", "value")
    text = raw.strip() if isinstance(raw, str) else repr(raw)
    try:
        ok = math.isfinite(float(Decimal(text)))
    except (InvalidOperation, ValueError):
        ok = False
    if not ok:
        raise InputError(str(path), line, f"{text!r} is not a finite number", "value")
    return text


def _column(path: Path, header: list[str], names: tuple[str, ...]) -> int:
    low = [h.strip().lower() for h in header]
    for n in names:
        if n in low:
            return low.index(n)
    raise InputError(
        str(path), 1, f"no {names[0]!r} column (the header has: {', '.join(header)})", names[0]
    )


def _read_csv(path: Path) -> list[_Given]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise InputError(str(path), None, "empty file")
    d, v = _column(path, rows[0], DATASET_COLUMNS), _column(path, rows[0], VALUE_COLUMNS)
    out = []
    for i, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) <= max(d, v):
            raise InputError(str(path), i, f"{len(row)} fields, the header has {len(rows[0])}")
        out.append(_Given(i, row[d].strip(), _value_text(path, i, row[v])))
    return out


def _json_items(path: Path, text: str) -> list[tuple[int, object]]:
    """The top-level items of a JSON list with the line each begins on (an object: its
    pairs, each on its key's line)."""
    dec = json.JSONDecoder()
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(str(path), e.lineno, f"not JSON: {e.msg}") from None
    if isinstance(whole, dict):
        lines: list[tuple[int, object]] = []
        for key, value in whole.items():
            at = text.find(json.dumps(key))
            lines.append((text.count("\n", 0, max(at, 0)) + 1, {"dataset": key, "value": value}))
        return lines
    if not isinstance(whole, list):
        raise InputError(str(path), 1, "JSON must be a list of {dataset, value} or an object")
    items: list[tuple[int, object]] = []
    i = text.index("[") + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return items
        obj, end = dec.raw_decode(text, i)
        items.append((text.count("\n", 0, i) + 1, obj))
        i = end


def _read_json(path: Path) -> list[_Given]:
    out = []
    for line, obj in _json_items(path, path.read_text(encoding="utf-8-sig")):
        if not isinstance(obj, dict):
            raise InputError(str(path), line, "each item must be an object {dataset, value}")
        low = {str(k).lower(): val for k, val in obj.items()}
        name = next((low[c] for c in DATASET_COLUMNS if c in low), None)
        if not isinstance(name, str) or not name.strip():
            raise InputError(str(path), line, "no dataset name", "dataset")
        raw = next((low[c] for c in VALUE_COLUMNS if c in low), None)
        out.append(_Given(line, name.strip(), _value_text(path, line, raw)))
    return out


def read_per_dataset(path: Path) -> list[_Given]:
    """The file's (line, dataset, value as printed) rows; CSV unless it ends in .json."""
    if not path.is_file():
        raise NotFound(f"{path}: no such file")
    rows = _read_json(path) if path.suffix.lower() == ".json" else _read_csv(path)
    if not rows:
        raise InputError(str(path), None, "no dataset rows")
    return rows


def _resolve(
    con: duckdb.DuckDBPyConnection, path: Path, given: _Given, parts: list[str], cid: str
) -> str:
    """The part of the benchmark a file's dataset names."""

    if given.name in parts:
        return given.name
    try:
        found = CollectionNames.load(con).resolve(given.name)
    except LitauditError:  # an unknown name: try the parts' own names below
        found = None
    if found in parts:
        return str(found)
    low = given.name.lower()
    hit = [p for p in parts if low in p.lower().split("/")]
    if len(hit) == 1:
        return hit[0]
    short = ", ".join(p.removeprefix("beir/") for p in parts)
    raise InputError(
        str(path), given.line, f"dataset {given.name!r} is not one of {cid}'s datasets ({short})"
    )


def _checked_rows(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    rows: list[_Given],
    parts: list[str],
    cid: str,
    m: str,
):

    pm = parse_measure(m)
    seen: dict[str, int] = {}
    out: dict[str, str] = {}
    for g in rows:
        part = _resolve(con, path, g, parts, cid)
        if part in seen:
            raise InputError(
                str(path), g.line, f"dataset {part} given twice (lines {seen[part]} and {g.line})"
            )
        v = float(g.text)
        if v < pm.min_value or v > pm.max_value:
            pct = " (a percentage? give it divided by 100)" if 1 < v <= 100 else ""
            raise InputError(
                str(path),
                g.line,
                f"{g.text} is outside {m}'s range [{pm.min_value:g}, {pm.max_value:g}]" + pct,
                "value",
            )
        seen[part] = g.line
        out[part] = g.text
    return out


def holder_values(
    con: duckdb.DuckDBPyConnection,
    holder: ResultRow,
    parts: list[str],
    measure: str,
    filters: Filters,
):
    """The record holder's published values (as printed) on the parts: its rows of the
    same system name, those of its own track (or a track its track extends) first."""

    wanted = dataclasses.replace(filters, topics=None, track=None)
    best: dict[str, tuple[int, str, str]] = {}
    for x in load_population(con, None, measure, wanted):
        r = x.row
        if x.collection_id not in parts or r.system != holder.system:
            continue
        src = r.track or r.bibkey or r.source
        rank = 0 if holder.track and r.track and holder.track.startswith(r.track) else 1
        if x.collection_id not in best or rank < best[x.collection_id][0]:
            best[x.collection_id] = (rank, r.value_text, src)
    return {p: (t, s) for p, (_, t, s) in best.items()}


def _answer(c: PairedT, s: SignTest, holder: str, level: float) -> str:
    lvl = f"{100 * level:g}%"
    p_t = "-" if c.p_value is None else f"{c.p_value:.3g}"
    p_s = "-" if s.p_value is None else f"{s.p_value:.3g}"
    if c.low > 0:
        end = "above the record on these datasets"
    elif c.high < 0:
        end = "below the record on these datasets"
    else:
        end = "cannot be told apart from the record on these datasets"
    return (
        f"paired over {c.n} datasets with the record holder {holder}: {c.wins} wins, "
        f"{c.ties} ties, {c.losses} losses; mean difference {c.mean:+.4f} ({lvl} interval "
        f"[{c.low:+.4f}, {c.high:+.4f}]), paired t p = {p_t}, sign test p = {p_s}: the "
        f"claim {end}"
    )


def compare_per_dataset(
    con: duckdb.DuckDBPyConnection,
    cid: str,
    measure: str,
    holder: ResultRow,
    file: str | Path,
    filters: Filters,
) -> PerDatasetComparison:
    """The claim's per-dataset values of ``file`` against ``holder``'s (module doc)."""

    path = Path(file)
    found = dataset_parts(con, cid, filters.topics)
    if found is None:
        raise ParameterError(
            f"--per-dataset: {cid} is not a mean of datasets (its topic set has no parts)"
        )
    parts = found[1]
    given = _checked_rows(con, path, read_per_dataset(path), parts, cid, measure)
    theirs = holder_values(con, holder, parts, measure, filters)
    shared = [p for p in parts if p in given and p in theirs]
    if len(shared) < 2:
        raise NotFound(
            f"{path}: {len(shared)} of its datasets have a value of the record holder "
            f"{holder.system} in the store; a paired comparison needs at least 2"
        )
    a = [float(given[p]) for p in shared]
    b = [float(theirs[p][0]) for p in shared]
    digits = min(min(_decimals(given[p]), _decimals(theirs[p][0])) for p in shared)
    tol = 0.5 * 10.0 ** (-digits) * (1 - 1e-9)
    c = paired_t(a, b, level=defaults.PAIRED_LEVEL, tie_tol=tol)
    s = sign_test(c.wins, c.losses)
    pairs = tuple(
        DatasetPair(dataset=p, claim=given[p], holder=theirs[p][0], difference=x - y)
        for p, x, y in zip(shared, a, b, strict=True)
    )
    every = all(p in given for p in parts)
    return PerDatasetComparison(
        file=str(path),
        file_sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        holder=holder.system,
        holder_source=theirs[shared[0]][1],
        pairs=pairs,
        claim_only=tuple(p for p in parts if p in given and p not in theirs),
        not_given=tuple(p for p in parts if p not in given),
        tie_tolerance=tol,
        paired=c,
        sign=s,
        file_mean=sum(float(given[p]) for p in parts) / len(parts) if every else None,
        answer=_answer(c, s, holder.system, defaults.PAIRED_LEVEL),
        given=tuple((p, given[p]) for p in parts if p in given),
    )
