"""The extreme-value audits in plain words (Carterette, SIGIR 2015).

One place for the sentences a reader sees in the terminal, in ``--json`` and in every
report: a claim audit's answers (against the record, against chance or "uninformative",
its own interval, how much of the record is luck), the reference model with the standard
error it used and why, and the population an audit used. Each sentence says what was
computed and no more (docs/STATISTICS.md, "Claims"): a claim within the record's band is
within what picking the best of N equally good systems produces, which is not a test of
the claim against the record; being above the alpha threshold says the value is not
explained by N equally good systems, which is not "better than the record".
"""

from __future__ import annotations

import dataclasses
import math

from litaudit import defaults
from litaudit.analyses.extreme.noise import NoiseChoice, RobustCheck
from litaudit.analyses.extreme.population import PopulationSummary, ResultRow, track_label
from litaudit.analyses.wording import fmt_p, sci
from litaudit.stats.claim import ClaimAudit
from litaudit.stats.noise import Shrinkage, TopicInteraction


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


def _band(lo: float, hi: float) -> str:
    return f"[{_f(lo)}, {_f(hi)}]"


def record_sentence(a: ClaimAudit, claim: str, record: ResultRow) -> str:
    """(a) The claim against the record, in one sentence: where it lies against the 1 - 2p
    bands of the reference model (the record's as the max of N, the claim's as the max of
    M), saying that this is what the model's noise produces, not a test of the claim."""
    r, iv, c = a.record, a.interval, a.chance
    cov = _pct(iv.coverage)
    rec = result_label(record)
    n = a.reference.n_results
    gap = f"{abs(r.value - r.record):.2g}"
    not_test = "this is not a test of the claim against the record"
    within = (
        f"a gap of {gap} is within what picking the best of {{m}} equally good systems "
        f"produces; {not_test}"
    )
    beyond = (
        f"a gap of {gap} is wider than the band that picking the best of {{m}} equally "
        f"good systems spans with probability {iv.coverage:g}; {not_test}"
    )
    existing = a.index is not None
    tail = _count(r.n_at_or_above, existing)
    civ, riv = _band(iv.lower, iv.value), _band(r.record_interval.lower, r.record)
    if r.holds_record:
        if r.standing == "equal":
            return (
                f"Against the record: {claim} shares the record with {rec} under the "
                f"reference model; {not_test}."
            )
        if r.record_in_claim_interval:
            how = f"within the claim's {cov} band {civ} under the reference model: " + (
                within.format(m=c.n_draws)
            )
        else:
            how = f"below the claim's {cov} band {civ} under the reference model: " + (
                beyond.format(m=c.n_draws)
            )
        return f"Against the record: {claim} holds the record; the next best is {rec}, {how}."
    s = {
        "above-within": f"is above the record, {rec}, which lies within the claim's {cov} "
        f"band {civ} under the reference model: " + within.format(m=c.n_draws),
        "above-apart": f"is above the record, {rec}, which lies below the claim's {cov} "
        f"band {civ} under the reference model: " + beyond.format(m=c.n_draws),
        "equal": f"equals the record, {rec}; {not_test}",
        "below-within": f"is below the record, {rec}, within the record's {cov} band {riv} "
        f"under the reference model: " + within.format(m=n),
        "below-apart": f"is below the record, {rec}, and below the record's {cov} band "
        f"{riv} under the reference model: " + beyond.format(m=n),
    }[r.standing]
    return f"Against the record: {claim} {s}; {tail}."


def _place(r, claim_band: bool) -> str:
    """Where the claim lies against the record's band (or the record against the claim's)."""
    if r.standing in ("above-within", "above-apart"):
        return (
            "the record lies within the claim's band"
            if r.record_in_claim_interval
            else "the record lies below the claim's band"
        )
    if r.standing == "equal":
        return "the claim equals the record"
    return (
        "the claim lies within the record's band"
        if r.claim_in_record_interval
        else "the claim lies below the record's band"
    )


def robust_sentence(rc: RobustCheck, a: ClaimAudit) -> str | None:
    """The sensitivity line: the record check with the robust spread, when it changes."""
    if not rc.changes:
        return None
    r = rc.record
    band = (
        _band(r.claim_lower, r.value)
        if r.standing.startswith("above")
        else _band(r.record_interval.lower, r.record)
    )
    return (
        f"Sensitivity: with the robust spread 1.4826 x MAD = {_f(rc.robust_sd)} of the "
        f"published results instead of their sd {_f(a.reference.sd)} (se {_f(rc.se)}), "
        f"{_place(r, True)} {band}, where with the sd {_place(a.record, True)}: the tail of "
        "weak results that widens the sd decides the standing."
    )


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
    """(b) The claim against chance, or "uninformative" when the threshold lies within
    ``defaults.UNINFORMATIVE_GAP_SD`` between-system sd of the mean."""
    c = a.chance
    ref = a.reference
    where = (
        f"the value that the best of {c.n_draws} equally good systems ({draws_phrase(a)}), "
        f"each measured with standard error {_f(c.se)} around the mean {_f(c.mu)}, "
        f"exceeds with probability {c.alpha:g}"
    )
    if c.informative is False:
        return (
            f"Against chance: uninformative for this population. The threshold "
            f"{_f(c.threshold)}, {where}, lies {c.gap_sd:.2f} between-system sd above the "
            f"mean (less than {defaults.UNINFORMATIVE_GAP_SD:g}): "
            f"{c.n_published_above} of the {ref.n_results} published results pass it, so "
            f"passing it ({claim} {'does' if c.passes else 'does not'}) says nothing here."
        )
    p = fmt_p(c.p_value, c.p_below_floor, c.p_floor)
    if c.passes:
        head = f"{claim} is above {_f(c.threshold)}, {where} ({p})"
    else:
        head = (
            f"{claim} is not above {_f(c.threshold)}, {where} ({p}): it is within what "
            f"the best of {c.n_draws} such systems reaches by chance"
        )
    ns = fmt_n_star(c.n_star, c.n_star_capped, c.n_star_cap)
    ns = f"N* {ns}" if ns.startswith(">") else f"N* = {ns}"
    return (
        f"Against chance: {head}. Under that null {c.expected_above_under_null:.3f} of "
        f"the {c.n_draws} draws are expected above {_f(c.threshold)}; {c.n_published_above} "
        f"of the {ref.n_results} published results are above it. {ns}: the number of "
        f"experiments whose best reaches {claim} with probability {c.alpha:g}."
    )


def uninformative_sentence(threshold: float, gap_sd: float, n_pass: int, n: int) -> str:
    """`audit best`: the threshold of the max lies too close to the mean to tell anything."""
    return (
        f"Against chance: uninformative for this population: the threshold of the max "
        f"{_f(threshold)} lies {gap_sd:.2f} between-system sd above the mean (less than "
        f"{defaults.UNINFORMATIVE_GAP_SD:g}); {n_pass} of the {n} published results pass it."
    )


def interaction_sentence(it: TopicInteraction, source: str, se: float) -> str:
    """`audit matrix`: the standard error measured from the interaction, and the F test."""
    differ = "the systems differ" if it.systems_differ else "the systems cannot be told apart"
    used = {
        "interaction": "the thresholds and intervals use it",
        "model": f"the thresholds and intervals use the model's sd / sqrt(n) = {_f(se)} (--se model)",
        "given": f"the thresholds and intervals use the given {_f(se)} (--se)",
    }[source]
    dropped = (
        f"; {it.n_topics_dropped} topics some run lacks left out" if it.n_topics_dropped else ""
    )
    return (
        f"Measured noise: the system x topic interaction of the {it.n_systems} runs x "
        f"{it.n_topics} topics gives a standard error sqrt(MS_interaction / n) = {_f(it.se)} "
        f"per run mean{dropped}; {used}. Check: F = {it.f_systems:.1f} for system "
        f"differences on {it.df_systems} and {it.df_interaction} df, "
        f"{fmt_p(it.p_systems, it.p_below_floor, it.p_floor)} at alpha {it.alpha:g}: {differ}."
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


def luck_sentence(s: Shrinkage, what: str = "the record") -> str:
    """How much of the best is luck: the random-effects estimate of its true mean."""
    return (
        f"How much of {what} is luck: with the true means of the published systems spread "
        f"by tau = {_f(s.tau)} (sd {_f(s.sd)} of the results less the noise se {_f(s.se)}), "
        f"the random-effects estimate of {what}'s true mean is {_f(s.estimate)} (posterior "
        f"sd {_f(s.posterior_sd)}) for the observed {_f(s.value)}: {s.luck:.4f} of it, "
        f"{100 * (1 - s.weight):.1f}% of its distance from the mean {_f(s.mu)}, is what "
        "the noise explains."
    )


def se_source_sentence(nc: NoiseChoice) -> str:
    """Which standard error the audit used and why (`--se`)."""
    if nc.source == "given":
        return f"the standard error {_f(nc.se)} given with --se (the model's would be {_f(nc.model_se)})"
    if nc.source == "interaction":
        it, pt = nc.interaction, nc.per_topic
        assert it is not None and pt is not None
        differ = (
            "the systems differ"
            if it.systems_differ
            else "the systems cannot be told apart at this level"
        )
        return (
            f"the standard error {_f(nc.se)} measured as sqrt(MS_interaction / n) from the "
            f"system x topic interaction of {pt.what} "
            f"({'asked with --se interaction' if nc.asked == 'interaction' else 'the default where per-topic scores are stored'}; "
            f"the model's sd / sqrt(n) would be {_f(nc.model_se)}); check: F = "
            f"{it.f_systems:.1f} for system differences on {it.df_systems} and "
            f"{it.df_interaction} df, {fmt_p(it.p_systems, it.p_below_floor, it.p_floor)} at "
            f"alpha {it.alpha:g}: {differ}"
        )
    n = (
        f"{nc.n_topics:,} topics"
        if nc.n_effective is None
        else f"{nc.n_effective:,.0f} effective queries of an equal-weight mean of "
        f"{nc.n_parts} sub-collections (K^2 / sum 1/n_i; {nc.n_topics:,} queries summed)"
    )
    why = (
        "asked with --se model"
        if nc.asked == "model"
        else nc.unavailable
        if nc.unavailable
        else "no per-topic scores of this population are stored"
    )
    return (
        f"the model's standard error sd / sqrt(n) = {_f(nc.sd)} / sqrt({nc.n_model:,.0f}) = "
        f"{_f(nc.se)} over {n} ({why}); it is not a measured standard error: give one "
        "measured on per-topic scores with --se VALUE"
    )


def reference_sentence(nc: NoiseChoice, n_results: int) -> str:
    """The reference model stated once, as what it is, with its numbers."""
    ratio = nc.sd / nc.se
    spread = f"the {n_results} published results spread with sd {_f(nc.sd)}, {ratio:.1f} times " + (
        "that (sqrt(n) by construction) because they are not equally good"
        if nc.source == "model"
        else "that, because they are not equally good"
    )
    return (
        f"Reference model: a null of {n_results} equally good systems, each measured with "
        f"{se_source_sentence(nc)}. {spread[0].upper()}{spread[1:]}; the thresholds and "
        "bands say what equally good systems would reach."
    )


def summary_null_sentence(
    n_rows: int, n_uninformative: int, alpha: float, n_measured: int = 0
) -> str:
    """`audit summary`: the one null every audit uses, and where the chance part is
    uninformative. ``n_measured``: groups whose se was measured from stored per-topic
    scores instead of the model's."""
    se = (
        "the model's standard error sd / sqrt(n) (published results spread sqrt(n) times "
        "wider, because they are not equally good)"
    )
    if n_measured:
        se += (
            f", or in {n_measured} of {n_rows} groups the standard error measured from "
            "stored per-topic scores"
        )
    return (
        f"Every audit uses one null: N equally good systems, each measured with {se}; "
        f"`audit best --se` takes another. The alpha {alpha:g} threshold of the max lies within "
        f"{defaults.UNINFORMATIVE_GAP_SD:g} between-system sd of the mean, so the chance "
        f"check is uninformative, in {n_uninformative} of {n_rows} populations."
    )


def history_reference_sentence(reference: str) -> str:
    """What a history's reference uses."""
    if reference == "running":
        return (
            "reference: running (mean and sd of the results published up to each step; "
            "no later result is used)"
        )
    return (
        "reference: final (mean and sd of all results, later ones included: each step "
        "is judged with a look-ahead)"
    )


def claim_answers(
    a: ClaimAudit,
    record: ResultRow,
    subject: ResultRow | None = None,
    noise: NoiseChoice | None = None,
    robust: RobustCheck | None = None,
    shrinkage: Shrinkage | None = None,
) -> tuple[str, ...]:
    """(a) with its sensitivity line, (b), (c), the luck of the record and the reference
    model, in this order. ``subject``: the published result audited (None for a new
    value)."""
    value = _f(a.value)
    full = value if subject is None else result_label(subject)
    out = [record_sentence(a, full, record)]
    if robust is not None:
        line = robust_sentence(robust, a)
        if line:
            out.append(line)
    out += [chance_sentence(a, value), interval_sentence(a, value)]
    if shrinkage is not None:
        out.append(luck_sentence(shrinkage))
    if noise is not None:
        out.append(reference_sentence(noise, a.reference.n_results))
    return tuple(out)


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
    if ps.mix_warning:
        s += f" Warning: {ps.mix_warning}."
    return s
