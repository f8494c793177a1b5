"""A small deterministic SVG plotting module for reports.

Line, area (band), scatter and reference-line plots with axes, "nice" ticks, a legend and
labels; no randomness, no ids, no dates, every coordinate printed with a fixed number of
digits, so the same inputs give byte-identical SVG. Plots scale with their container
(``viewBox`` with ``width="100%"``) and carry a ``<title>`` and ``aria-label`` for
screen readers.
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


def padded(lo: float, hi: float, frac: float = 0.05) -> tuple[float, float]:
    """[lo, hi] widened by ``frac`` of its span (or by 1 when it is a single point)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    span = hi - lo
    if span <= 0:
        pad = abs(lo) * 0.1 or 1.0
        return lo - pad, hi + pad
    return lo - span * frac, hi + span * frac


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


@dataclass
class Plot:
    """One x-y plot: add layers, then ``render()`` to an SVG string."""

    title: str
    xlabel: str
    ylabel: str
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
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
        self, xs: Values, ys: Values, *, color: str = PALETTE[0], label: str | None = None
    ) -> Plot:
        xs, ys = _pairs(xs, ys)
        self.layers.append(_Layer("scatter", xs, ys, color=color, label=label))
        return self

    def vline(
        self, x: float, *, color: str = PALETTE[6], label: str | None = None, dash: bool = True
    ) -> Plot:
        self.layers.append(_Layer("vline", color=color, label=label, dash=dash, value=x))
        return self

    def hline(
        self, y: float, *, color: str = PALETTE[6], label: str | None = None, dash: bool = True
    ) -> Plot:
        self.layers.append(_Layer("hline", color=color, label=label, dash=dash, value=y))
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
        xs += [lay.value for lay in self.layers if lay.kind == "vline"]
        ys = [v for lay in self.layers for v in (*lay.ys, *lay.ys2)]
        ys += [lay.value for lay in self.layers if lay.kind == "hline"]
        x0, x1 = self.xlim or padded(min(xs, default=0.0), max(xs, default=1.0))
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

        label = escape(self.title, quote=True)
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="100%" role="img" aria-label="{label}" class="plot" {FONT} '
            'font-size="12">',
            f"<title>{escape(self.title)}</title>",
            f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
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
        for x, y, text in self.notes:
            out.append(
                f'<text x="{num(sx(x) + 4)}" y="{num(sy(y) - 4)}" font-size="11">'
                f"{escape(text)}</text>"
            )
        out += self._legend()
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def _axes(self, x0, x1, y0, y1, sx, sy, pw, ph) -> list[str]:
        out = [
            f'<rect x="{MARGIN_L}" y="{MARGIN_T}" width="{pw}" height="{ph}" fill="none" '
            'stroke="#444444" stroke-width="1"/>'
        ]
        xt, xd = ticks(x0, x1, 6)
        yt, yd = ticks(y0, y1, 5)
        grid = []
        for v in xt:
            x = num(sx(v))
            grid.append(f"M{x} {MARGIN_T}V{MARGIN_T + ph}")
            out.append(
                f'<text x="{x}" y="{MARGIN_T + ph + 16}" text-anchor="middle">{v:.{xd}f}</text>'
            )
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
            dots = "".join(
                f'<circle cx="{num(sx(x))}" cy="{num(sy(y))}" r="4"/>'
                for x, y in zip(lay.xs, lay.ys, strict=True)
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

    def _legend(self) -> list[str]:
        items = [lay for lay in self.layers if lay.label]
        if not items:
            return []
        out = []
        x, y = WIDTH - MARGIN_R - 8, MARGIN_T + 14
        for lay in items:
            sym_x = x - 200
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
            y += 16
        box = (
            f'<rect x="{x - 206}" y="{MARGIN_T + 2}" width="204" height="{16 * len(items) + 4}" '
            'fill="#ffffff" fill-opacity="0.85" stroke="#cccccc" stroke-width="0.5"/>'
        )
        return ['<g class="legend">', box] + out + ["</g>"]


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
