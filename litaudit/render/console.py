"""Shared terminal output: one stdout console, one stderr console, JSON and tables.

Every read command renders either a rich table (default) or ``--json``; both are built
here so that formats are defined once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def to_jsonable(obj: Any) -> Any:
    """Plain JSON types for dataclasses, numpy scalars/arrays, dates, paths, Decimals."""
    t = type(obj)
    if t is str or t is int or t is bool or obj is None:  # fast path: most leaves
        return obj
    if t is float:
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat()
    if isinstance(obj, Decimal):
        return str(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):  # SQLModel / pydantic rows
        return to_jsonable(obj.model_dump())
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return to_jsonable(obj.tolist())
    return str(obj)


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys) used for --json output and stored audits."""
    return json.dumps(to_jsonable(obj), sort_keys=True, indent=2, ensure_ascii=False)


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
