"""A paper's claims, one a line, for `report --claims FILE` (issue 32, item 2).

CSV (header line 1) or JSON (a list of objects, or JSON Lines: one object a line), with
the columns: ``collection`` and ``measure`` (any alias), ``value`` (as printed: kept as
text; may be left out when ``run`` is given), ``baseline`` (as printed) and
``baseline_system`` (its model), ``run`` (a TREC run file; a relative path is read from
the claims file's folder) and ``against`` (archive runs to compare with, separated by
``;`` or spaces, or a JSON list). Values are kept as the text the file holds (JSON
numbers by their literal). Every problem names the file, the line and the column.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from litaudit.errors import InputError, Problem, ValidationFailed
from litaudit.measures import did_you_mean

COLUMNS = ("collection", "measure", "value", "baseline", "baseline_system", "run", "against")
SYNONYMS = {
    "dataset": "collection",
    "metric": "measure",
    "claim": "value",
    "score": "value",
    "model": "baseline_system",
    "baseline_model": "baseline_system",
    "run_file": "run",
}


@dataclass(frozen=True)
class ClaimLine:
    """One claim of the file: where it is (``file``, ``line``) and what it says."""

    file: str
    line: int
    collection: str
    measure: str
    value: str | None
    baseline: str | None
    baseline_system: str | None
    run: str | None
    against: tuple[str, ...]

    def label(self) -> str:
        shown = self.value if self.value is not None else f"run {Path(self.run or '').name}"
        return f"{self.collection} {self.measure} = {shown}"


def _text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, (dict, list)):
        raise ValueError("a JSON object or list is not a value here")
    s = str(v).strip()
    return s or None


def _records(name: str, text: str, suffix: str) -> list[tuple[int, dict]]:
    """(line, {column: value}) of each claim in the file."""
    if suffix in (".json", ".jsonl"):
        return _json_records(name, text)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except (StopIteration, csv.Error):
        raise InputError(name, 1, "empty file (no header line)") from None
    out = []
    for rec in reader:
        line = reader.line_num
        if not rec or all(not c.strip() for c in rec):
            continue
        if len(rec) != len(header):
            raise InputError(name, line, f"{len(rec)} cells but the header has {len(header)}")
        out.append((line, dict(zip(header, rec, strict=True))))
    return out


def _json_records(name: str, text: str) -> list[tuple[int, dict]]:
    """Objects of a JSON list or of JSON Lines, each with the line where it begins."""
    dec = json.JSONDecoder(parse_float=str, parse_int=str)
    out: list[tuple[int, dict]] = []
    i, n = 0, len(text)
    stripped = text.lstrip()
    in_list = stripped.startswith("[")
    if in_list:
        i = text.index("[") + 1
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n or (in_list and text[i] == "]"):
            break
        line = text.count("\n", 0, i) + 1
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise InputError(name, exc.lineno, f"not valid JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise InputError(name, line, "each claim must be a JSON object")
        out.append((line, obj))
    return out


def read_claims(path: str | Path) -> tuple[ClaimLine, ...]:
    """The claims of ``path`` (see the module doc); every problem at once."""
    p = Path(path)
    name = str(p)
    if not p.is_file():
        raise InputError(name, None, "no such claims file")
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".json", ".jsonl"):
        raise InputError(name, None, f"unknown format {suffix!r} (use .csv, .json or .jsonl)")
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(name, None, "not UTF-8 text") from None
    problems: list[Problem] = []
    claims: list[ClaimLine] = []
    for line, rec in _records(name, text, suffix):
        claim = _claim(name, line, rec, p.parent, problems)
        if claim is not None:
            claims.append(claim)
    if problems:
        raise ValidationFailed(problems)
    if not claims:
        raise InputError(name, None, "no claims in the file")
    return tuple(claims)


def _claim(name: str, line: int, rec: dict, folder: Path, problems: list[Problem]):
    """One record as a claim, its problems added to ``problems``."""
    before = len(problems)
    for c in rec:
        if c not in COLUMNS:
            hint = (
                f"; did you mean {SYNONYMS[c.lower()]!r}?"
                if c.lower() in SYNONYMS
                else did_you_mean(c, COLUMNS)
            )
            problems.append(Problem(name, line, f"unknown column {c!r}{hint}", c))
    vals: dict[str, str | None] = {}
    for c in COLUMNS:
        if c == "against":
            continue
        try:
            vals[c] = _text(rec.get(c))
        except ValueError as exc:
            problems.append(Problem(name, line, str(exc), c))
    for c in ("collection", "measure"):
        if c in vals and not vals[c]:
            problems.append(Problem(name, line, f"{c} is missing", c))
    if not vals.get("value") and not vals.get("run"):
        problems.append(Problem(name, line, "give the claimed value, or its run", "value"))
    raw = rec.get("against")
    against = (
        tuple(str(x).strip() for x in raw if str(x).strip())
        if isinstance(raw, list)
        else tuple((_text(raw) or "").replace(";", " ").split())
    )
    run = vals.get("run")
    if run is not None and not Path(run).is_absolute():
        run = str(folder / run)
    if len(problems) > before:
        return None
    return ClaimLine(
        file=name,
        line=line,
        collection=vals["collection"] or "",
        measure=vals["measure"] or "",
        value=vals.get("value"),
        baseline=vals.get("baseline"),
        baseline_system=vals.get("baseline_system"),
        run=run,
        against=against,
    )
