"""The terminal text of `audit summary`: one row per population, each a stored `best`
audit (not an audit kind of its own)."""

from __future__ import annotations

from litaudit.analyses.extreme.population_summary import PopulationSummary
from litaudit.analyses.extreme.summary import Summary
from litaudit.analyses.extreme.wording_noise import (
    summary_null_sentence,
)
from litaudit.render.audits_evidence import line, wide
from litaudit.render.console import table


def render_summary(rep: Summary) -> None:
    """`audit summary` (not an audit kind: each of its rows is a stored 'best' audit)."""
    rows = [
        (
            r.collection_name,
            r.measure,
            {"paper": "papers"}.get(r.source, r.source),
            r.N,
            r.n_topics,
            r.best_text,
            r.mu0,
            r.lower,
            r.n_candidates,
            r.threshold,
            r.n_above,
            f"{r.se:.4f} {r.se_kind}",
            "-" if r.reliability is None else f"{r.reliability:.2f}",
            _composition(r.population),
        )
        for r in rep.rows
    ]
    wide(
        table(
            f"Extreme-value audits (Carterette, SIGIR 2015): alpha = {rep.alpha}, "
            f"p = {rep.p}, N >= {rep.min_n}",
            [
                "collection",
                "measure",
                "source",
                "N",
                "n",
                "best",
                "mu0",
                "lower",
                "candidates",
                "threshold",
                "above",
                "se (kind)",
                "B",
                "roles (run types)",
            ],
            rows,
        )
    )
    far = [f"{r.collection_name} {r.measure}" for r in rep.rows if r.population.warning]
    if far:
        line(
            f"{len(far)} of {len(rep.rows)} populations far from the Normal model "
            f"(`audit best` says why): {', '.join(far[:6])}"
            + (f" and {len(far) - 6} more" if len(far) > 6 else "")
        )
    kinds: dict[str, int] = {}
    for r in rep.rows:
        kinds[r.se_kind] = kinds.get(r.se_kind, 0) + 1
    line(
        summary_null_sentence(
            len(rep.rows), sum(r.false_by_inspection for r in rep.rows), rep.alpha, kinds
        )
    )
    if rep.skipped:
        line(f"{len(rep.skipped)} group(s) skipped:")
        for cname, meas, src, n, why in rep.skipped:
            line(f"  {cname} {meas} ({src}, N = {n}): {why}")


def _composition(ps: PopulationSummary) -> str:
    """'official 103 (automatic 86, manual 17)': roles, and run types where recorded."""
    roles = ", ".join(f"{t.label} {t.n}" for t in ps.roles)
    types = [t for t in ps.run_types if t.label != "-"]
    return roles + (f" ({', '.join(f'{t.label} {t.n}' for t in types)})" if types else "")
