"""The scales of :mod:`.svg`'s plots: text escaping, the palette and page geometry,
coordinates, "nice" ticks of number, year and date axes (issue 37: svg.py split at its
seams; no behaviour changed)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from html import escape as _html_escape
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np

# values a layer takes: numbers or arrays; None and non-finite values are dropped
Values: TypeAlias = "Sequence[float | None] | np.ndarray[Any, Any]"

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape(text: str, quote: bool = True) -> str:
    """Stored text for XML/HTML: escaped, control characters (not allowed in XML 1.0,
    terminal escapes in HTML) dropped."""
    return _html_escape(_CONTROL.sub("", str(text)), quote=quote)


# a colour-blind-safe palette (Okabe and Ito, 2008)
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
WIDTH, HEIGHT = 640, 360
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 64, 16, 40, 52
# a white outline under a label, so that it reads over the lines it crosses
HALO = 'paint-order="stroke" stroke="#ffffff" stroke-width="3" stroke-linejoin="round"'
FONT = 'font-family="system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif"'


def num(x: float) -> str:
    """A coordinate with two decimals (no '-0.00')."""
    s = f"{x:.2f}"
    return "0.00" if s == "-0.00" else s


def nice_step(span: float, target: int = 5) -> float:
    """A step of 1, 2 or 5 times a power of ten giving about ``target`` intervals."""
    if not span > 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(1, target)
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if raw <= m * mag * (1 + 1e-9):
            return m * mag
    return 10.0 * mag


def ticks(lo: float, hi: float, target: int = 5) -> tuple[list[float], int]:
    """Tick values covering [lo, hi] and the number of decimals to print them with."""
    step = nice_step(hi - lo, target)
    start = math.ceil(lo / step - 1e-9)
    stop = math.floor(hi / step + 1e-9)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    vals = [round(k * step, decimals + 2) for k in range(start, stop + 1)]
    return vals, decimals


def padded(
    lo: float, hi: float, frac: float = 0.05, least: float | None = None
) -> tuple[float, float]:
    """[lo, hi] widened by ``frac`` of its span, and by at least ``least`` on each side
    when given (a single point without ``least``: by 10% of its value, or 1)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    span = hi - lo
    if least is not None:
        pad = max(span * frac, least)
        return lo - pad, hi + pad
    if span <= 0:
        pad = abs(lo) * 0.1 or 1.0
        return lo - pad, hi + pad
    return lo - span * frac, hi + span * frac


def date_ticks(lo: float, hi: float, target: int = 6) -> list[tuple[float, str]]:
    """Ticks of a date axis over day numbers [lo, hi]: (day number, label), at whole
    years ('2019'), months ('2019-06') or days ('2003-07-30') as the span needs."""
    import datetime as dt

    first, last = dt.date.fromordinal(math.ceil(lo)), dt.date.fromordinal(math.floor(hi))
    span = hi - lo
    out: list[tuple[float, str]] = []
    if span > 3 * 365:
        step = max(1, int(nice_step(span / 365.25, target)))
        y = first.year + (1 if (first.month, first.day) != (1, 1) else 0)
        y = -(-y // step) * step
        while y <= last.year:
            out.append((float(dt.date(y, 1, 1).toordinal()), str(y)))
            y += step
        return out
    if span > 75:
        months = span / 30.44
        step = next((m for m in (1, 2, 3, 6, 12) if months / m <= target), 12)
        k = first.year * 12 + first.month - 1 + (1 if first.day != 1 else 0)
        k = -(-k // step) * step
        while True:
            d = dt.date(k // 12, k % 12 + 1, 1)
            if d > last:
                return out
            out.append((float(d.toordinal()), f"{d:%Y-%m}"))
            k += step
    step = next((d for d in (1, 2, 5, 7, 14, 28) if span / d <= target), 28)
    day = math.ceil(lo)
    while day <= hi:
        out.append((float(day), dt.date.fromordinal(day).isoformat()))
        day += step
    return out
