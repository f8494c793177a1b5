"""Renderers of the record audit (issue 34): the record steps of `audit history`, each
tested against the record it replaced. Imports only types and wording from the analyses.
"""

from __future__ import annotations

from litaudit import defaults
from litaudit.analyses.extreme.record_steps import RecordSteps, RecordStepTest
from litaudit.analyses.extreme.resolution import ResolutionReport
from litaudit.analyses.wording import p_text
from litaudit.render.console import SafeConsole, out, table
from litaudit.stats.winner import WinnerCorrection


def _wide(renderable) -> None:
    """At the terminal's width, or unwrapped (160 columns) when piped or captured."""
    if out.is_terminal:
        out.print(renderable)
    else:
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
    "reference": "with the se measured from the collection's reference per-topic scores "
    "(the average pair of systems; a particular pair may differ)",
    "bound": "with the bound sqrt(m (1 - m) / n) on the se of a mean, so conservative (the "
    "step is at least this many se)",
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


def resolution_sentence(rep: ResolutionReport) -> str:
    """'trec7 AP (50 topics): the smallest difference ... is 0.069; a gap of 0.005 needs
    about 9,048 topics (power 0.055 with the 50 there are).'"""
    r = rep.resolution
    where = f"{rep.collection_id or rep.what} {rep.measure} ({r.n_units} {rep.unit})"
    text = (
        f"{where}: the smallest difference between systems like its top {r.top} that a "
        f"paired t-test at {r.alpha:g} detects with {r.power:.0%} power is {r.mdd:.4f} "
        f"(paired sd {r.paired_sd:.4f})"
    )
    if r.gap is not None and r.units_needed is not None and r.power_at_n is not None:
        verb = "can" if r.units_needed <= r.n_units else "cannot"
        text += (
            f"; it {verb} resolve a {r.gap:g} gain: that needs about {r.units_needed:,} "
            f"{rep.unit} (power {r.power_at_n:.2f} with the {r.n_units} there are)"
        )
    return text + "."


def render_resolution(rep: ResolutionReport, audit_id: int | None) -> None:
    """`audit resolution`: the top systems' paired spread, the minimum detectable
    difference, and the units a gap needs."""
    r = rep.resolution
    head = f"Resolution: {rep.collection_id or '-'} {rep.measure}, {r.n_units} {rep.unit}"
    out.print(head + (f"  [audit #{audit_id}]" if audit_id is not None else ""), markup=False)
    out.print(f"Scores: {rep.what}", markup=False)
    if rep.n_dropped:
        out.print(f"{rep.n_dropped} {rep.unit} left out: some system has no score there.")
    rows = [
        (i + 1, name, f"{mean:.4f}", f"{r.pair_sds[i]:.4f}" if i < len(r.pair_sds) else "")
        for i, (name, mean) in enumerate(rep.top_systems)
    ]
    _wide(
        table(f"The top {r.top} systems", ["rank", "system", "mean", "sd of diff. to next"], rows)
    )
    facts = [
        ("paired sd (median of the neighbours')", f"{r.paired_sd:.4f}"),
        (f"min. detectable difference ({r.power:.0%} power, alpha {r.alpha:g})", f"{r.mdd:.4f}"),
        ("  normal approximation", f"{r.mdd_normal:.4f}"),
    ]
    if r.gap is not None:
        facts += [
            (f"{rep.unit} a gap of {r.gap:g} needs (exact t)", f"{r.units_needed:,}"),
            ("  Sakai's closed form", f"{r.units_sakai:,.1f}"),
            ("  normal approximation", f"{r.units_normal:,.1f}"),
            (f"power for {r.gap:g} with the {r.n_units} {rep.unit}", f"{r.power_at_n:.3f}"),
        ]
    out.print(table(None, ["", "value"], facts))
    out.print(resolution_sentence(rep), markup=False)
    out.print(f"Topic set size design: {rep.citation}.", markup=False)


_LABEL = {
    "conditional": "conditional (Lee et al. 2016)",
    "hybrid": "hybrid (Andrews, Kitagawa and McCloskey 2024)",
    "bootstrap": "bootstrap bias-corrected",
    "bootstrap-iterated": "iterated bootstrap",
}


def _est(e) -> str:
    def f(v: float | None, missing: str) -> str:
        return missing if v is None else f"{v:.4f}"

    return f"{f(e.estimate, 'undefined')} [{f(e.lower, '-inf')}, {f(e.upper, 'inf')}]"


def winner_sentence(wc: WinnerCorrection, name: str) -> str:
    """'The winner's score corrected for selection (95%): ...'."""
    parts = "; ".join(f"{_LABEL.get(e.method, e.method)} {_est(e)}" for e in wc.estimates)
    lo, _ = wc.truncation
    margin = "" if lo is None else f", {wc.observed - lo:.4f} above its truncation point"
    return (
        f"The winner's score corrected for selection ({1 - wc.alpha:.0%}): {name} observed "
        f"{wc.observed:.4f} (se {wc.se:.4f}{margin}); {parts}. The conditional interval "
        "is exact given the winner but unbounded at a near-tie; the hybrid stays within the "
        f"{1 - wc.beta:.1%} projection interval [{wc.projection[0]:.4f}, "
        f"{wc.projection[1]:.4f}]; calibrated in bench/bench_records.py (README)."
    )
