"""The marks of :mod:`.svg`'s plots, one drawing per layer kind (line, area, scatter,
vertical and horizontal reference lines, the diagonal), the reference lines' tags, the
point labels and the legend (issue 37: svg.py split at its seams; no behaviour changed)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from litaudit.render.report.svg_scale import (
    HALO,
    HEIGHT,
    MARGIN_B,
    MARGIN_L,
    MARGIN_R,
    MARGIN_T,
    PALETTE,
    WIDTH,
    Values,
    escape,
    num,
)


@dataclass
class Layer:
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


def draw_layer(lay: Layer, x0, x1, y0, y1, sx, sy) -> str:
    """One layer as SVG: a line, a band (area), points, a reference line or the diagonal."""
    dash = ' stroke-dasharray="6 4"' if lay.dash else ""
    if lay.kind == "line":
        d = path(sx, sy, lay.xs, lay.ys)
        return f'<path d="{d}" fill="none" stroke="{lay.color}" stroke-width="2"{dash}/>'
    if lay.kind == "area":
        upper = path(sx, sy, lay.xs, lay.ys2)
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


def reference_tags(layers: list[Layer], x0, x1, y0, y1, sx, sy) -> list[str]:
    """The reference lines' own labels: beside the line inside the plot, or an arrow
    and the label at the edge the value lies beyond."""
    out: list[str] = []
    right = WIDTH - MARGIN_R
    bottom = HEIGHT - MARGIN_B
    row = 0
    for lay in layers:
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


def point_labels(layers: list[Layer], notes, sx, sy) -> list[str]:
    """Point labels, in the order given, each at the first of four places around its
    point (right above, right below, left above, left below) that stays inside the
    plot and covers no other label and no point; a label with no such place is
    dropped (the point keeps its tooltip)."""
    dots = [
        (sx(x), sy(y))
        for lay in layers
        if lay.kind == "scatter"
        for x, y in zip(lay.xs, lay.ys, strict=True)
    ]
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for x, y, text in notes:
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


def legend(layers: list[Layer]) -> tuple[list[str], int]:
    """The legend below the plot (outside the data), two entries a row (one when a
    label is too long for half the width): its SVG and its height."""
    items = [lay for lay in layers if lay.label]
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


def pairs(xs: Values, ys: Values) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Finite (x, y) pairs as two tuples of floats (missing values are dropped)."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
    keep = [
        (float(x), float(y))
        for x, y in zip(xs, ys, strict=True)
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    return tuple(p[0] for p in keep), tuple(p[1] for p in keep)


def path(sx, sy, xs: Sequence[float], ys: Sequence[float]) -> str:
    pts = [f"{num(sx(x))} {num(sy(y))}" for x, y in zip(xs, ys, strict=True)]
    return ("M" + " L".join(pts)) if pts else "M0 0"
