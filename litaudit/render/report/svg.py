"""A small deterministic SVG plotting module for reports.

Line, area (band), scatter and reference-line plots with axes, "nice" ticks, a legend and
labels; no randomness, no ids, no clock, every coordinate printed with a fixed number of
digits, so the same inputs give byte-identical SVG. Plots scale with their container
(``viewBox`` with ``width="100%"``) and carry a ``<title>`` and ``aria-label`` for
screen readers.

The axes fit the data: an x axis of years (``xaxis="year"``) ticks whole years, one of
dates (``xaxis="date"``, x in proleptic Gregorian day numbers, ``date.toordinal()``) ticks
years, months or days as the span needs and prints them as dates. The legend sits below
the plot, outside the data. A reference line can carry its own label, and one that lies
outside the data's range (``fit=False``) is shown as an arrow at the edge it lies beyond
rather than squashing the data; scatter points can carry names (a tooltip on each, and a
text label on the ones the caller picks).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
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


@dataclass
class _Layer:
    kind: str  # line | area | scatter | vline | hline | diag
    xs: tuple[float, ...] = ()
    ys: tuple[float, ...] = ()
    ys2: tuple[float, ...] = ()
    color: str = PALETTE[0]
    label: str | None = None
    dash: bool = False
    opacity: float = 1.0
    value: float = 0.0
    fit: bool = True  # a reference line: the axes include it (else: an arrow at the edge)
    tag: str | None = None  # a reference line: its label, drawn beside it
    names: tuple[str, ...] = ()  # a scatter: one name per point (tooltips)


@dataclass
class Plot:
    """One x-y plot: add layers, then ``render()`` to an SVG string."""

    title: str
    xlabel: str
    ylabel: str
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    xaxis: str = "number"  # number | year | date (x in day numbers)
    layers: list[_Layer] = field(default_factory=list)
    notes: list[tuple[float, float, str]] = field(default_factory=list)

    def line(
        self,
        xs: Values,
        ys: Values,
        *,
        color: str = PALETTE[0],
        label: str | None = None,
        dash: bool = False,
        step: bool = False,
    ) -> Plot:
        xs, ys = _pairs(xs, ys)
        if step and xs:
            sx, sy = [xs[0]], [ys[0]]
            for x, y in zip(xs[1:], ys[1:], strict=True):
                sx += [x, x]
                sy += [sy[-1], y]
            xs, ys = tuple(sx), tuple(sy)
        self.layers.append(_Layer("line", xs, ys, color=color, label=label, dash=dash))
        return self

    def area(
        self,
        xs: Values,
        lower: Values,
        upper: Values,
        *,
        color: str = PALETTE[0],
        label: str | None = None,
        opacity: float = 0.2,
    ) -> Plot:
        xs, lo = _pairs(xs, lower)
        _, hi = _pairs(xs, upper)
        self.layers.append(_Layer("area", xs, lo, hi, color=color, label=label, opacity=opacity))
        return self

    def scatter(
        self,
        xs: Values,
        ys: Values,
        *,
        color: str = PALETTE[0],
        label: str | None = None,
        names: Sequence[str] | None = None,
    ) -> Plot:
        """Points; ``names`` (one per point) become each point's tooltip."""
        if names is not None and len(names) != len(xs):
            raise ValueError(f"{len(xs)} points but {len(names)} names")
        keep = [
            i
            for i, (x, y) in enumerate(zip(xs, ys, strict=True))
            if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
        ]
        px, py = _pairs(xs, ys)
        kept = tuple(str(names[i]) for i in keep) if names is not None else ()
        self.layers.append(_Layer("scatter", px, py, color=color, label=label, names=kept))
        return self

    def vline(
        self,
        x: float,
        *,
        color: str = PALETTE[6],
        label: str | None = None,
        dash: bool = True,
        tag: str | None = None,
        fit: bool = True,
    ) -> Plot:
        """A vertical reference line; ``tag`` is written beside it; with ``fit=False`` the
        x axis is not stretched to reach it (an arrow at the edge shows where it is)."""
        lay = _Layer("vline", color=color, label=label, dash=dash, value=x, fit=fit, tag=tag)
        self.layers.append(lay)
        return self

    def hline(
        self,
        y: float,
        *,
        color: str = PALETTE[6],
        label: str | None = None,
        dash: bool = True,
        tag: str | None = None,
        fit: bool = True,
    ) -> Plot:
        """A horizontal reference line (see :meth:`vline`)."""
        lay = _Layer("hline", color=color, label=label, dash=dash, value=y, fit=fit, tag=tag)
        self.layers.append(lay)
        return self

    def diagonal(self, *, color: str = "#888888", label: str | None = "y = x") -> Plot:
        self.layers.append(_Layer("diag", color=color, label=label, dash=True))
        return self

    def note(self, x: float, y: float, text: str) -> Plot:
        self.notes.append((x, y, text))
        return self

    # ------------------------------------------------------------------ rendering
    def _limits(self) -> tuple[float, float, float, float]:
        xs = [v for lay in self.layers for v in lay.xs]
        xs += [lay.value for lay in self.layers if lay.kind == "vline" and lay.fit]
        ys = [v for lay in self.layers for v in (*lay.ys, *lay.ys2)]
        ys += [lay.value for lay in self.layers if lay.kind == "hline" and lay.fit]
        if not xs:  # only reference lines left out of the fit: show them
            xs = [lay.value for lay in self.layers if lay.kind == "vline"]
        if not ys:
            ys = [lay.value for lay in self.layers if lay.kind == "hline"]
        # a single year or date is widened by a year or a few days, not by 10% of 2003
        least = {"year": 0.5, "date": 3.0}.get(self.xaxis)
        x0, x1 = self.xlim or padded(min(xs, default=0.0), max(xs, default=1.0), least=least)
        y0, y1 = self.ylim or padded(min(ys, default=0.0), max(ys, default=1.0))
        if any(lay.kind == "diag" for lay in self.layers) and not (self.xlim or self.ylim):
            x0 = y0 = min(x0, y0)
            x1 = y1 = max(x1, y1)
        return x0, x1, y0, y1

    def render(self) -> str:
        x0, x1, y0, y1 = self._limits()
        pw, ph = WIDTH - MARGIN_L - MARGIN_R, HEIGHT - MARGIN_T - MARGIN_B

        def sx(x: float) -> float:
            return MARGIN_L + (x - x0) / (x1 - x0) * pw

        def sy(y: float) -> float:
            return MARGIN_T + ph - (y - y0) / (y1 - y0) * ph

        legend, legend_h = self._legend()
        height = HEIGHT + legend_h
        label = escape(self.title, quote=True)
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="100%" role="img" aria-label="{label}" class="plot" {FONT} '
            'font-size="12">',
            f"<title>{escape(self.title)}</title>",
            f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
            f'<text x="{MARGIN_L}" y="22" font-size="14" font-weight="bold">'
            f"{escape(self.title)}</text>",
        ]
        out += self._axes(x0, x1, y0, y1, sx, sy, pw, ph)
        clip = (
            f'<svg x="{MARGIN_L}" y="{MARGIN_T}" width="{pw}" height="{ph}" '
            f'viewBox="{MARGIN_L} {MARGIN_T} {pw} {ph}" overflow="hidden">'
        )
        out.append(clip)
        for lay in self.layers:
            out.append(self._layer(lay, x0, x1, y0, y1, sx, sy))
        out.append("</svg>")
        out += self._tags(x0, x1, y0, y1, sx, sy)
        out += self._notes(sx, sy)
        out += legend
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def _xticks(self, x0: float, x1: float) -> list[tuple[float, str]]:
        if self.xaxis == "date":
            return date_ticks(x0, x1, 6)
        vals, decimals = ticks(x0, x1, 6)
        if self.xaxis == "year":  # whole years only
            vals = [v for v in vals if float(v).is_integer()] or [float(round((x0 + x1) / 2))]
            decimals = 0
        return [(v, f"{v:.{decimals}f}") for v in vals]

    def _axes(self, x0, x1, y0, y1, sx, sy, pw, ph) -> list[str]:
        out = [
            f'<rect x="{MARGIN_L}" y="{MARGIN_T}" width="{pw}" height="{ph}" fill="none" '
            'stroke="#444444" stroke-width="1"/>'
        ]
        yt, yd = ticks(y0, y1, 5)
        grid = []
        for v, text in self._xticks(x0, x1):
            x = num(sx(v))
            grid.append(f"M{x} {MARGIN_T}V{MARGIN_T + ph}")
            out.append(f'<text x="{x}" y="{MARGIN_T + ph + 16}" text-anchor="middle">{text}</text>')
        for v in yt:
            y = num(sy(v))
            grid.append(f"M{MARGIN_L} {y}H{MARGIN_L + pw}")
            out.append(
                f'<text x="{MARGIN_L - 6}" y="{num(sy(v) + 4)}" text-anchor="end">{v:.{yd}f}</text>'
            )
        out.insert(0, f'<path d="{" ".join(grid)}" stroke="#e4e4e4" stroke-width="1" fill="none"/>')
        out.append(
            f'<text x="{num(MARGIN_L + pw / 2)}" y="{HEIGHT - 12}" '
            f'text-anchor="middle">{escape(self.xlabel)}</text>'
        )
        cy = num(MARGIN_T + ph / 2)
        out.append(
            f'<text x="16" y="{cy}" text-anchor="middle" '
            f'transform="rotate(-90 16 {cy})">{escape(self.ylabel)}</text>'
        )
        return out

    def _layer(self, lay: _Layer, x0, x1, y0, y1, sx, sy) -> str:
        dash = ' stroke-dasharray="6 4"' if lay.dash else ""
        if lay.kind == "line":
            d = _path(sx, sy, lay.xs, lay.ys)
            return f'<path d="{d}" fill="none" stroke="{lay.color}" stroke-width="2"{dash}/>'
        if lay.kind == "area":
            upper = _path(sx, sy, lay.xs, lay.ys2)
            back = " ".join(
                f"L{num(sx(x))} {num(sy(y))}"
                for x, y in zip(reversed(lay.xs), reversed(lay.ys), strict=True)
            )
            return (
                f'<path d="{upper} {back} Z" fill="{lay.color}" '
                f'fill-opacity="{lay.opacity:.2f}" stroke="none"/>'
            )
        if lay.kind == "scatter":
            names = lay.names or ("",) * len(lay.xs)
            dots = "".join(
                f'<circle cx="{num(sx(x))}" cy="{num(sy(y))}" r="4">'
                + (f"<title>{escape(n)}</title></circle>" if n else "</circle>")
                for x, y, n in zip(lay.xs, lay.ys, names, strict=True)
            )
            return (
                f'<g fill="{lay.color}" fill-opacity="0.75" stroke="#ffffff" '
                f'stroke-width="0.5">{dots}</g>'
            )
        if lay.kind == "vline":
            x = num(sx(lay.value))
            return (
                f'<path d="M{x} {num(sy(y0))}V{num(sy(y1))}" stroke="{lay.color}" '
                f'stroke-width="1.5"{dash}/>'
            )
        if lay.kind == "hline":
            y = num(sy(lay.value))
            return (
                f'<path d="M{num(sx(x0))} {y}H{num(sx(x1))}" stroke="{lay.color}" '
                f'stroke-width="1.5"{dash}/>'
            )
        lo, hi = max(x0, y0), min(x1, y1)
        return (
            f'<path d="M{num(sx(lo))} {num(sy(lo))}L{num(sx(hi))} {num(sy(hi))}" '
            f'stroke="{lay.color}" stroke-width="1"{dash}/>'
        )

    def _tags(self, x0, x1, y0, y1, sx, sy) -> list[str]:
        """The reference lines' own labels: beside the line inside the plot, or an arrow
        and the label at the edge the value lies beyond."""
        out: list[str] = []
        right = WIDTH - MARGIN_R
        bottom = HEIGHT - MARGIN_B
        row = 0
        for lay in self.layers:
            if lay.kind not in ("vline", "hline") or not lay.tag:
                continue
            if lay.kind == "vline":
                y = MARGIN_T + 14 + 14 * row
                row += 1
                if lay.value < x0:
                    out += _tag(MARGIN_L + 4, y, f"\u2190 {lay.tag}", lay.color)
                elif lay.value > x1:
                    out += _tag(right - 4, y, f"{lay.tag} \u2192", lay.color, end=True)
                else:
                    x = sx(lay.value)
                    if x > right - 150:
                        out += _tag(x - 4, y, lay.tag, lay.color, end=True)
                    else:
                        out += _tag(x + 4, y, lay.tag, lay.color)
                continue
            if lay.value < y0:
                out += _tag(right - 4, bottom - 6, f"\u2193 {lay.tag}", lay.color, end=True)
            elif lay.value > y1:
                out += _tag(right - 4, MARGIN_T + 14, f"\u2191 {lay.tag}", lay.color, end=True)
            else:
                y = sy(lay.value)
                y = y - 4 if y - 4 > MARGIN_T + 12 else y + 13
                out += _tag(right - 4, y, lay.tag, lay.color, end=True)
        return out

    def _notes(self, sx, sy) -> list[str]:
        """Point labels, in the order given, each at the first of four places around its
        point (right above, right below, left above, left below) that stays inside the
        plot and covers no other label and no point; a label with no such place is
        dropped (the point keeps its tooltip)."""
        dots = [
            (sx(x), sy(y))
            for lay in self.layers
            if lay.kind == "scatter"
            for x, y in zip(lay.xs, lay.ys, strict=True)
        ]
        placed: list[tuple[float, float, float, float]] = []
        out = []
        for x, y, text in self.notes:
            w, px, py = 6.0 * len(text), sx(x), sy(y)
            for lx, ly in (
                (px + 6, py - 6),
                (px + 6, py + 14),
                (px - 6 - w, py - 6),
                (px - 6 - w, py + 14),
            ):
                box = (lx, ly - 10, lx + w, ly + 2)
                if (
                    box[0] < MARGIN_L + 2
                    or box[2] > WIDTH - MARGIN_R - 2
                    or box[1] < MARGIN_T + 2
                    or box[3] > HEIGHT - MARGIN_B - 2
                ):
                    continue
                if any(_overlaps(box, b) for b in placed):
                    continue
                if any(_overlaps(box, (dx - 4, dy - 4, dx + 4, dy + 4)) for dx, dy in dots):
                    continue
                placed.append(box)
                out.append(
                    f'<text x="{num(lx)}" y="{num(ly)}" font-size="10" fill="#333333" {HALO}>'
                    f"{escape(text)}</text>"
                )
                break
        return out

    def _legend(self) -> tuple[list[str], int]:
        """The legend below the plot (outside the data), two entries a row (one when a
        label is too long for half the width): its SVG and its height."""
        items = [lay for lay in self.layers if lay.label]
        if not items:
            return [], 0
        out = []
        col_w = (WIDTH - MARGIN_L - MARGIN_R) // 2
        cols = 2 if all(6.0 * len(lay.label or "") + 30 < col_w for lay in items) else 1
        top = HEIGHT + 4
        for i, lay in enumerate(items):
            sym_x = MARGIN_L + (i % cols) * col_w
            y = top + 12 + 16 * (i // cols)
            if lay.kind == "scatter":
                sym = f'<circle cx="{sym_x + 9}" cy="{y - 4}" r="4" fill="{lay.color}"/>'
            elif lay.kind == "area":
                sym = (
                    f'<rect x="{sym_x}" y="{y - 9}" width="18" height="10" '
                    f'fill="{lay.color}" fill-opacity="{max(lay.opacity, 0.3):.2f}"/>'
                )
            else:
                dash = ' stroke-dasharray="6 4"' if lay.dash else ""
                sym = (
                    f'<path d="M{sym_x} {y - 4}H{sym_x + 18}" stroke="{lay.color}" '
                    f'stroke-width="2"{dash}/>'
                )
            out.append(sym)
            out.append(
                f'<text x="{sym_x + 24}" y="{y}" font-size="11">{escape(lay.label or "")}</text>'
            )
        height = 16 * ((len(items) + cols - 1) // cols) + 12
        return ['<g class="legend">'] + out + ["</g>"], height


def _tag(x: float, y: float, text: str, color: str, *, end: bool = False) -> list[str]:
    """A reference line's label on a white box (it reads over the lines it crosses)."""
    w = 6.8 * len(text) + 4
    left = x - w + 2 if end else x - 2
    anchor = ' text-anchor="end"' if end else ""
    return [
        f'<rect x="{num(left)}" y="{num(y - 11)}" width="{num(w)}" height="14" '
        'fill="#ffffff" fill-opacity="0.85"/>',
        f'<text x="{num(x)}" y="{num(y)}"{anchor} font-size="11" fill="{color}" '
        f'font-weight="bold">{escape(text)}</text>',
    ]


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _pairs(xs: Values, ys: Values) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Finite (x, y) pairs as two tuples of floats (missing values are dropped)."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
    keep = [
        (float(x), float(y))
        for x, y in zip(xs, ys, strict=True)
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    return tuple(p[0] for p in keep), tuple(p[1] for p in keep)


def _path(sx, sy, xs: Sequence[float], ys: Sequence[float]) -> str:
    pts = [f"{num(sx(x))} {num(sy(y))}" for x, y in zip(xs, ys, strict=True)]
    return ("M" + " L".join(pts)) if pts else "M0 0"
