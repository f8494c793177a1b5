"""`results list`, `show`, `history`, `export` and `consistency` asked once (issue 37 item
1): each command's options as one frozen settings object, checked before the store opens
(the curation filter (:class:`~litaudit.curation.filters.Filters`) built from its option
text there), and the one call that answers it with a typed result (printed by
:mod:`litaudit.render.results_read`). These commands only read the database; the SQL
stays with the tables' owners."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.curation.bundle import export_bundle
from litaudit.curation.consistency_rows import StoreFinding, seed_annotations, store_findings
from litaudit.curation.export import export_rows, export_steps, format_for, write_export
from litaudit.curation.filters import CURATION, Filters, parse_date
from litaudit.curation.results import (
    SORT_KEYS,
    get_result,
    history,
    history_window,
    list_json,
    list_table,
)
from litaudit.errors import LitauditError
from litaudit.files import STDOUT, check_target
from litaudit.measures import did_you_mean
from litaudit.progress import Progress
from litaudit.store.history import Entry, WindowEntry
from litaudit.store.results import ResultRecord, resolve_id

if TYPE_CHECKING:
    import duckdb

    from litaudit.store.db import Store


@dataclass(frozen=True, kw_only=True)
class ResultFilter:
    """The options of the curation filter as given (retracted and non-standard results
    shown), made into :class:`~litaudit.curation.filters.Filters` by :meth:`parsed`."""

    role: str | None = None
    status: str | None = None
    source: str | None = None
    years: str | None = None
    paper: str | None = None
    track: str | None = None
    since: str | None = None
    until: str | None = None
    reporters: tuple[str, ...] = ()

    def parsed(self) -> Filters:
        """The filter (a bad value: one error naming its option)."""
        return Filters.parse(
            roles=[self.role] if self.role else (),
            statuses=[self.status] if self.status else (),
            source=self.source,
            years=self.years,
            paper=self.paper,
            track=self.track,
            since=self.since,
            until=self.until,
            reporters=self.reporters,
            include_retracted=True,
            include_nonstandard=True,
        )


def _check_sort(sort: str | None) -> None:
    key = (sort or "collection").strip().lower()
    if key not in SORT_KEYS:
        raise LitauditError(
            f"--sort: {sort!r} is not one of {', '.join(SORT_KEYS)}{did_you_mean(key, SORT_KEYS)}"
        )


@dataclass(frozen=True, kw_only=True)
class ResultsList:
    """`results list`: the filter, a collection and a measure by any name, the order, at
    most ``limit`` rows; ``json`` every field of every row; else in a ``terminal`` the
    first :data:`~litaudit.defaults.RESULTS_PAGE` (unless ``all_`` or a ``limit``)."""

    given: ResultFilter = ResultFilter()
    collection: str | None = None
    measure: str | None = None
    sort: str = "collection"
    desc: bool = False
    limit: int | None = None
    all_: bool = False
    terminal: bool = False
    json: bool = False
    filters: Filters = CURATION

    def checked(self) -> ResultsList:
        """The request with its filter parsed; a bad filter, sort key or limit refused."""
        _check_sort(self.sort)
        if self.limit is not None and self.limit < 1:
            raise LitauditError(f"--limit must be at least 1, got {self.limit}")
        return dataclasses.replace(self, filters=self.given.parsed())

    @property
    def rows_read(self) -> int | None:
        """How many rows to read (None: all)."""
        paged = not self.json and self.terminal and not self.all_ and self.limit is None
        return defaults.RESULTS_PAGE if paged else self.limit


@dataclass(frozen=True, kw_only=True)
class ResultsListing:
    """`results list`'s answer: its rows (``LIST_COLUMNS``) and how many pass the filter
    in all, the options given of collection and measure; or, for ``--json``, the JSON
    text in pieces (``json_pieces``, every field of every row), read from the store as
    they are written (once, while the store is open: 35k rows take no memory)."""

    rows: tuple[tuple, ...] = ()
    total: int = 0
    given: tuple[str, ...] = ()
    json_pieces: Iterator[str] | None = None


def answer_list(con: duckdb.DuckDBPyConnection, req: ResultsList) -> ResultsListing:
    """The rows of `results list` (:func:`~litaudit.curation.results.list_table`, or
    :func:`~litaudit.curation.results.list_json` for ``--json``)."""
    c, m, f = req.collection, req.measure, req.filters
    if req.json:
        pieces = list_json(
            con, f, collection=c, measure=m, sort=req.sort, desc=req.desc, limit=req.limit
        )
        return ResultsListing(json_pieces=pieces)
    rows, total = list_table(
        con, f, collection=c, measure=m, sort=req.sort, desc=req.desc, limit=req.rows_read
    )
    given = tuple(h for h, v in (("collection", req.collection), ("measure", req.measure)) if v)
    return ResultsListing(rows=tuple(rows), total=total, given=given)


@dataclass(frozen=True, kw_only=True)
class ShownResult:
    """`results show`: one result with its provenance, and its history, oldest first."""

    result: ResultRecord
    history: tuple[Entry, ...]


def shown_result(con: duckdb.DuckDBPyConnection, result_id: str) -> ShownResult:
    """The result of ``result_id`` (its id or uid) and its history."""
    rid = resolve_id(con, result_id)
    return ShownResult(result=get_result(con, rid), history=tuple(history(con, "result", rid)))


@dataclass(frozen=True, kw_only=True)
class HistoryRequest:
    """`results history`: a result's changes (``result_id``), or the changes to the
    results of a ``collection`` and/or made from ``since`` to ``until``."""

    result_id: str | None = None
    collection: str | None = None
    since: str | None = None
    until: str | None = None

    def checked(self) -> HistoryRequest:
        """A result id or a window (not both, not neither); the window's dates read."""
        window = bool(self.collection or self.since or self.until)
        if self.result_id is None and not window:
            raise LitauditError("give a result id, or --collection and/or --since/--until")
        if self.result_id is not None and window:
            raise LitauditError("give a result id or --collection/--since/--until, not both")
        lo = parse_date(self.since, "--since", end=False)
        hi = parse_date(self.until, "--until", end=True)
        if lo and hi and lo > hi:
            raise LitauditError(f"--since {self.since} is after --until {self.until}")
        return self


@dataclass(frozen=True, kw_only=True)
class ResultHistory:
    """Every change to one result, oldest first."""

    result_id: int
    entries: tuple[Entry, ...]


@dataclass(frozen=True, kw_only=True)
class HistoryWindow:
    """The changes to a collection's results (or all) in a window, oldest first."""

    entries: tuple[WindowEntry, ...]


def answer_history(
    con: duckdb.DuckDBPyConnection, req: HistoryRequest
) -> ResultHistory | HistoryWindow:
    """The history of one result (NotFound when there is none), or the window's."""
    if req.result_id is None:
        rows = history_window(con, collection=req.collection, since=req.since, until=req.until)
        return HistoryWindow(entries=tuple(rows))
    rid = resolve_id(con, req.result_id)
    get_result(con, rid)
    return ResultHistory(result_id=rid, entries=tuple(history(con, "result", rid)))


@dataclass(frozen=True, kw_only=True)
class ResultsExport:
    """`results export`: the ``output`` file (``-``: standard output), its format (None:
    from the suffix), the filter, a collection and a measure by any name; ``protect``:
    files the output may not be (the open database)."""

    output: str
    fmt: str | None = None
    given: ResultFilter = ResultFilter()
    collection: str | None = None
    measure: str | None = None
    protect: tuple[Path, ...] = ()
    filters: Filters = CURATION

    def checked(self) -> ResultsExport:
        """The format decided and the output checked (before any work), the filter parsed."""
        fmt = format_for(Path(self.output), self.fmt)
        if self.output != STDOUT:
            check_target(self.output, list(self.protect))
        return dataclasses.replace(self, fmt=fmt, filters=self.given.parsed())


@dataclass(frozen=True, kw_only=True)
class ExportWritten:
    """What `results export` wrote: ``results`` rows to ``output`` in ``fmt``, and the
    curation export's (JSON) papers and history entries (None: CSV, Parquet)."""

    output: str
    fmt: str
    results: int
    papers: int | None = None
    history: int | None = None


def answer_export(
    store: Store, req: ResultsExport, progress: Progress | None = None
) -> ExportWritten:
    """Read the rows (JSON: the curation export, :func:`~litaudit.curation.bundle.
    export_bundle`) and write them (:func:`~litaudit.curation.export.write_export`);
    ``progress``: the writing phase announced, then its steps."""
    fmt = req.fmt or format_for(Path(req.output), None)
    filt = req.filters.resolved(store.con, req.collection, req.measure)
    bundle = None
    if fmt == "json":  # the curation export: its results are the rows
        bundle = export_bundle(store.con, filt)
        rows = bundle["results"]
    else:
        rows = export_rows(store.con, filt)
    if progress is not None:
        progress.status(f"export {fmt}: writing", unit="rows")
        progress(total=export_steps(rows, fmt, bundle))
    write_export(rows, req.output, fmt, protect=list(req.protect), bundle=bundle, progress=progress)
    return ExportWritten(
        output=req.output,
        fmt=fmt,
        results=len(rows),
        papers=len(bundle["papers"]) if bundle else None,
        history=len(bundle["history"]) if bundle else None,
    )


@dataclass(frozen=True, kw_only=True)
class ConsistencyReport:
    """`results consistency`: the findings (curated ones too unless ``open_only`` was
    asked); ``strict``: the command fails when one is open."""

    findings: tuple[StoreFinding, ...]
    strict: bool = False

    @property
    def n_open(self) -> int:
        return sum(1 for f in self.findings if not f.curated)

    @property
    def failed(self) -> bool:
        """Asked to be strict, with findings nobody curated."""
        return self.strict and self.n_open > 0


def answer_consistency(
    con: duckdb.DuckDBPyConnection, *, open_only: bool = False, strict: bool = False
) -> ConsistencyReport:
    """The store's findings (:func:`~litaudit.curation.consistency_rows.store_findings`),
    the seeds' curated findings (seeds/consistency.csv) read."""
    found = store_findings(con, include_curated=not open_only, annotations=seed_annotations())
    return ConsistencyReport(findings=tuple(found), strict=strict)
