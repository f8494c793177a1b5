"""Renderers of a claim's evidence (its run, the same-topic comparison, its baseline;
issue 21) and of `audit baselines` (listed in :data:`litaudit.render.audits.RENDERERS`).

Imports only types from the analyses (never runs one); the sentences come computed.
"""

from __future__ import annotations

from litaudit.analyses.extreme.baselines import BaselineStanding
from litaudit.analyses.extreme.claim_evidence import ClaimEvidence
from litaudit.render.console import SafeConsole, out, table


def line(text: str) -> None:
    """A line of text as is (no rich markup)."""
    out.print(text, markup=False)


def wide(renderable) -> None:
    """At the terminal's width, or unwrapped (160 columns) when piped or captured."""
    if out.is_terminal:
        out.print(renderable)
    else:
        SafeConsole(soft_wrap=True, width=160).print(renderable)


def _f4(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def _p(x: float | None) -> str:
    return "-" if x is None else (f"{x:.3g}" if x >= 1e-6 else "< 1e-6")


def render_evidence(ev: ClaimEvidence) -> None:
    """A claim's evidence: its sentences, then the comparisons and the baseline's tables."""
    for s in ev.sentences:
        line(s)
    st = ev.same_topic
    if st is not None and st.comparisons:
        lvl = f"{round(100 * st.level)}% CI"
        wide(
            table(
                f"Same-topic comparison ({st.measure}; Holm across {len(st.comparisons)})",
                ["against", "topics", "W/T/L", "mean diff", lvl, "t p (Holm)", "rand. p (Holm)"],
                [
                    (
                        f"{c.tag} ({c.why})",
                        c.paired.n,
                        f"{c.paired.wins}/{c.paired.ties}/{c.paired.losses}",
                        f"{c.paired.mean:+.4f}",
                        f"[{c.paired.low:+.4f}, {c.paired.high:+.4f}]",
                        f"{_p(c.paired.p_value)} ({_p(c.holm_t)})",
                        f"{_p(c.randomization.p_value)} ({_p(c.holm_randomization)})",
                    )
                    for c in st.comparisons
                ],
                justify_numbers=False,
            )
        )
    if ev.baseline is not None:
        render_baseline(ev.baseline)


def render_baseline(b: BaselineStanding) -> None:
    """A baseline's standing: its sentences and the reference values with their sources."""
    for s in b.sentences:
        line(s)
    refs = [*b.reproductions, *b.published[:10]]
    if b.best_official is not None:
        refs.append(b.best_official)
    if refs:
        wide(
            table(
                f"Reference values, {b.collection_id} {b.measure}"
                + (f" (weak: {'yes' if b.weak else 'no'})" if b.weak is not None else ""),
                ["kind", "system", "value", "source"],
                [(r.kind, r.system, r.value_text, r.source) for r in refs],
                justify_numbers=False,
            )
        )
    if len(b.published) > 10:
        line(f"(and {len(b.published) - 10} more published baselines; --json lists them all)")


def render_baselines(rep: BaselineStanding, audit_id: int | None) -> None:
    """`audit baselines` (and `audit show` of one)."""
    line(
        f"Baselines: {rep.collection_id} {rep.measure}"
        + (f", {rep.model}" if rep.model else "")
        + (f", baseline {rep.value_text}" if rep.value_text else "")
    )
    render_baseline(rep)
