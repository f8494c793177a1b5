"""The report's plots, drawn with :mod:`litaudit.render.report.svg` from the report model.

Curves are the closed forms of :mod:`litaudit.stats.extreme` evaluated at the audit's
stored numbers (mu, se, N, mu0), so a plot says nothing its audit does not; no statistic
is computed here.
"""

from __future__ import annotations

import datetime as dt
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


CLAIM_COLOR = PALETTE[3]


def claim_tag(claim: float) -> str:
    return f"claim = {claim:.4f}"


def mxvd_figure(lit: LiteratureSection, claim: float | None = None) -> Figure | None:
    """Normal, MxVD and MnVD of N draws around mu0 with the 1-2p band (2015, Figure 3);
    the claimed value (of this population) marked, at the edge when it lies off the
    curves."""
    # start-up: scipy (through litaudit.stats.extreme)
    from litaudit.stats.extreme_exact import extreme_pdfs

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
    p.vline(lit.value, label=f"best = {lit.value:.4f}", tag=f"best = {lit.value:.4f}")
    if claim is not None:
        p.vline(claim, color=CLAIM_COLOR, label=claim_tag(claim), tag=claim_tag(claim), fit=False)
    cap = (
        f"Normal(mu0 = {mu0:.4f}, se = {se:.4f}) and the distributions of the max and the "
        f"min of {n} draws from it; the shaded band [{lit.lower:.4f}, {lit.value:.4f}] "
        f"holds non-extreme values with probability {cover}."
    )
    if claim is not None:
        cap += _claim_place(claim, float(x[0]), float(x[-1]))
    return Figure(
        f"fig-mxvd-{_slug(lit.measure)}",
        "Intrinsic-effectiveness interval",
        cap,
        lit.best_audit,
        p.render(),
    )


def _claim_place(claim: float, lo: float, hi: float) -> str:
    """Where the claim is drawn on a plot whose axis does not reach it."""
    if claim < lo:
        return f" The claim, {claim:.4f}, lies left of the plotted range (arrow at the left)."
    if claim > hi:
        return f" The claim, {claim:.4f}, lies right of the plotted range (arrow at the right)."
    return f" The claim, {claim:.4f}, is the labelled vertical line."


def expected_max_figure(lit: LiteratureSection, claim: float | None = None) -> Figure | None:
    """Expected max and the alpha threshold against N (2015, Figure 2), with the claimed
    value as a horizontal line."""
    # start-up: scipy (through litaudit.stats.extreme)
    from litaudit.stats.extreme_exact import expected_max, max_quantile

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
    if claim is not None:
        p.hline(claim, color=CLAIM_COLOR, label=claim_tag(claim), tag=claim_tag(claim))
    cap = (
        f"Expected maximum of N draws from Normal({mean:.4f}, {se:.4f}) and the "
        f"value the max exceeds with probability {alpha:g}, for N = 1 to {top}."
    )
    if claim is not None:
        cap += f" The claim, {claim:.4f}, is the labelled horizontal line."
    return Figure(
        f"fig-expected-max-{_slug(lit.measure)}",
        "Expected max against N",
        cap,
        lit.best_audit,
        p.render(),
    )


def _day(h) -> float:
    """A dated history step as a day number (the date axis of :mod:`.svg`)."""

    return float(dt.date.fromisoformat(h.when).toordinal())


def history_figure(lit: LiteratureSection, claim: float | None = None) -> Figure | None:
    """The record over time against the expected max of the results so far and its
    (1 - alpha) point (Carterette 2015, Sec. 2 and Fig. 2, replayed over the population),
    the steps that set a record marked (above or not above that point), the claimed value
    as a horizontal line. Dated steps on a date axis, yearly steps on a year axis."""
    pts = [h for h in lit.history if h.record is not None]
    if len(pts) < 1:
        return None
    recs = [float(h.record or 0.0) for h in pts]
    dated = all(h.when and len(h.when) == 10 for h in pts)
    xs = [_day(h) for h in pts] if dated else [float(h.year) for h in pts]
    step = "date" if dated else "year"
    p = Plot(
        f"{lit.measure}: the record over time", step, lit.measure, xaxis="date" if dated else "year"
    )
    p.line(xs, recs, color=PALETTE[6], step=True, label="record so far")
    p.line(xs, [h.expected_max for h in pts], color=PALETTE[0], label="expected max of N so far")
    p.line(
        xs,
        [h.threshold for h in pts],
        color=PALETTE[1],
        dash=True,
        label="alpha threshold of the max",
    )
    rec = [(x, r, h) for x, r, h in zip(xs, recs, pts, strict=True) if h.new_record]
    above = [(x, r, h) for x, r, h in rec if h.beyond]
    within = [(x, r, h) for x, r, h in rec if not h.beyond]
    for group, color, label in (
        (above, PALETTE[1], "new record above the threshold"),
        (within, PALETTE[6], "new record not above it"),
    ):
        if group:
            p.scatter(
                [x for x, _, _ in group],
                [r for _, r, _ in group],
                color=color,
                label=label,
                names=[f"{h.when or h.year}: {h.holder or f'{r:.4f}'}" for _, r, h in group],
            )
    if claim is not None:
        p.hline(claim, color=CLAIM_COLOR, label=claim_tag(claim), tag=claim_tag(claim))
    n_beyond = sum(1 for h in lit.history if h.beyond)
    cap = (
        f"The best result published up to each {step} against the expected maximum of the "
        f"N results so far and the value their max exceeds with probability alpha: "
        f"{len(rec)} records over {len(lit.history)} {step}s; {len(above)} of them above "
        f"that value; {n_beyond} {step}s with the record above it."
    )
    if lit.history_left_out:
        k = lit.history_left_out
        cap += (
            f" Published results only: the {k} reproduction{'s' if k != 1 else ''} of the "
            "population, re-runs of models published earlier, are left out "
            "(report --with-reproductions draws them)."
        )
    if claim is not None:
        cap += f" The claim, {claim:.4f}, is the labelled horizontal line."
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
    p.scatter(
        [r.rao for r in runs],
        [r.effectiveness for r in runs],
        label="run",
        names=[
            f"{r.tag} ({r.participant}): RAO {r.rao:.3f}, {m} {r.effectiveness:.4f}" for r in runs
        ],
    )
    for r in _notable(runs, lambda r: r.rao, lambda r: r.effectiveness):
        p.note(r.rao, r.effectiveness, r.tag)
    p.vline(rao.lower_bound, label="1/P (lowest RAO)")
    cap = (
        f"{len(runs)} runs: a run far right shares its top documents with few other "
        "participants; a strong run there would bring many unique relevant documents. "
        "The runs with the highest RAO and the most effective are labelled (every point "
        "names its run when pointed at)."
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
    p.scatter(
        [r.before for r in runs],
        [r.after for r in runs],
        label="run",
        names=[
            f"{r.tag} ({r.participant}): {r.before:.4f} -> {r.after:.4f}"
            + ("" if r.pct_change is None else f" ({r.pct_change:+.2f}%)")
            for r in runs
        ],
    )
    for r in _notable(runs, lambda r: r.before - r.after, lambda r: r.before):
        p.note(r.before, r.after, r.tag)
    cap = (
        f"{len(runs)} runs; a run below the diagonal loses score when its participant's "
        "unique relevant documents are removed from the qrels. The runs that lose most "
        "and the most effective are labelled (every point names its run when pointed at)."
    )
    return Figure("fig-lou", "Leave-out-uniques", cap, reuse.lou_audit, p.render())


def _notable(runs, first, second, k: int = 4) -> list:
    """The runs a reader looks for: the ``k`` highest by ``first``, then by ``second``
    (each list best first, ties by tag), without repeats."""
    out: list = []
    for key in (first, second):
        for r in sorted(runs, key=lambda r: (-key(r), r.tag))[:k]:
            if r not in out:
                out.append(r)
    return out
