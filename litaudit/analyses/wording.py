"""The extreme-value audits in plain words (Carterette, SIGIR 2015).

One place for the sentences a reader sees in the terminal, in ``--json`` and in every
report: a claim audit's answers (against the record, against chance, its own interval,
the model-fit check) and the population an audit used. Each sentence says what was
computed and no more (docs/STATISTICS.md, "Claims"): "cannot be told apart from the
record" is the paper's candidate-set reading of the 1 - 2p interval; being above the
alpha threshold says the value is not explained by N systems as good as the average
published result, which is not "better than the record".
"""

from __future__ import annotations

import dataclasses
import math

from litaudit.analyses.population import PopulationSummary, ResultRow, track_label
from litaudit.stats.claim import ClaimAudit
from litaudit.stats.modelfit import ModelFit


def sci(x: float) -> str:
    """1e-06 -> '1e-6', 1e12 -> '1e+12' (a floor or a cap as people write it)."""
    m, e = f"{x:.0e}".split("e")
    n = int(e)
    return f"{m}e{'+' if n > 0 else ''}{n}"


def p_text(p: float | None, below_floor: bool = False, floor: float | None = None) -> str:
    """A p-value alone: '0.0123', or '< 1e-6' when it is below the floor."""
    if p is None:
        return "-"
    if below_floor and floor is not None:
        return f"< {sci(floor)}"
    return f"{p:.3g}"


def fmt_p(p: float | None, below_floor: bool = False, floor: float | None = None) -> str:
    """'p = 0.0123', or 'p < 1e-6' when the value is below the floor."""
    t = p_text(p, below_floor, floor)
    return f"p {t}" if t.startswith("<") else f"p = {t}"


def fmt_n_star(n: float, capped: bool, cap: float | None) -> str:
    """N* in full below a billion, else '1.23e+15'; '> 1e+12 (capped)' at the cap."""
    if capped and cap is not None:
        return f"> {sci(cap)} (capped)"
    if math.isinf(n):
        return "no feasible number"
    return f"{n:.0f}" if n < 1e9 else f"{n:.3g}"


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


def _f(x: float) -> str:
    return f"{x:.4f}"


def cited(r: ResultRow) -> str:
    """Where a result comes from: its paper's short citation, else its track as cited
    ('TREC trec7/adhoc', 'mteb/retrieval')."""
    return r.citation if r.source == "paper" and r.citation else (track_label(r.track) or r.source)


def who(r: ResultRow) -> str:
    """'best (proposed), Cormack et al. (SIGIR 2009)' or 'ok7ax, TREC trec7/adhoc'."""
    return f"{r.system}, {cited(r)}"


def result_label(r: ResultRow) -> str:
    return f"{r.value_text} ({who(r)})"


def _count(k: int, other: bool) -> str:
    o = "other " if other else ""
    if k == 0:
        return f"no {o}published result is at or above it"
    return f"{k} {o}published result{'s are' if k != 1 else ' is'} at or above it"


def record_sentence(a: ClaimAudit, claim: str, record: ResultRow) -> str:
    """(a) The claim against the record, in one sentence."""
    r, iv = a.record, a.interval
    cov = _pct(iv.coverage)
    rec = result_label(record)
    civ = f"[{_f(iv.lower)}, {_f(iv.value)}]"
    riv = f"[{_f(r.record_interval.lower)}, {_f(r.record)}]"
    existing = a.index is not None
    tail = _count(r.n_at_or_above, existing)
    if r.holds_record:
        verb = (
            "shares the record with"
            if r.standing == "equal"
            else "holds the record; the next best is"
        )
        place = (
            f"which lies in the claim's {cov} interval {civ}: the two cannot be told apart"
            if r.record_in_claim_interval or r.standing == "equal"
            else f"which lies below the claim's {cov} interval {civ}"
        )
        return f"Against the record: {claim} {verb} {rec}, {place}."
    s = {
        "above-within": f"is above the record, {rec}, but the record lies in the claim's "
        f"{cov} interval {civ}: the claim cannot be told apart from the record",
        "above-apart": f"is above the record, {rec}, and the record lies below the claim's "
        f"{cov} interval {civ}",
        "equal": f"equals the record, {rec}: it cannot be told apart from the record",
        "below-within": f"is below the record, {rec}, but in the record's {cov} interval "
        f"{riv}: it cannot be told apart from the record",
        "below-apart": f"is below the record, {rec}, and below the record's {cov} interval {riv}",
    }[r.standing]
    return f"Against the record: {claim} {s}; {tail}."


def draws_phrase(a: ClaimAudit) -> str:
    """How the M draws of part (b) are made up."""
    c = a.chance
    n = a.reference.n_results
    if c.hidden_multiplier != 1:
        return (
            f"the claim and {c.hidden_multiplier:g} x {c.n_other} other experiments "
            "(hidden multiplier)"
        )
    if a.index is None and c.n_other == n:
        return f"the claim as one more draw besides the {n} published results"
    if a.index is not None and c.n_other == n - 1:
        return f"the claim as one of the {n} published results"
    return f"the claim and {c.n_other} other experiments (--n)"


def chance_sentence(a: ClaimAudit, claim: str) -> str:
    """(b) The claim against chance."""
    c = a.chance
    ref = a.reference
    p = fmt_p(c.p_value, c.p_below_floor, c.p_floor)
    model = (
        f"the value that the best of {c.n_draws} draws from Normal({_f(c.mu)}, "
        f"{_f(c.se)}) ({draws_phrase(a)}; systems as good as the average published "
        f"result) exceeds with probability {c.alpha:g}"
    )
    if c.passes:
        head = f"{claim} is above {_f(c.threshold)}, {model} ({p})"
    else:
        head = (
            f"{claim} is not above {_f(c.threshold)}, {model} ({p}): it is within what "
            f"the best of {c.n_draws} such systems reaches by chance"
        )
    ns = fmt_n_star(c.n_star, c.n_star_capped, c.n_star_cap)
    ns = f"N* {ns}" if ns.startswith(">") else f"N* = {ns}"
    return (
        f"Against chance: {head}. Under that model {c.expected_above_under_null:.3f} of "
        f"the {c.n_draws} draws are expected above {_f(c.threshold)}; {c.n_published_above} "
        f"of the {ref.n_results} published results are above it. {ns}: the number of "
        f"experiments whose best reaches {claim} with probability {c.alpha:g}."
    )


def interval_sentence(a: ClaimAudit, claim: str) -> str:
    """(c) The claim's own mu0 and interval."""
    iv, c = a.interval, a.chance
    drop = "" if math.isnan(iv.drop) else f", {100 * iv.drop:.1f}% lower"
    return (
        f"The claim's own interval: the lowest population mean whose best of "
        f"{c.n_draws} draws reaches {_f(iv.value)} with probability {iv.p:g} is mu0 = "
        f"{_f(iv.mu0)}{drop}; the claim's {_pct(iv.coverage)} interval is "
        f"[{_f(iv.lower)}, {_f(iv.value)}]."
    )


def fit_sentence(f: ModelFit) -> str:
    """The model-fit check, with a warning when the model is rejected."""
    w = "-" if f.shapiro_w is None else f"{f.shapiro_w:.3f}"
    s = (
        f"Model fit: the {f.n_results} published results spread with sd {_f(f.sd)}, "
        f"{f.spread_ratio:.1f} times the standard error {_f(f.se)} the model gives each "
        f"result (chi-square variance test {fmt_p(f.variance_p, f.variance_p_below_floor, f.p_floor)}); "
        f"Shapiro-Wilk normality W = {w} "
        f"({fmt_p(f.shapiro_p, f.shapiro_p_below_floor, f.p_floor)})."
    )
    if f.rejected:
        why = " and ".join(
            x for x, r in (("spread", f.spread_rejected), ("normality", f.normality_rejected)) if r
        )
        s += (
            f" Warning: the model is rejected at alpha {f.alpha:g} ({why}): the p-values "
            "and N* describe systems as good as the average result, not these results."
        )
    return s


def claim_answers(
    a: ClaimAudit, record: ResultRow, subject: ResultRow | None = None
) -> tuple[str, ...]:
    """(a), (b), (c) and the model fit, in this order. ``subject``: the published result
    audited (None for a new value)."""
    value = _f(a.value)
    full = value if subject is None else result_label(subject)
    return (
        record_sentence(a, full, record),
        chance_sentence(a, value),
        interval_sentence(a, value),
        fit_sentence(a.fit),
    )


def _tallies(ts) -> str:
    return ", ".join(f"{t.label} {t.n}" for t in ts)


def population_sentence(ps: PopulationSummary) -> str:
    """'Population: N = 103 on 50 topics; sources: ...; roles: ...; ...; reported by ...;
    dated ... to ...; filters: ...', then the shape warning when the values are far from
    Normal."""
    papers = f" (from {ps.n_papers} papers)" if ps.n_papers else ""
    src = ", ".join(
        f"{t.label} {t.n}" + (papers if t.label == "papers" else "") for t in ps.sources
    )
    other = (
        f"; {ps.n_other_topics} results on other topic counts left out" if ps.n_other_topics else ""
    )
    named = [t for t in ps.reporters if t.label]
    unnamed = sum(t.n for t in ps.reporters if not t.label)
    who = f"; reported by {_tallies(named)}" if named else ""
    if unnamed and named:
        who += f", not recorded {unnamed}"
    when = ""
    if ps.first_date:
        when = f"; dated {ps.first_date} to {ps.last_date}" + (
            f" ({ps.n_undated} undated)" if ps.n_undated else ""
        )
    # the source is in the audit's headline already
    fdesc = dataclasses.replace(ps.filters, source=None).describe()
    filt = f"; filters: {fdesc}" if fdesc else ""
    s = (
        f"Population: N = {ps.n} results on {ps.n_topics} topics; sources: {src}; "
        f"roles: {_tallies(ps.roles)}; run types: {_tallies(ps.run_types)}; "
        f"topic sets: {_tallies(ps.topic_sets)}{other}{who}{when}{filt}."
    )
    if ps.warning:
        s += f" Warning: {ps.warning}."
    return s
