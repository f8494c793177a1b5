"""Shared terminal output: one stdout console, one stderr console, JSON and tables.

Every read command renders either a rich table (default) or ``--json``; both are built
here so that formats are defined once.

Stored text is data, never markup: the consoles parse no Rich markup and substitute no
emoji unless a call asks for it (``markup=True``, with stored text passed through
:func:`escape`), and every string printed loses its control characters (terminal escape
sequences, C0 and C1 codes; tab and newline stay), see :func:`clean`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.table import Table
from rich.text import Text

from litaudit.codec import dumps, to_jsonable  # noqa: F401  (re-exported: the codec's home)

# C0 controls but tab and newline, DEL, C1 controls (0x80-0x9f: CSI 0x9b among them), and
# the bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069) that
# would reorder the text around them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ESCAPE_SEQUENCE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")


def clean(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tab and
    newline kept): what stored text may put on a terminal."""
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


def escape(text: Any) -> str:
    """Stored text for a string printed with ``markup=True``: markup escaped, cleaned."""
    return _markup_escape(clean(str(text)))


class SafeConsole(Console):
    """A Console that never prints control characters from the strings it renders, and
    by default parses no markup and no emoji codes (``:100:`` stays ``:100:``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("highlight", False)
        super().__init__(**kwargs)

    def render_str(self, text: str, **kwargs):
        return super().render_str(clean(text), **kwargs)


out = SafeConsole(soft_wrap=True)
err = SafeConsole(stderr=True, soft_wrap=True)


_C1 = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_json(text: str) -> str:
    """JSON text safe on a terminal: the C1 controls and bidirectional controls
    ``json.dumps(ensure_ascii=False)`` leaves raw (they only occur inside strings) become
    ``\\u0080``-style escapes."""
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(obj: Any) -> None:
    # plain print: rich would re-wrap long strings
    print(terminal_json(dumps(obj)))


def fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.{digits}f}"
    return str(value)


def table(
    title: str | None,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    digits: int = 4,
    justify_numbers: bool = True,
    progress: Callable[..., None] | None = None,
    keep: Sequence[str] = (),
) -> Table:
    """A rich table; every cell is plain text (no markup), cleaned when printed.

    ``keep``: columns never cut (ids): they keep the width of their longest cell, and
    the other columns wrap (folding long words) to fit the terminal, never narrower
    than their header (:func:`_fitted_widths`).

    ``progress``: told as rich measures each row (``progress(measured=1)``, then
    ``progress(fitted=1)`` if it measures it again to fit the width) and draws it
    (``progress(1)``), for the bar of a table of many rows (see :func:`~litaudit.render.progress.print_rows`)."""
    t = Table(
        title=None if title is None else Text(clean(title)),
        title_justify="left",
        header_style="bold",
    )
    rows = [list(r) for r in rows]
    widths = _fitted_widths(columns, rows, keep, digits) if keep else {}
    for i, c in enumerate(columns):
        numeric = (
            justify_numbers
            and rows
            and all(
                isinstance(r[i], (int, float)) and not isinstance(r[i], bool)
                for r in rows
                if r[i] is not None
            )
        )
        how: Literal["right", "left"] = "right" if numeric else "left"
        if c in keep:
            t.add_column(c, justify=how, no_wrap=True, min_width=widths[c])
        elif keep:
            t.add_column(c, justify=how, overflow="fold", width=widths[c])
        else:
            t.add_column(c, justify=how)
    tally = _Tally(progress, len(columns)) if progress is not None else None
    for r in rows:
        cells: list[Any] = [fmt(v, digits) for v in r]
        if tally is not None:
            cells = [_CountedCell(clean(c), tally, i == 0) for i, c in enumerate(cells)]
        t.add_row(*cells)
    return t


def _fitted_widths(columns, rows, keep, digits) -> dict[str, int]:
    """Widths that fit the terminal (rich's own fitting cuts headers and overflows when
    some columns may not shrink): the ``keep`` columns as wide as their widest cell, the
    others share what is left, each at least as wide as its header (and as 7 characters
    or its widest cell), at most its widest cell, in proportion to what they lack."""
    natural = {
        c: max([len(x) for r in rows for x in fmt(r[i], digits).split("\n")] + [len(c)])
        for i, c in enumerate(columns)
    }
    free = [c for c in columns if c not in keep]
    room = out.width - (3 * len(columns) + 1) - sum(natural[c] for c in keep)
    # a short cell (a value such as 0.12345) is not folded when there is room
    got = {c: natural[c] if c in keep else max(len(c), min(natural[c], 7)) for c in columns}
    # then, where the room allows, no word is cut ('best (proposed)' wraps at its space):
    # each column widened to its longest word (up to 16 characters), shortest need first
    longest = {
        c: min(16, max([len(w) for r in rows for w in fmt(r[i], digits).split()] + [0]))
        for i, c in enumerate(columns)
    }
    for c in sorted(free, key=lambda c: (longest[c] - got[c], c)):
        need = longest[c] - got[c]
        if 0 < need <= room - sum(got[x] for x in free):
            got[c] += need
    spare = room - sum(got[c] for c in free)
    want = {c: natural[c] - got[c] for c in free}
    total = sum(want.values())
    if spare > 0 and total:
        for c in free:
            got[c] += min(want[c], spare * want[c] // total)
    return got


class _Tally:
    """Cells measured and fitted, passed on to ``progress`` a row's worth at a time (rich
    measures column by column: the widths, then again at narrower widths when the table
    is wider than the terminal), and rows drawn (row by row)."""

    def __init__(self, progress: Callable[..., None], columns: int):
        self.progress = progress
        self.columns = max(columns, 1)
        self.cells = {"measured": 0, "fitted": 0}

    def measured(self, again: bool) -> None:
        what = "fitted" if again else "measured"
        self.cells[what] += 1
        if not self.cells[what] % self.columns:
            self.progress(**{what: 1})


class _CountedCell(Text):
    """A cell that tells its table's :class:`_Tally` when rich measures it, and (a row's
    first cell) when rich draws its row."""

    def __init__(self, text: str, tally: _Tally, first: bool):
        super().__init__(text)
        self._tally = tally
        self._first = first
        self._measured = False

    def __rich_measure__(self, console, options):
        self._tally.measured(self._measured)
        self._measured = True
        return super().__rich_measure__(console, options)

    def __rich_console__(self, console, options):
        if self._first:
            self._tally.progress(1)
        yield from super().__rich_console__(console, options)


def plain_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> Iterator[str]:
    """A table as plain lines for a pipe or a file, fast (31k rows in a fraction of a
    second, where rich takes a minute): a header, then one line per row, every column
    as wide as its widest cell (nothing cut), two spaces apart, numbers to the right.
    Cells are cleaned (:func:`clean`) with tabs and newlines made spaces."""
    cols = []
    for i, _ in enumerate(columns):
        cells = ["-" if r[i] is None else str(r[i]) for r in rows]
        joined = "\x1e".join(cells)
        if _CONTROL.search(joined) or "\n" in joined or "\t" in joined:
            cells = [clean(c).replace("\n", " ").replace("\t", " ") for c in cells]
        cols.append(cells)
    widths = [
        max([len(h)] + [len(c) for c in cells]) for h, cells in zip(columns, cols, strict=True)
    ]
    right = [
        bool(rows) and all(isinstance(r[i], (int, float)) for r in rows if r[i] is not None)
        for i in range(len(columns))
    ]
    fmts = [f"{{:{'>' if rt else '<'}{w}}}" for w, rt in zip(widths, right, strict=True)]
    line = "  ".join(fmts)
    yield line.format(*columns).rstrip()
    for row in zip(*cols, strict=True):
        yield line.format(*row).rstrip()


def error(message: str) -> None:
    err.print(f"[bold red]Error:[/] {escape(message)}", markup=True, highlight=False)
