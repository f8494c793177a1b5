"""The report's plots, drawn with :mod:`litaudit.render.report.svg` from the report model.

Curves are the closed forms of :mod:`litaudit.stats.extreme` evaluated at the audit's
stored numbers (mu, se, N, mu0), so a plot says nothing its audit does not; no statistic
is computed here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.render.report.model import LiteratureSection, ReuseSection
from litaudit.render.report.svg import PALETTE, Plot


@dataclass(frozen=True)
class Figure:
    name: str  # file-name stem, e.g. fig-mxvd-AP
    title: str
    caption: str
    audit: int | None
    svg: str


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-")


def mxvd_figure(lit: LiteratureSection) -> Figure | None:
    """Normal, MxVD and MnVD of N draws around mu0 with the 1-2p band (2015, Figure 3)."""
    from litaudit.stats.extreme import extreme_pdfs

    if (
        lit.mu0 is None
        or lit.se is None
        or lit.n is None
        or lit.lower is None
        or lit.value is None
        or not lit.se > 0
    ):
        return None
    mu0, se, n = lit.mu0, lit.se, int(lit.n)
    x = np.linspace(mu0 - 5 * se, mu0 + 5 * se, 201)
    phi, pmax, pmin = extreme_pdfs(x, mu0, se, n)
    band = (x >= lit.lower) & (x <= lit.value)
    cover = f"{lit.coverage:.0%}" if lit.coverage is not None else "1-2p"
    p = Plot(
        f"{lit.measure}: where the best of {n} lands (Carterette 2015, Fig. 3)",
        lit.measure,
        "density",
    )
    p.area(
        x[band],
        np.zeros(int(band.sum())),
        np.maximum(pmax, pmin)[band],
        color=PALETTE[4],
        label=f"{cover} interval",
        opacity=0.25,
    )
    p.line(x, phi, color=PALETTE[6], label=f"Normal(mu0, se), mu0 = {mu0:.4f}")
    p.line(x, pmax, color=PALETTE[0], label=f"max of {n} (MxVD)")
    p.line(x, pmin, color=PALETTE[1], label=f"min of {n} (MnVD)")
    p.vline(lit.value, label=f"best = {lit.value:.4f}")
    cap = (
        f"Normal(mu0 = {mu0:.4f}, se = {se:.4f}) and the distributions of the max and the "
        f"min of {n} draws from it; the shaded band [{lit.lower:.4f}, {lit.value:.4f}] "
        f"holds non-extreme values with probability {cover}."
    )
    return Figure(
        f"fig-mxvd-{_slug(lit.measure)}",
        "Intrinsic-effectiveness interval",
        cap,
        lit.best_audit,
        p.render(),
    )


def expected_max_figure(lit: LiteratureSection) -> Figure | None:
    """Expected max and the alpha threshold against N (2015, Figure 2)."""
    from litaudit.stats.extreme import expected_max, max_quantile

    mean, se, n, alpha = lit.mean, lit.se, lit.n, lit.alpha
    if mean is None or se is None or n is None or alpha is None or not se > 0:
        return None
    top = max(2 * int(n), 50)
    ns = sorted({int(round(v)) for v in np.geomspace(1, top, 40)})
    em = [expected_max(mean, se, k) for k in ns]
    th = [max_quantile(1 - alpha, mean, se, k) for k in ns]
    p = Plot(
        f"{lit.measure}: expected best of N equally good systems (Fig. 2)",
        "N (systems tried)",
        lit.measure,
    )
    p.line(ns, em, color=PALETTE[0], label="expected max")
    p.line(ns, th, color=PALETTE[1], dash=True, label=f"{1 - alpha:.0%} point of max")
    p.hline(mean, color="#888888", label=f"mean = {mean:.4f}")
    if lit.maximum is not None:
        p.scatter([n], [lit.maximum], color=PALETTE[6], label=f"published best (N = {n})")
    cap = (
        f"Expected maximum of N draws from Normal({mean:.4f}, {se:.4f}) and the "
        f"value the max exceeds with probability {alpha:g}, for N = 1 to {top}."
    )
    return Figure(
        f"fig-expected-max-{_slug(lit.measure)}",
        "Expected max against N",
        cap,
        lit.best_audit,
        p.render(),
    )


def _decimal_year(h) -> float:
    """A history step on a continuous time axis: 2020-09-18 -> 2020.71, 2019 -> 2019."""
    import datetime as dt

    if h.when and len(h.when) == 10:
        d = dt.date.fromisoformat(h.when)
        return d.year + (d.timetuple().tm_yday - 1) / (366 if d.year % 4 == 0 else 365)
    return float(h.year)


def history_figure(lit: LiteratureSection) -> Figure | None:
    """The record over time against the expected max of the results so far and its
    (1 - alpha) point (Carterette 2015, Sec. 2 and Fig. 2, replayed over the population),
    the records that passed that threshold marked."""
    pts = [h for h in lit.history if h.record is not None]
    if len(pts) < 1:
        return None
    recs = [float(h.record or 0.0) for h in pts]
    dated = any(h.when and len(h.when) == 10 for h in pts)
    xs = [_decimal_year(h) for h in pts]
    p = Plot(f"{lit.measure}: the record over time", "year", lit.measure)
    p.line(xs, recs, color=PALETTE[6], step=True, label="record so far")
    p.line(xs, [h.expected_max for h in pts], color=PALETTE[0], label="expected max")
    p.line(
        xs,
        [h.threshold for h in pts],
        color=PALETTE[1],
        dash=True,
        label="alpha threshold of the max",
    )
    rec = [(x, r, h) for x, r, h in zip(xs, recs, pts, strict=True) if h.new_record or not dated]
    above = [(x, r) for x, r, h in rec if h.threshold is not None and r > h.threshold]
    within = [(x, r) for x, r, h in rec if not (h.threshold is not None and r > h.threshold)]
    if above:
        p.scatter(
            [x for x, _ in above],
            [r for _, r in above],
            color=PALETTE[1],
            label="record above the threshold",
        )
    if within:
        p.scatter(
            [x for x, _ in within],
            [r for _, r in within],
            color=PALETTE[6],
            label="record at or below it",
        )
    step = "date" if dated else "year"
    cap = (
        f"The best result published up to each {step} against the expected maximum and "
        "the value the max of that many equally good systems exceeds with probability "
        f"alpha; {len(above)} of {len(rec)} records lie above that value."
    )
    return Figure(
        f"fig-history-{_slug(lit.measure)}", "Record over time", cap, lit.history_audit, p.render()
    )


def rao_figure(reuse: ReuseSection) -> Figure | None:
    """RAO against effectiveness per run (Voorhees et al. 2014, Figure 1)."""
    rao = reuse.rao
    if not rao:
        return None
    runs = [r for r in rao.runs if r.rao is not None and r.effectiveness is not None]
    if not runs:
        return None
    m = rao.measure
    p = Plot(
        f"Run average overlap against {m} (Voorhees 2014, Fig. 1)", f"RAO (depth {rao.depth})", m
    )
    p.scatter([r.rao for r in runs], [r.effectiveness for r in runs], label="run")
    p.vline(rao.lower_bound, label="1/P (lowest RAO)")
    cap = (
        f"{len(runs)} runs: a run far right shares its top documents with few other "
        "participants; a strong run there would bring many unique relevant documents."
    )
    return Figure("fig-rao", "RAO against effectiveness", cap, reuse.rao_audit, p.render())


def lou_figure(reuse: ReuseSection) -> Figure | None:
    """MAP before and after leaving out the participant's unique relevant documents."""
    lou = reuse.lou
    if not lou:
        return None
    runs = [r for r in lou.runs if r.before is not None and r.after is not None]
    if not runs:
        return None
    m = lou.measure
    p = Plot(
        "Leave-out-uniques: before and after (Voorhees 2014, Fig. 2)",
        f"{m} with all judgments",
        f"{m} without own unique relevant",
    )
    p.diagonal()
    p.scatter([r.before for r in runs], [r.after for r in runs], label="run")
    cap = (
        f"{len(runs)} runs; a run below the diagonal loses score when its participant's "
        "unique relevant documents are removed from the qrels."
    )
    return Figure("fig-lou", "Leave-out-uniques", cap, reuse.lou_audit, p.render())
