"""The renderer of `reuse verdict` (Voorhees et al. SIGIR 2014; Sanderson et al. CIKM
2012; Carterette et al. SIGIR 2010, joined: docs/STATISTICS.md, reusability): its decision
in words, then the tests, the agreement and the descriptive measures it rests on. Listed by
result type in :data:`litaudit.render.audits.RENDERERS`, for `reuse verdict` and `audit
show` alike.

Imports only types and wording from the analyses (never runs one).
"""

from __future__ import annotations

from litaudit.analyses.reuse.verdict import Verdict
from litaudit.analyses.reuse.wording import (
    decision_sentence,
    interval_sentence,
    new_site_method_words,
    next_step,
    site_counts,
    sites_sentence,
    these_words,
)
from litaudit.analyses.wording import p_text
from litaudit.render.console import fmt, out, table


def render_verdict(v: Verdict, audit_id: int | None) -> None:
    """The reusability verdict (`reuse verdict`, `audit show`): the decision in one
    sentence first, then its rows, then what is shown beside them."""

    out.print(decision_sentence(v))
    if v.decision is not None:
        if v.depth is not None:
            out.print(f"Pool depth {v.depth}: {v.depth_source}.")
        out.print(sites_sentence(v.decision.result))
        out.print(interval_sentence(v.decision.result))
    step = next_step(v)
    if step:
        out.print(step)
    name = v.collection_id or "score matrix"
    c = v.coverage
    out.print(
        f"Reusability verdict, {name}: {c.runs} runs, {c.participants} participants "
        f"(sites), {c.topics} topics; {c.note}"
    )
    _verdict_tests(v)
    _verdict_agreement(v)
    _verdict_descriptive(v)


def _verdict_tests(v: Verdict) -> None:
    """The shift at every depth computed, with its interval and outcome."""

    if not v.tests:
        return
    level = f"{100 * v.tests[0].result.level:.0f}% CI"
    rows = []
    for t in v.tests:
        r = t.result
        nc = r.new_site_ci
        rows.append(
            (
                ("-" if t.depth is None else str(t.depth))
                + (" *" if t.depth is not None and v.depth == t.depth else ""),
                f"{r.shift_pct:+.2f}",
                f"{r.ci.low:+.2f}, {r.ci.high:+.2f}",
                these_words(r.outcome, r.margin_pct),
                "-" if nc is None else f"{nc.estimate:+.2f} ({nc.low:+.2f}, {nc.high:+.2f})",
                "-"
                if r.new_site_outcome is None
                else these_words(r.new_site_outcome, r.margin_pct),
                " / ".join(map(str, site_counts(r))),
            )
        )
    decided = "* decides; " if v.depth is not None else ""
    out.print(
        table(
            f"Shift of held-out sites' runs, % of the mean score (Carterette et al. 2010 "
            f"pooling simulation, k = 2, every site pair held out with equal weight); "
            f"{decided}margin {v.margin_pct:g}% (Voorhees et al. 2014), two one-sided tests "
            f"at {v.alpha:g}; a new site's runs: {new_site_method_words(v.tests)}; sites "
            "column: each site's runs by their own interval over topics",
            [
                "pool depth",
                "these sites %",
                f"{level}, topics",
                "outcome",
                f"new site % ({level}, sites+topics)",
                "outcome",
                f"sites: lose/within/undecided at {v.margin_pct:g}%",
            ],
            rows,
        )
    )
    if v.decision is not None:
        r = v.decision.result
        out.print(
            "Sites losing most"
            + ("" if v.decision.depth is None else f" at depth {v.decision.depth}")
            + ": "
            + ", ".join(
                f"{s.site} {s.shift_pct:+.2f}% ({s.low:+.2f}, {s.high:+.2f})" for s in r.sites[:3]
            )
        )


def _verdict_agreement(v: Verdict) -> None:
    """The agreement-in-significance table beside the verdict (descriptive)."""

    a = v.agreement
    if a is not None:
        parts: list[tuple] = []
        for p in a.parts:
            real, null, paper_p = p.disagreement_real, p.disagreement_null, p.paper_p
            if p.status != "tested" or real is None or null is None or paper_p is None:
                parts.append(
                    (p.analysis, f"{p.pairs_min}-{p.pairs_max}", "-", "-", "-", "-", p.reason)
                )
                continue
            parts.append(
                (
                    p.analysis,
                    f"{p.pairs_min}-{p.pairs_max}",
                    f"{100 * real:.1f}% / {100 * null:.1f}%",
                    f"{paper_p.median:.3f}",
                    f"{p.paper_rejections} of {a.assignments}",
                    p_text(p.p_value),
                    "",
                )
            )
        out.print(
            table(
                f"Descriptive, not a gate: agreement in significance over {a.assignments} random "
                f"assignments ({a.source}; seed {a.seed}, sign flips seed {a.flip_seed})",
                [
                    "analysis",
                    "pairs",
                    "disagree real / random",
                    "paper's p (median)",
                    "paper's p < alpha",
                    "dependence-kept p",
                    "note",
                ],
                parts,
            )
        )


def _verdict_descriptive(v: Verdict) -> None:
    """What is shown beside the verdict: leave-out-uniques, run average overlap,
    sub-collections, the papers' reference values and notes."""

    if v.lou:
        out.print(
            table(
                "Descriptive: leave-out-uniques by pool depth (Voorhees et al. 2014, "
                "Table 2; automatic runs with MAP >= 0.1)",
                [
                    "depth",
                    "unique / relevant",
                    "runs",
                    "mean |% change|",
                    "max |% change|",
                    "above 1%",
                ],
                [
                    (
                        x.depth,
                        fmt(x.unique_fraction),
                        x.considered,
                        fmt(x.mean_abs_pct, 2),
                        fmt(x.max_abs_pct, 2),
                        x.above_noise,
                    )
                    for x in v.lou
                ],
            )
        )
    if v.rao is not None:
        r = v.rao
        out.print(
            f"Descriptive: run average overlap at depth {r.depth}: mean {fmt(r.mean_rao)}, "
            f"max {fmt(r.max_rao)}, range [1/P = {r.lower_bound:.4f}, 1]"
        )
    if v.subcollections is not None:
        sc = v.subcollections
        out.print(
            f"Descriptive: sub-collection pairs with p < {v.alpha:g}: {sc.significant} of "
            f"{sc.pairs} ({sc.significant_holm} after Holm); mean tau {fmt(sc.mean_tau, 3)} "
            f"({sc.permutations} random splits, seed {sc.seed})"
        )
    if v.references:
        out.print(
            table(
                "Beside the papers' reference values (shown, not enforced)",
                ["quantity", "here", "paper", "source"],
                [(r.quantity, r.ours, r.paper, r.source) for r in v.references],
            )
        )
    for n in v.notes:
        out.print(f"note: {n}")
