"""The rows of a results file checked column by column: each distinct text of a column
parsed once, then each row's typed values put together from those (for
:func:`litaudit.curation.plan.plan_import`, the seed files of ``init`` above all: 35,000
rows, whose columns repeat a few collections, measures, roles and dates).

Only the common case: every field a text, every row valid and naming papers the database
holds. :func:`row_values` returns what :func:`~litaudit.curation.row_fields.parse_row`
returns for each row (the same values, through the same parsers and the same
:class:`~litaudit.curation.import_context.Context` caches), or None at the first sign of
anything else (a missing field, a field that does not parse, a new paper, a control
character); the caller then checks the file row by row, which finds and words every
problem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from litaudit.curation import fields
from litaudit.curation.import_context import Context
from litaudit.curation.row_fields import (
    OWN_PARSERS,
    REQUIRED,
    check_measure,
    check_topics,
    check_year,
    own_fields,
)
from litaudit.curation.rows import Row
from litaudit.errors import LitauditError


class _Refused(Exception):
    """A text the column-wise check leaves to the row-by-row one."""


def row_values(
    ctx: Context, new_measures: set, rows: Sequence[Row]
) -> list[tuple[dict, str | None]] | None:
    """Each row's typed values and bibkey (as :func:`parse_row` makes them), or None when
    a row is not the common case (see the module doc)."""
    if not rows:
        return None
    names = list(rows[0].data)
    if any(list(r.data) != names for r in rows) or any(c not in names for c in REQUIRED):
        return None  # rows of several shapes (JSON), or a required column missing
    try:
        texts = [
            list(map(str.strip, col)) for col in zip(*(r.data.values() for r in rows), strict=True)
        ]
    except TypeError:  # a field that is not a text (JSON, Parquet)
        return None
    col = dict(zip(names, texts, strict=True))
    if fields.has_control(chain.from_iterable(texts)):
        return None
    try:
        return _values(ctx, new_measures, col, len(rows))
    except _Refused:
        return None


def _values(
    ctx: Context, new_measures: set, col: dict[str, list[str]], n: int
) -> list[tuple[dict, str | None]]:
    if any("" in set(col[c]) for c in REQUIRED):
        raise _Refused  # a missing value: its row's check words it
    blank = [""] * n
    source = _each(col["source"], lambda s: fields.parse_choice(s, fields.SOURCES, "source"))
    track = _each(
        col.get("track", blank), lambda s: ctx.parse("track", fields.parse_track, s or None)
    )
    bibkey = [s or None for s in col.get("paper", blank)]
    for s, t, b in set(zip(source, track, bibkey, strict=True)):
        if (s == "paper" and (not b or b not in ctx.papers)) or (s == "official" and not t):
            raise _Refused  # a new paper, or provenance missing
    collection = _each(col["collection"], ctx.collections.resolve)
    measure = _each(
        col["measure"],
        lambda s: _grouped(
            ctx,
            ("measure", s),
            lambda out, b: out.update(
                measure=check_measure(ctx, new_measures, {"measure": s}, [], b)
            ),
        )["measure"],
    )
    value = [_value(ctx, s, m) for s, m in zip(col["value"], measure, strict=True)]
    own_names = [name for name, _ in OWN_PARSERS]
    own = _each_key(
        list(zip(*(col.get(name, blank) for name in own_names), strict=True)),
        lambda texts: _grouped(
            ctx,
            ("own", *texts),
            lambda out, b: own_fields(ctx, ("own", *texts), (), out, b),
        ),
    )
    topics = _each_key(
        list(
            zip(
                collection,
                col.get("topic_set", [None] * n),
                col.get("n_topics", [None] * n),
                strict=True,
            )
        ),
        lambda k: _grouped(
            ctx,
            ("topics", *k),
            lambda out, b: check_topics(ctx, {"topic_set": k[1], "n_topics": k[2]}, out, k[0], b),
        ),
    )
    year_keys = list(
        zip(
            col.get("year", blank),
            [o.get("date") for o in own],
            source,
            bibkey,
            track,
            strict=True,
        )
    )
    year = _each_key(year_keys, lambda k: _year(ctx, k))
    participant = [s or None for s in col.get("participant", blank)]
    location = [s or None for s in col.get("location", blank)]
    notes = [s or None for s in col.get("notes", blank)]
    columns = {
        "source": source,
        "track": track,
        "collection_id": collection,
        "measure": measure,
        "value": [x for x, _ in value],
        "value_text": [x for _, x in value],
        "system": col["system"],
        "participant": participant,
        **{name: [o[name] for o in own] for name in own_names},
        "transcribed_by": col["transcribed_by"],
        "location": location,
        "notes": notes,
        "topic_set": [t["topic_set"] for t in topics],
        "n_topics": [t["n_topics"] for t in topics],
        "year": year,
    }
    keys = tuple(columns)  # parse_row's order
    rows_values = [dict(zip(keys, r, strict=True)) for r in zip(*columns.values(), strict=True)]
    return list(zip(rows_values, bibkey, strict=True))


def _each(texts: list[str], parse: Callable[[str], Any]) -> list:
    """``parse`` of each text, each distinct text parsed once; any error refused."""
    return _each_key(texts, parse)


def _each_key(keys: list, parse: Callable[[Any], Any]) -> list:
    done: dict = {}
    for k in set(keys):
        try:
            done[k] = parse(k)
        except (LitauditError, fields.FieldError) as exc:
            raise _Refused from exc
    return list(map(done.__getitem__, keys))


def _grouped(ctx: Context, key: tuple, check: Callable[[dict, Callable], None]) -> dict:
    """The values of :meth:`Context.group` (as ``parse_row`` gets them); a problem refused."""
    values, problems = ctx.group(key, check)
    if problems:
        raise _Refused
    return values


def _value(ctx: Context, text: str, measure: str) -> tuple[float, str]:
    """``value`` and ``value_text`` of a value in the measure's range."""
    try:
        value, shown = fields.parse_value(text)
    except fields.FieldError as exc:
        raise _Refused from exc
    lo, hi = ctx.measures[measure]
    if not lo <= value <= hi:
        raise _Refused
    return value, shown


def _year(ctx: Context, key: tuple) -> int | None:
    """The year :func:`row_fields.check_year` gives a row of these texts (its year, date,
    source, bibkey and track); a problem refused."""
    text, date, source, bibkey, track = key
    v: dict = {"date": date, "source": source, "track": track}
    problems: list = []
    check_year(ctx, {"year": text}, v, bibkey, {}, lambda *a: problems.append(a))
    if problems:
        raise _Refused
    return v["year"]
