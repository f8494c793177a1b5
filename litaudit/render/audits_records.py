"""Renderers of the record audit (issue 34): the record steps of `audit history`, each
tested against the record it replaced. Imports only types and wording from the analyses.
"""

from __future__ import annotations

from litaudit import defaults
from litaudit.analyses.extreme.record_steps import RecordSteps, RecordStepTest
from litaudit.analyses.wording import p_text
from litaudit.render.console import out, table


def _wide(renderable) -> None:
    """At the terminal's width, or unwrapped (160 columns) when piped or captured."""
    if out.is_terminal:
        out.print(renderable)
    else:
        from litaudit.render.console import SafeConsole

        SafeConsole(soft_wrap=True, width=160).print(renderable)


def _p(x: float | None) -> str:
    """3 significant digits, or '< 1e-6' below defaults.P_FLOOR."""
    return p_text(x, x is not None and x < defaults.P_FLOOR, defaults.P_FLOOR)


def _basis(s: RecordStepTest) -> str:
    if s.signflip is not None:
        sf = s.signflip
        text = f"{s.n_shared} {s.basis} ({sf.wins}+/{sf.losses}-)"
        return text + (f" ({s.note})" if s.note else "")
    text = f"means: z {s.z:.2f}" if s.z is not None else "means"
    return text + (f" ({s.note})" if s.note else "")


_SE_LIMIT = {
    "interaction": "with the se measured from per-topic scores of the collection (the "
    "average pair of systems; a particular pair may differ)",
    "given": "with the se given (as good as it is)",
    "model": "with the model's sd / sqrt(n), which is no measured se (the spread of unequal "
    "systems): indicative only; --se VALUE gives a measured one",
}


def step_sentences(rs: RecordSteps) -> list[str]:
    """What the record audit found and how, with its limits."""
    n = len(rs.steps)
    if n == 0:
        return ["No record step to test (one record holder)."]
    out_ = [
        f"{rs.n_significant} of {n} record steps beat the record they replaced after Holm "
        f"at {rs.alpha:g}: {rs.method}."
    ]
    if rs.certify is not None:
        rule = "alpha-spending" if rs.certify == "spending" else "LORD++ (online FDR)"
        out_.append(
            f"Online certification ({rule}, levels fixed by the earlier records): "
            f"{rs.n_certified} of {n} steps certified."
        )
    means = [s for s in rs.steps if s.basis == "means"]
    if means:
        out_.append(
            f"{len(means)} step(s) have only the two published means: the step in units of "
            "the se of a difference, sqrt(2) x the audit's se, a normal approximation "
            + _SE_LIMIT.get(rs.se_source or "", "as good as that se")
            + "."
        )
    tied = [s for s in rs.steps if s.step_results > 1]
    if tied:
        out_.append(
            f"{len(tied)} step(s) brought several results at once: the record is the best of "
            "them, and its p-value is multiplied by their number."
        )
    mc = [s for s in rs.steps if s.signflip is not None and not s.signflip.exact]
    if mc:
        err = max(s.signflip.mc_error or 0.0 for s in mc if s.signflip is not None)
        out_.append(
            f"{len(mc)} test(s) by {rs.draws:,} random sign patterns (seed {rs.seed}; "
            f"Monte Carlo error at most {err:.1g}); the others enumerate every pattern."
        )
    return out_


def render_record_steps(rs: RecordSteps) -> None:
    rows = []
    for s in rs.steps:
        row = [
            s.when,
            f"{s.previous.value_text} {s.previous.system}",
            f"{s.new.value_text} {s.new.system}",
            f"{s.margin:+.4f}",
            _basis(s),
            _p(s.p_raw),
            s.step_results,
            _p(s.p),
            _p(s.p_holm),
        ]
        if rs.certify is not None:
            row += [f"{s.level:.2g}" if s.level is not None else "-", bool(s.certified)]
        rows.append(row)
    cols = ["step", "replaced", "new record", "margin", "paired on", "p selective", "results"]
    cols += ["p", "Holm"] + (["level", "certified"] if rs.certify is not None else [])
    _wide(table("Record steps, each against the record it replaced", cols, rows))
    for text in step_sentences(rs):
        out.print(text, markup=False)
