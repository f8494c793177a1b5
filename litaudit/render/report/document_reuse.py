"""The reusability section of a report as blocks (see :mod:`.document`): can the
collection judge runs that did not contribute to its pools? From the audits of the stored
runs gathered in a :class:`~.model.ReuseSection`: the verdict with its tests and the
papers' reference values, run average overlap and leave-out-uniques (Voorhees et al.
2014), the sub-collection test (Sanderson et al. 2012) and the verdict's agreement in
significance over random hold-out assignments (Carterette et al. 2010)."""

from __future__ import annotations

from litaudit.analyses.wording import p_text
from litaudit.render.report import figures
from litaudit.render.report.blocks import FigureBlock, Heading, Para, Table, cite, f2, f4
from litaudit.render.report.model import ReuseSection, anchor


def reuse_blocks(r: ReuseSection) -> list:
    out: list = [Heading(2, "Can the collection be trusted? Reusability", anchor("reuse"))]
    if r.verdict is not None:
        out += _reuse_verdict(r, r.verdict)
    if r.rao:
        out += _reuse_rao(r, r.rao)
    if r.lou:
        out += _reuse_lou(r, r.lou)
    if r.subcollections:
        sub = r.subcollections
        out += [
            Heading(3, "Sub-collections (Sanderson et al. 2012)"),
            Table(
                ("sub-collections", "tau", "random tau range", "p", "source"),
                tuple(
                    (
                        f"{p.a} / {p.b}",
                        f4(p.tau),
                        f"{f2(p.random_min)} to {f2(p.random_max)}",
                        f4(p.p_value),
                        cite(r.sub_audit),
                    )
                    for p in sub.pairs
                ),
                f"Kendall's tau between sub-collection rankings, {sub.permutations} "
                f"random splits (seed {sub.seed})",
            ),
        ]
    out += _agreement(r)
    out += [Para(n) for n in r.notes]
    return out


def _new_site(r) -> tuple[str, str, str]:
    """A new site's shift, interval and outcome ("-": stored before they were computed)."""
    # start-up: scipy (through litaudit.analyses.reuse.wording)
    from litaudit.analyses.reuse.wording import outcome_words

    c = r.new_site_ci
    if c is None or r.new_site_outcome is None:
        return "-", "-", "-"
    return (
        f"{c.estimate:+.2f}%",
        f"{c.low:+.2f}% to {c.high:+.2f}%",
        outcome_words(r.new_site_outcome, r.margin_pct),
    )


def _reuse_verdict(r: ReuseSection, v) -> list:
    """The reusability decision in one sentence first, then its rows and the papers'
    reference values."""
    # start-up: scipy (through litaudit.analyses.reuse.wording)
    from litaudit.analyses.reuse.wording import (
        decision_sentence,
        interval_sentence,
        new_site_method_words,
        next_step,
        site_counts,
        sites_sentence,
        these_words,
    )

    out: list = [Para(f"{decision_sentence(v)} ({cite(r.verdict_audit)})")]
    more = [f"From the {r.n_runs} stored runs."]
    if v.decision is not None:
        if v.depth is not None:
            more.append(f"Pool depth {v.depth}: {v.depth_source}.")
        more.append(sites_sentence(v.decision.result))
        more.append(interval_sentence(v.decision.result))
    more.append(next_step(v))
    more.append(f"{v.coverage.note[:1].upper()}{v.coverage.note[1:]}.")
    out.append(Para(" ".join(more)))
    level = f"{100 * v.tests[0].result.level:.0f}% CI" if v.tests else "CI"
    out.append(
        Table(
            (
                "pool depth",
                "these sites' runs",
                f"{level} (topics)",
                "outcome",
                "a new site's runs",
                f"{level} (sites and topics)",
                "outcome (new site)",
                f"sites: lose / within / undecided at {v.margin_pct:g}%",
            ),
            tuple(
                (
                    ("-" if t.depth is None else str(t.depth))
                    + (" (decides)" if t.depth is not None and t.depth == v.depth else ""),
                    f"{t.result.shift_pct:+.2f}%",
                    f"{t.result.ci.low:+.2f}% to {t.result.ci.high:+.2f}%",
                    these_words(t.result.outcome, t.result.margin_pct),
                    *_new_site(t.result),
                    " / ".join(map(str, site_counts(t.result))),
                )
                for t in v.tests
            ),
            f"Shift of held-out sites' runs, % of the mean score; margin {v.margin_pct:g}% "
            f"(Voorhees et al. 2014), two one-sided tests at {v.alpha:g}; a new site's runs: "
            f"{new_site_method_words(v.tests)}; the sites column: "
            "each site's runs by their own interval over topics",
        )
    )
    out.append(
        Table(
            ("quantity", "here", "paper", "source"),
            tuple((x.quantity, x.ours, x.paper, x.source) for x in v.references),
            "Beside the papers' reference values (shown, not enforced)",
        )
    )
    return out


def _reuse_rao(r: ReuseSection, a) -> list:
    """Run average overlap (Voorhees et al. 2014), with its figure."""
    out: list = []
    out += [
        Heading(3, "Run average overlap (Voorhees et al. 2014)"),
        Table(
            ("runs", "participants", "depth", "1/P", "mean RAO", "min", "max", "source"),
            (
                (
                    str(a.n_runs),
                    str(a.n_participants),
                    str(a.depth),
                    f4(a.lower_bound),
                    f4(a.mean_rao),
                    f4(a.min_rao),
                    f4(a.max_rao),
                    cite(r.rao_audit),
                ),
            ),
        ),
    ]
    _fig(out, figures.rao_figure(r))
    return out


def _reuse_lou(r: ReuseSection, u) -> list:
    """Leave-out-uniques (Voorhees et al. 2014, Table 2), with its figure."""
    out: list = []
    out += [
        Heading(3, "Leave-out-uniques (Voorhees et al. 2014, Table 2)"),
        Table(
            (
                "unique / relevant",
                "largest share",
                "runs considered",
                "mean |% change|",
                "max |% change|",
                f"above {u.noise_pct:g}%",
                "source",
            ),
            (
                (
                    f4(u.unique_fraction),
                    f"{f4(u.largest_share)} ({u.largest_participant or '-'})",
                    str(u.n_considered),
                    f2(u.mean_abs_pct),
                    f2(u.max_abs_pct),
                    str(u.n_above),
                    cite(r.lou_audit),
                ),
            ),
        ),
    ]
    _fig(out, figures.lou_figure(r))
    return out


def _agreement(r: ReuseSection) -> list:
    """The verdict's agreement in significance over random hold-out assignments
    (descriptive, not a gate), as `reuse verdict` prints it."""

    a = r.verdict.agreement if r.verdict is not None else None
    if a is None:
        return []
    rows = []
    for p in a.parts:
        pairs = str(p.pairs_min) if p.pairs_min == p.pairs_max else f"{p.pairs_min}-{p.pairs_max}"
        if p.status != "tested" or p.paper_p is None:
            rows.append((p.analysis, pairs, "-", "-", "-", "-", p.reason or p.status))
            continue
        q = p.paper_p
        rows.append(
            (
                p.analysis,
                pairs,
                f"{100 * p.disagreement_real:.1f}% / {100 * p.disagreement_null:.1f}%"
                if p.disagreement_real is not None and p.disagreement_null is not None
                else "-",
                f"{q.median:.3f} ({p_text(q.minimum)} to {p_text(q.maximum)})",
                f"{p.paper_rejections} of {a.assignments}",
                p_text(p.p_value),
                "",
            )
        )
    return [
        Heading(3, "Agreement in significance over random assignments (Carterette et al. 2010)"),
        Para(
            f"Shown beside the verdict, not a gate ({cite(r.verdict_audit)}): {a.source}, "
            f"{a.k} sites held out of each topic, {a.assignments} random assignments (seed "
            f"{a.seed}). Per analysis: pairs of runs tested per assignment; the share of "
            "pairs whose baseline and reuse tests disagree (mean over the assignments), the "
            "topics split by the assignment the scores were simulated with (real) and by "
            "an independent one (random); the paper's chi-square p (pairs taken as "
            f"independent) over the assignments, and how often it is below {a.alpha:g}; "
            f"and a test that keeps the pairs' dependence ({a.flips} sign flips of "
            f"X^2(real) - X^2(random), seed {a.flip_seed}, one-sided)."
        ),
        Table(
            (
                "analysis",
                "pairs",
                "disagree real / random",
                "paper's p: median (range)",
                f"paper's p < {a.alpha:g}",
                "dependence-kept p",
                "note",
            ),
            tuple(rows),
            f"alpha {a.alpha:g}, {a.measure}",
        ),
    ]


def _fig(out: list, fig) -> None:
    if fig is not None:
        out.append(FigureBlock(fig))
