"""Renderers of the reusability audit kinds (RAO, LOU, sub-collections, the 2010
agreement analysis; the reuse verdict that joins them is render/audits_verdict.py): each
prints its typed result on the terminal, listed by result type in
:data:`litaudit.render.audits.RENDERERS` (so `audit show` and the `reuse` commands find
them).

Imports only types from the analyses (never runs one).
"""

from __future__ import annotations

from litaudit.analyses.agreement.analysis import ReuseAgreement
from litaudit.analyses.reuse.lou import LOUReport
from litaudit.analyses.reuse.overlap import RAOReport
from litaudit.analyses.reuse.subcollection_tau import SubcollectionReport
from litaudit.render.console import out, table


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _f4(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def render_rao(rep: RAOReport, audit_id: int | None) -> None:
    rows = [
        (r.tag, r.participant, r.run_type or "-", r.rao, r.effectiveness, r.topics)
        for r in rep.runs
    ]
    out.print(
        table(
            f"Run Average Overlap, {rep.collection_id}, depth {rep.depth} (Voorhees et al. 2014)",
            ["run", "participant", "type", "RAO", rep.measure, "topics"],
            rows,
        )
    )
    out.print(
        f"{rep.n_runs} runs, P = {rep.n_participants} participants: RAO range "
        f"[1/P = {rep.lower_bound:.4f}, 1]; mean {_f4(rep.mean_rao)}, "
        f"min {_f4(rep.min_rao)}, max {_f4(rep.max_rao)}"
    )


def render_lou(rep: LOUReport, audit_id: int | None) -> None:
    prow = [
        (
            p.participant,
            p.runs,
            p.unique_relevant,
            _pct(p.share_of_relevant),
            _pct(p.share_of_uniques),
        )
        for p in rep.participants
    ]
    out.print(
        table(
            f"Unique relevant documents, {rep.collection_id}, depth {rep.depth}",
            ["participant", "runs", "unique", "% of relevant", "% of uniques"],
            prow,
            digits=2,
        )
    )
    rrow = [
        (r.tag, r.participant, r.run_type or "-", r.before, r.after, r.pct_change, r.considered)
        for r in rep.runs
    ]
    m = "MAP" if rep.measure == "AP" else rep.measure
    out.print(
        table(
            "Leave-out-uniques",
            ["run", "participant", "type", f"{m} before", f"{m} after", "% change", "in Table 2"],
            rrow,
        )
    )
    t2 = [
        ("% of relevant documents that are unique", _pct(rep.unique_fraction)),
        ("largest % of uniques from one participant", _pct(rep.largest_share)),
        ("mean |% difference|", rep.mean_abs_pct),
        ("max |% difference|", rep.max_abs_pct),
        (f"runs with |% difference| > {rep.noise_pct:g}%", f"{rep.n_above} of {rep.n_considered}"),
    ]
    out.print(
        table(
            f"Table 2 statistics (automatic runs with {m} >= {rep.min_map:g})",
            ["statistic", "value"],
            t2,
            digits=2,
        )
    )
    out.print(
        f"{rep.n_unique} unique of {rep.n_relevant} relevant documents "
        f"({rep.n_retrieved_relevant} in some run's top {rep.depth}); largest: "
        f"{rep.largest_participant or '-'}"
    )


def render_subcollections(rep: SubcollectionReport, audit_id: int | None) -> None:
    srow = [(s.name, s.documents, s.relevant, s.topics) for s in rep.subcollections]
    out.print(
        table(
            f"Sub-collections of {rep.collection_id} (split {rep.split})",
            ["sub-collection", "documents", "relevant", "topics"],
            srow,
        )
    )
    names = [s.name for s in rep.subcollections]
    rrow = [(r.tag, r.full_map, *r.maps) for r in rep.runs]
    out.print(table("MAP per sub-collection", ["run", "all", *names], rrow))
    prow = [
        (
            f"{p.a}-{p.b}",
            p.tau,
            "-" if p.random_min is None else f"{p.random_min:.2f}-{p.random_max:.2f}",
            p.p_value,
        )
        for p in rep.pairs
    ]
    out.print(
        table(
            f"Kendall's tau per pair and randomization test ({rep.permutations} "
            f"random splits, seed {rep.seed}; Sanderson et al. 2012, Tables 3-4)",
            ["pair", "tau", "random tau range", "p"],
            prow,
            digits=3,
        )
    )
    sig = ", ".join(f"{n} at {lvl:g}" for lvl, n in rep.significant)
    excl = "; ".join(f"{t} ({why})" for t, why in rep.excluded) or "none"
    out.print(f"{len(rep.runs)} runs ranked; excluded: {excl}")
    out.print(
        f"pairs significant: {sig} (of {len(rep.pairs)}); mean tau "
        f"{'-' if rep.mean_tau is None else f'{rep.mean_tau:.3f}'}; smallest possible "
        f"p = 1/{rep.permutations + 1}"
    )


def render_agreement(result: ReuseAgreement, audit_id: int | None) -> None:
    """Agreement in significance, tau and RMSE (`reuse agreement`, `audit show`)."""
    out.print(f"{result.source}")
    out.print(
        f"{result.runs} runs, {result.sites} sites, {result.topics} topics "
        f"({result.baseline_topics} all-site baseline); {result.measure}; "
        f"alpha {result.alpha:g}; multiple-comparison correction: {result.correction}"
    )
    for a in result.analyses:
        t = a.aggregate
        head = f"{a.analysis}: {a.pairs_tested} pairs ({a.pairs_skipped} skipped)"
        if t is None:
            out.print(f"{head}: no pair has {result.min_topics} baseline and reuse topics")
            continue
        fit = t.fit
        assert fit is not None  # an aggregate over pairs has its fit
        (o11, o12), (o21, o22) = t.observed
        (e11, e12), (e21, e22) = t.expected
        out.print(
            table(
                f"{head}, observed / expected, aggregated over sites",
                ["", "reuse p < a", "reuse p >= a"],
                [
                    ["baseline p < a", f"{o11} / {e11:.1f}", f"{o12} / {e12:.1f}"],
                    ["baseline p >= a", f"{o21} / {e21:.1f}", f"{o22} / {e22:.1f}"],
                ],
            )
        )
        out.print(
            f"chi2 = {fit.statistic:.3f}, df {fit.df}, p = {fit.p_value:.4f} "
            f"({fit.method}){'; ' + fit.note if fit.note else ''}"
        )
    for a in result.analyses:
        if a.groups:
            out.print(
                table(
                    f"{a.analysis} per site (cells: both, omission, commission, neither)",
                    ["site", "pairs", "observed", "expected", "p", "method"],
                    [
                        [
                            g.group,
                            g.table.pairs,
                            " ".join(str(v) for r in g.table.observed for v in r),
                            " ".join(f"{v:.1f}" for r in g.table.expected for v in r),
                            g.table.fit.p_value if g.table.fit else None,
                            g.table.fit.method if g.table.fit else None,
                        ]
                        for g in a.groups
                    ],
                )
            )
    tau_rows = [["all runs", result.runs, result.tau.tau if result.tau else None, "Kendall"]]
    tau_rows += [[s.site, s.runs, s.tau.tau, "within site"] for s in result.site_tau]
    tau_rows += [[s.site, s.runs, s.tau.tau, "participant"] for s in result.participant_tau]
    out.print(
        table(
            "Ordering: baseline vs reuse mean scores",
            ["site", "runs", "tau", "kind"],
            tau_rows,
            digits=3,
        )
    )
    out.print(
        f"RMSE baseline vs reuse: {result.rmse:.4f}" if result.rmse is not None else "RMSE: -"
    )
    if result.true_tau is not None:
        out.print(
            f"reuse vs full-judgment means: tau {result.true_tau.tau:.3f}, "
            f"RMSE {result.true_rmse:.4f}"
        )
    seed, rand = result.seed, result.randomization
    out.print(
        f"topic-order seed: {seed if seed is not None else 'none (topic order as given)'}",
        markup=False,
    )
    if result.checks:  # (none in an audit stored before the analysis kept its checks)
        out.print(
            table(
                "Checks (the chi-square p treats the pairs as independent)",
                ["check", "value", "rule", "passed", "note"],
                [[c.name, c.value, c.rule, c.passed, c.note] for c in result.checks],
            )
        )
    if rand is not None:
        out.print(
            table(
                f"Randomization test: X^2 against {rand.assignments} random assignments of the "
                f"same design (k = {rand.k}, {rand.baseline} all-site topics; seed {rand.seed}); "
                "p = (1 + #{X^2_r >= X^2}) / (1 + R)",
                ["analysis", "pairs", "X^2", "mean X^2 random", "p"],
                [[x.analysis, x.pairs, x.x2, x.x2_null_mean, x.p_value] for x in rand.analyses],
            )
        )


def render_agreement_pairs(result: ReuseAgreement) -> None:
    """Every tested pair of each analysis (`reuse agreement --pairs`)."""
    for a in result.analyses:
        if a.pairs:
            out.print(
                table(
                    f"{a.analysis} pairs",
                    [
                        "group",
                        "run a",
                        "run b",
                        "n base",
                        "n reuse",
                        "effect",
                        "p base",
                        "p reuse",
                        "power base",
                        "power reuse",
                    ],
                    [
                        [
                            p.group,
                            p.run_a,
                            p.run_b,
                            p.n_baseline,
                            p.n_reuse,
                            p.effect,
                            p.p_baseline,
                            p.p_reuse,
                            p.power_baseline,
                            p.power_reuse,
                        ]
                        for p in a.pairs
                    ],
                )
            )
