"""One filter over published results, for curation and audits.

`results list/export` and every audit (`audit best/claim/history/summary`, reports) say
which results they read with the same :class:`Filters`, passed to the results' owner
(:mod:`litaudit.store.results`, whose :func:`~litaudit.store.results.where` turns it into
SQL). The spellings accepted from users are the same
everywhere (``papers`` or ``paper``, roles and run types repeatable, years ``2005-2010``,
dates ``2020``, ``2020-06`` or ``2020-06-15``). Only the defaults differ by use: curation
shows retracted and non-standard results, audits leave them out (:data:`CURATION`,
:data:`AUDIT`).

Date window: a result with a date is inside ``[since, until]`` by its date; a result
without one (rows transcribed before dates were kept) by its year, so ``--since 2019-06``
keeps a 2019 result of unknown date and drops a 2018 one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, Unpack

from litaudit.curation import fields
from litaudit.errors import LitauditError
from litaudit.measures import did_you_mean
from litaudit.store.collections import resolve_collection
from litaudit.store.measures import resolve_measure
from litaudit.store.papers import get

if TYPE_CHECKING:
    import duckdb

REPORTERS = fields.REPORTERS
_SOURCE_SPELLINGS = {
    "paper": "paper",
    "papers": "paper",
    "official": "official",
    "officials": "official",
}
_DATE = re.compile(r"^([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2}))?)?$")


class FilterText(TypedDict, total=False):
    """The filter options as users give them, for :meth:`Filters.parse`: ``source``
    ('papers' or 'official', either spelling), ``roles``/``run_types``/``statuses``/
    ``reporters`` (repeatable), ``years`` ('2005-2010'), ``since``/``until`` (YYYY,
    YYYY-MM or YYYY-MM-DD), ``paper`` (a bibkey), ``track``, ``topics``, and the three
    switches. A missing key is the option not given."""

    source: str | None
    roles: Iterable[str]
    run_types: Iterable[str]
    statuses: Iterable[str]
    reporters: Iterable[str]
    years: str | None
    since: str | None
    until: str | None
    paper: str | None
    track: str | None
    topics: str | None
    include_retracted: bool
    include_nonstandard: bool
    zero_shot: bool


@dataclass(frozen=True)
class Filters:
    """Which published results are read.

    ``collection_id``/``measure``: canonical ids (resolve names first) or None for all;
    ``source``: 'paper' | 'official' | None; ``roles``, ``run_types``, ``statuses``,
    ``reporters``: allowed values (empty = all); ``years``: inclusive (from, to);
    ``since``/``until``: ISO dates (inclusive) of the date window; ``paper``: a bibkey;
    ``track``: a track label or a prefix ending in '/' (``msmarco-passage/leaderboard/``);
    ``topics``: a topic count ('50') or topic-set name, applied by the audits' topic rule.
    """

    collection_id: str | None = None
    measure: str | None = None
    source: str | None = None
    roles: tuple[str, ...] = ()
    run_types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    reporters: tuple[str, ...] = ()
    years: tuple[int, int] | None = None
    since: str | None = None
    until: str | None = None
    paper: str | None = None
    track: str | None = None
    topics: str | None = None
    include_retracted: bool = False
    include_nonstandard: bool = False
    zero_shot: bool = False  # only results of models declared not trained on the collection

    @classmethod
    def parse(cls, **given: Unpack[FilterText]) -> Filters:
        """Filters from user text; a bad value raises one error naming its option."""
        g = given
        source, since, until = g.get("source"), g.get("since"), g.get("until")
        src = None
        if source and source.strip():
            src = _SOURCE_SPELLINGS.get(source.strip().lower())
            if src is None:
                raise LitauditError(
                    f"--source: {source!r} is not one of papers, official"
                    f"{did_you_mean(source, list(_SOURCE_SPELLINGS))}"
                )
        lo = parse_date(since, "--since", end=False)
        hi = parse_date(until, "--until", end=True)
        if lo and hi and lo > hi:
            raise LitauditError(f"--since {since} is after --until {until}")
        return cls(
            source=src,
            roles=_choices(g.get("roles", ()), fields.ROLES, "--role"),
            run_types=_choices(g.get("run_types", ()), fields.RUN_TYPES, "--run-type"),
            statuses=_choices(g.get("statuses", ()), fields.STATUSES, "--status"),
            reporters=_choices(g.get("reporters", ()), REPORTERS, "--reporter"),
            years=parse_years(g.get("years")),
            since=lo,
            until=hi,
            paper=_stripped(g.get("paper")),
            track=_stripped(g.get("track")),
            topics=_stripped(g.get("topics")),
            include_retracted=bool(g.get("include_retracted", False)),
            include_nonstandard=bool(g.get("include_nonstandard", False)),
            zero_shot=bool(g.get("zero_shot", False)),
        )

    def resolved(
        self, con: duckdb.DuckDBPyConnection, collection: str | None, measure: str | None
    ) -> Filters:
        """The same filters with a collection and a measure resolved by any name; a paper
        that is not stored is an error with the nearest bibkey (never an empty list)."""

        if self.paper:
            get(con, self.paper)
        return dataclasses.replace(
            self,
            collection_id=resolve_collection(con, collection).id if collection else None,
            measure=resolve_measure(con, measure) if measure else None,
        )

    def describe(self) -> str:
        """The filters in words ('' when none narrows the results)."""
        parts = [f"source {self.source}"] if self.source else []
        for name, vals in (
            ("role", self.roles),
            ("run type", self.run_types),
            ("status", self.statuses),
            ("reporter", self.reporters),
        ):
            if name == "role" and set(vals) == set(fields.ROLES) - {"reproduction"}:
                # the history's default (issue 32): said as what it means
                parts.append("published results only (reproductions left out)")
            elif vals:
                parts.append(f"{name} {' or '.join(vals)}")
        if self.years:
            parts.append(f"years {self.years[0]}-{self.years[1]}")
        parts += self._dated()
        named = (("track", self.track), ("paper", self.paper), ("topics", self.topics))
        parts += [f"{name} {value}" for name, value in named if value]
        flags = (
            (self.include_retracted, "retracted included"),
            (self.include_nonstandard, "non-standard included"),
            (self.zero_shot, "zero-shot only"),
        )
        parts += [words for on, words in flags if on]
        return ", ".join(parts)

    def _dated(self) -> list[str]:
        """The date window in words (none or one item)."""
        if self.since and self.until:
            return [f"dated {self.since} to {self.until}"]
        if self.since:
            return [f"dated from {self.since}"]
        if self.until:
            return [f"dated up to {self.until}"]
        return []


# Curation lists everything; audits leave retracted and non-standard results out.
CURATION = Filters(include_retracted=True, include_nonstandard=True)
AUDIT = Filters()


def parse_years(text: str | None) -> tuple[int, int] | None:
    """'2010' -> (2010, 2010); '2005-2012', '2005..2012', '2005-', '-2012'. ASCII digits
    only; a range running backwards is refused with the range it probably meant."""
    if not text or not str(text).strip():
        return None
    text = str(text)
    parts = text.strip().replace("..", "-").split("-")
    bad = LitauditError(f"--years: expected YEAR or FROM-TO (e.g. 2005-2012), got {text!r}")
    if (
        len(parts) > 2
        or not all(p.strip() == "" or (p.strip().isascii() and p.strip().isdigit()) for p in parts)
        or not any(p.strip() for p in parts)
    ):
        raise bad
    try:
        if len(parts) == 1:
            y = fields.parse_year(parts[0])
            return y, y
        lo = fields.parse_year(parts[0]) if parts[0].strip() else 1950
        hi = fields.parse_year(parts[1]) if parts[1].strip() else 2100
    except fields.FieldError as e:
        raise LitauditError(f"--years: {e}") from None
    if lo > hi:
        raise LitauditError(
            f"--years: {text!r} runs backwards (from {lo} to {hi}); did you mean {hi}-{lo}?"
        )
    return lo, hi


def parse_date(text: str | None, opt: str, *, end: bool) -> str | None:
    """'2020' / '2020-06' / '2020-06-15' -> an ISO date: the first day of the period, or
    its last day when ``end`` (so ``--until 2020`` means up to 2020-12-31)."""
    if not text or not str(text).strip():
        return None
    m = _DATE.match(str(text).strip())
    try:
        if not m:
            raise ValueError
        y, mo, d = int(m[1]), int(m[2] or 0), int(m[3] or 0)
        if d:
            day = dt.date(y, mo, d)
        elif mo:
            day = dt.date(y, mo, 1)
            if end:
                day = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(
                    days=1
                )
        else:
            day = dt.date(y, 12, 31) if end else dt.date(y, 1, 1)
    except ValueError:
        raise LitauditError(f"{opt}: expected YYYY, YYYY-MM or YYYY-MM-DD, got {text!r}") from None
    return day.isoformat()


def _stripped(text: str | None) -> str | None:
    """``text`` without surrounding spaces; None when nothing is left."""
    return text.strip() if text and text.strip() else None


def _choices(values, choices: tuple[str, ...], opt: str) -> tuple[str, ...]:
    out = set()
    for value in values or ():
        v = str(value).strip().lower()
        if v not in choices:
            raise LitauditError(
                f"{opt}: {value!r} is not one of {', '.join(choices)}{did_you_mean(value, choices)}"
            )
        out.add(v)
    return tuple(sorted(out))
