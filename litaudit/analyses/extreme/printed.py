"""Values as a paper printed them: a claimed or baseline value is taken as text, so the
digits printed (0.3100 is not 0.31) decide whether a run reproduces it, and a value is
checked against its measure's range (a percentage gets a suggestion) the same way for a
claim and for a baseline (issue 32, item 3)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from litaudit.errors import ParameterError
from litaudit.store.measures import value_range

if TYPE_CHECKING:
    import duckdb


def printed(value: float | str | None, what: str) -> tuple[float | None, str | None]:
    """(value, text as printed) of ``value``: a text as given (stripped), a float by its
    shortest repr (which cannot know trailing zeros). ``what`` names the value in errors
    ("--baseline")."""
    if value is None:
        return None, None
    text = value.strip() if isinstance(value, str) else repr(float(value))
    try:
        v = float(text)
    except ValueError:
        raise ParameterError(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(v):
        raise ParameterError(f"{what}: {text} is not a finite number")
    return v, text


def check_range(con: duckdb.DuckDBPyConnection, measure: str, value: float, what: str) -> float:
    """``value`` when it lies in ``measure``'s range; a value in (1, 100] of a measure
    between 0 and 1 is refused as a percentage with the fraction it may mean. ``what``:
    'claimed AP', 'baseline AP'."""
    value = float(value)
    if not math.isfinite(value):
        raise ParameterError(f"{what} must be a finite number, got {value!r}")
    row = value_range(con, measure)
    lo, hi = (0.0, 1.0) if row is None else (float(row[0]), float(row[1]))
    span = f"{measure} lies between {lo:g} and {hi:g}"
    if value < lo:
        raise ParameterError(
            f"{what} {value:g} is {'negative' if value < 0 else 'below the range'}; {span}"
        )
    if value > hi:
        if lo == 0.0 and hi == 1.0 and value <= 100:
            raise ParameterError(
                f"{what} {value:g} is not a fraction; did you mean {value / 100:g}? ({span})"
            )
        raise ParameterError(f"{what} {value:g} is above the range; {span}")
    return value
