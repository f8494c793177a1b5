"""Renderer of the rank resolution (`audit ranks`, and its section in `audit best` and
`audit claim`): the finding, the confidence set of the best, each system's rank interval
and P(first), the method and its Monte Carlo error.

Imports only types from the analyses (never runs one).
"""

from __future__ import annotations

from litaudit.analyses.extreme.per_dataset import PerDatasetComparison
from litaudit.analyses.extreme.ranks import RanksAudit
from litaudit.render.console import SafeConsole, out, table

SHOWN = 15  # ours: systems listed (the set of the best always in full)


def _line(text: str) -> None:
    out.print(text, markup=False)


def _wide(renderable) -> None:
    """At the terminal's width, or unwrapped (160 columns) when piped or captured (as
    render.audits_evidence.wide)."""
    if out.is_terminal:
        out.print(renderable)
    else:
        SafeConsole(soft_wrap=True, width=160).print(renderable)


def _member(inside: bool, unsure: bool) -> str:
    return ("yes" if inside else "no") + ("?" if unsure else "") if inside or unsure else ""


def render_ranks_section(rep: RanksAudit) -> None:
    """The section: its answer, the table of the top systems, method and errors."""
    r = rep.resolution
    level = f"{100 * (1 - r.alpha):g}%"
    _line(f"Ranks ({rep.measure}): {rep.answer}.")
    _line(f"Input: {rep.what}.")
    if rep.noise:
        _line(f"Noise: {rep.noise}.")
    order = r.order
    shown = [i for i in order[:SHOWN]] + [i for i in r.best_set if i not in order[:SHOWN]]
    rows = [
        (
            r.rank[i],
            rep.systems[i],
            f"{r.means[i]:.4f}",
            f"{r.se[i]:.4f}",
            f"{r.rank_low[i]}-{r.rank_high[i]}",
            f"{r.p_first[i]:.3f}",
            _member(r.in_best_set[i], i in r.unsure),
        )
        for i in shown
    ]
    _wide(
        table(
            f"Rank resolution: {len(shown)} of {r.n_systems} systems on {r.n_units} {r.units}",
            ["rank", "system", "mean", "se", f"{level} rank interval", "P(first)", "best set"],
            rows,
        )
    )
    _line(f"Method: {r.method}.")
    _line(
        f"Confidence set of the best: critical value {r.critical:.3f} (Monte Carlo 95% "
        f"[{r.critical_low:.3f}, {r.critical_high:.3f}]"
        + (f"; {len(r.unsure)} systems in or out within it, marked '?'" if r.unsure else "")
        + f"); rank intervals: simultaneous over all {r.n_systems} systems, first-step "
        f"critical value {r.rank_critical:.3f}, {r.rank_steps} steps; P(first) Monte Carlo "
        f"se <= {r.p_first_mc_se:.3f}."
    )


def render_ranks(rep: RanksAudit, audit_id: int | None) -> None:
    """`audit ranks`."""
    _line(
        f"Rank audit: {rep.collection_id or 'score matrix'} {rep.measure}, {rep.source}"
        + (f" [audit #{audit_id}]" if audit_id is not None else "")
    )
    render_ranks_section(rep)


def render_per_dataset(rep: PerDatasetComparison) -> None:
    """`audit claim --per-dataset`: the answer, then each shared dataset."""
    _line(f"Per dataset ({rep.file}): {rep.answer}.")
    _wide(
        table(
            f"The claim against {rep.holder} ({rep.holder_source}) per dataset",
            ["dataset", "claim", "record holder", "claim - holder"],
            [(p.dataset, p.claim, p.holder, f"{p.difference:+.4f}") for p in rep.pairs],
        )
    )
    notes = []
    if rep.claim_only:
        notes.append(f"the holder has no value on {', '.join(rep.claim_only)}")
    if rep.not_given:
        notes.append(f"the file leaves out {', '.join(rep.not_given)}")
    if rep.file_mean is not None:
        notes.append(f"the file's mean over every dataset is {rep.file_mean:.4f}")
    notes.append(f"a tie is a difference within {rep.tie_tolerance:.2g} (the printed digits)")
    _line("; ".join(notes) + ".")
