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

The module is in three parts (issue 37): :mod:`.svg_scale` (escaping, geometry, ticks),
:mod:`.svg_marks` (the drawing of each layer kind, tags, labels, legend) and this one, the
:class:`Plot` that collects layers and lays them out; its names are importable from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from litaudit.render.report.svg_marks import (
    Layer,
    draw_layer,
    legend,
    pairs,
    point_labels,
    reference_tags,
)
from litaudit.render.report.svg_scale import (
    FONT,
    HALO,
    HEIGHT,
    MARGIN_B,
    MARGIN_L,
    MARGIN_R,
    MARGIN_T,
    PALETTE,
    WIDTH,
    Values,
    date_ticks,
    escape,
    nice_step,
    num,
    padded,
    ticks,
)

__all__ = [
    "FONT",
    "HALO",
    "HEIGHT",
    "MARGIN_B",
    "MARGIN_L",
    "MARGIN_R",
    "MARGIN_T",
    "PALETTE",
    "WIDTH",
    "Plot",
    "Values",
    "date_ticks",
    "escape",
    "nice_step",
    "num",
    "padded",
    "ticks",
]


@dataclass
class Plot:
    """One x-y plot: add layers, then ``render()`` to an SVG string."""

    title: str
    xlabel: str
    ylabel: str
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    xaxis: str = "number"  # number | year | date (x in day numbers)
    layers: list[Layer] = field(default_factory=list)
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
        xs, ys = pairs(xs, ys)
        if step and xs:
            sx, sy = [xs[0]], [ys[0]]
            for x, y in zip(xs[1:], ys[1:], strict=True):
                sx += [x, x]
                sy += [sy[-1], y]
            xs, ys = tuple(sx), tuple(sy)
        self.layers.append(Layer("line", xs, ys, color=color, label=label, dash=dash))
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
        xs, lo = pairs(xs, lower)
        _, hi = pairs(xs, upper)
        self.layers.append(Layer("area", xs, lo, hi, color=color, label=label, opacity=opacity))
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
        px, py = pairs(xs, ys)
        kept = tuple(str(names[i]) for i in keep) if names is not None else ()
        self.layers.append(Layer("scatter", px, py, color=color, label=label, names=kept))
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
        lay = Layer("vline", color=color, label=label, dash=dash, value=x, fit=fit, tag=tag)
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
        lay = Layer("hline", color=color, label=label, dash=dash, value=y, fit=fit, tag=tag)
        self.layers.append(lay)
        return self

    def diagonal(self, *, color: str = "#888888", label: str | None = "y = x") -> Plot:
        self.layers.append(Layer("diag", color=color, label=label, dash=True))
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

        legend_svg, legend_h = legend(self.layers)
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
            out.append(draw_layer(lay, x0, x1, y0, y1, sx, sy))
        out.append("</svg>")
        out += reference_tags(self.layers, x0, x1, y0, y1, sx, sy)
        out += point_labels(self.layers, self.notes, sx, sy)
        out += legend_svg
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
