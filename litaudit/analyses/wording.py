"""How a p-value is written, for every analysis and renderer: alone (``0.0123``) or as
``p = 0.0123``, and below its floor as ``< 1e-6``. The sentences of each analysis are in
its sub-package (:mod:`litaudit.analyses.extreme.wording`,
:mod:`litaudit.analyses.reuse.wording`).
"""

from __future__ import annotations

import re


def sci(x: float) -> str:
    """1e-06 -> '1e-6', 1e12 -> '1e+12' (a floor or a cap as people write it)."""
    m, e = f"{x:.0e}".split("e")
    n = int(e)
    return f"{m}e{'+' if n > 0 else ''}{n}"


def p_text(p: float | None, below_floor: bool = False, floor: float | None = None) -> str:
    """A p-value alone: '0.0123', or '< 1e-6' when it is below the floor."""
    if p is None:
        return "-"
    if below_floor and floor is not None:
        return f"< {sci(floor)}"
    return f"{p:.3g}"


def fmt_p(p: float | None, below_floor: bool = False, floor: float | None = None) -> str:
    """'p = 0.0123', or 'p < 1e-6' when the value is below the floor."""
    t = p_text(p, below_floor, floor)
    return f"p {t}" if t.startswith("<") else f"p = {t}"


def printed_number(text: str | None) -> str | None:
    """A value as printed, unless it is a float's binary noise (0.7766199999999999, a
    mean computed by a script): then to 6 decimals (0.77662); never 16 digits."""

    if text is None or not re.fullmatch(r"-?\d+\.\d{9,}", text.strip()):
        return text
    return f"{float(text):.6f}".rstrip("0").rstrip(".")
