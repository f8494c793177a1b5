"""Shared terminal output: one stdout console, one stderr console, JSON and tables.

Every read command renders either a rich table (default) or ``--json``; both are built
here so that formats are defined once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from litaudit.codec import dumps, to_jsonable  # noqa: F401  (re-exported: the codec's home)

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(obj: Any) -> None:
    # plain print: rich would re-wrap long strings
    print(dumps(obj))


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


def table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]],
          digits: int = 4, justify_numbers: bool = True) -> Table:
    t = Table(title=title, title_justify="left", header_style="bold")
    rows = [list(r) for r in rows]
    for i, c in enumerate(columns):
        numeric = justify_numbers and rows and all(
            isinstance(r[i], (int, float)) and not isinstance(r[i], bool) for r in rows
            if r[i] is not None)
        t.add_column(c, justify="right" if numeric else "left")
    for r in rows:
        t.add_row(*[fmt(v, digits) for v in r])
    return t


def error(message: str) -> None:
    err.print(f"[bold red]Error:[/] {message}", markup=True, highlight=False)
