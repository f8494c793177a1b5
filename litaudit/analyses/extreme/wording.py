"""The extreme-value audits in plain words (Carterette, SIGIR 2015).

One place for the sentences a reader sees in the terminal, in ``--json`` and in every
report: a claim audit's answers (against the record, against chance or "false by inspection",
its own interval, how much of the record is luck), the reference model with the standard
error it used and why, and the population an audit used. Each sentence says what was
computed and no more (docs/STATISTICS.md, "Claims"): a claim within the record's band is
within what picking the best of N equally good systems produces, which is not a paired test of
the claim against the record; being above the alpha threshold says the value is not
explained by N equally good systems, which is not "better than the record".
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from litaudit import defaults
from litaudit.analyses.extreme.noise import NoiseChoice, RecordGap, RobustCheck
from litaudit.analyses.extreme.population import PopulationSummary, ResultRow, track_label
from litaudit.analyses.wording import fmt_p, sci
from litaudit.stats.calibrated import MixedNoiseMax, ResampledNull
from litaudit.stats.claim import ClaimAudit
from litaudit.stats.noise import Shrinkage, SpreadCheck, TopicInteraction, WinnersBias


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
    M), saying that this is what the model's noise produces and that only a paired test on
    the same topics tells the two apart."""
    r, iv, c = a.record, a.interval, a.chance
    cov = _pct(iv.coverage)
    rec = result_label(record)
    n = a.reference.n_results
    gap = f"{abs(r.value - r.record):.2g}"
    # the band is the reference model's noise, not a paired test: said without denying
    # the record comparison the sentence makes (issue 32: no sentence contradicts another)
    not_test = "only a paired test on the same topics can tell the two apart"
    within = (
        f"a gap of {gap} is within what picking the best of {{m}} equally good systems "
        f"produces; {not_test}"
    )
    beyond = (
        f"a gap of {gap} is wider than the band that picking the best of {{m}} equally "
        f"good systems spans with probability {iv.coverage:g}; a paired test on the same "
        "topics is what would confirm it"
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


def band_place(r) -> str:
    """Where the claim lies against the record's band (or, above the record, the record
    against the claim's): the audit's sentence and the verdict line share it."""
    if r.standing.startswith("above"):
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
        f"{band_place(r)} {band}, where with the sd {band_place(a.record)}: the tail of "
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


def chance_sentence(
    a: ClaimAudit,
    claim: str,
    spread: SpreadCheck | None = None,
    mixed: MixedNoiseMax | None = None,
) -> str:
    """(b) The claim against chance; where the published results spread too widely to be
    N equally good systems (``spread.false_by_inspection``), that, with no p and no N*."""
    c = a.chance
    ref = a.reference
    where = (
        f"the value that the best of {c.n_draws} equally good systems ({draws_phrase(a)}), "
        f"each measured with standard error {_f(c.se)} around the mean {_f(c.mu)}, "
        f"exceeds with probability {c.alpha:g}"
    )
    if spread is not None and spread.false_by_inspection:
        return (
            f"Against chance: the null of {ref.n_results} equally good systems is false by "
            f"inspection: the published results spread with sd {_f(spread.sd)}, "
            f"{spread.ratio:.1f} times the largest standard error {_f(spread.se_max)} one "
            f"of them can have (at least {spread.min_ratio:g} times: under that null a "
            f"spread this wide has probability below {sci(defaults.P_FLOOR)}), so no p "
            f"and no N* are given. {claim} {'is' if c.passes else 'is not'} above "
            f"{_f(c.threshold)}, {where}; {c.n_published_above} of the {ref.n_results} "
            "published results are above it: passing it says only that a result is not "
            "one of N equally good systems, which these are not."
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
    runs = (
        ""
        if mixed is None
        else f" Runs differ in noise: with each system's se that of a measured reference run "
        f"drawn at random, the threshold is {_f(mixed.threshold)} (Monte Carlo se "
        f"{mixed.threshold_se:.4f}, {mixed.trials:,} simulations, seed {mixed.seed}) and "
        f"{claim} {'is' if mixed.value > mixed.threshold else 'is not'} above it (p = "
        f"{mixed.p_value:.3g})."
    )
    return (
        f"Against chance: {head}. Under that null {c.expected_above_under_null:.3f} of "
        f"the {c.n_draws} draws are expected above {_f(c.threshold)}; {c.n_published_above} "
        f"of the {ref.n_results} published results are above it. {ns}: the number of "
        f"experiments whose best reaches {claim} with probability {c.alpha:g}.{runs}"
    )


def best_chance_sentence(
    spread: SpreadCheck | None, threshold: float, n_pass: int, n: int
) -> str | None:
    """`audit best`: the null is false by inspection (None when it is not, or under the
    model's se)."""
    if spread is None or not spread.false_by_inspection:
        return None
    return (
        f"Against chance: the null of {n} equally good systems is false by inspection: the "
        f"published results spread with sd {_f(spread.sd)}, {spread.ratio:.1f} times the "
        f"largest standard error {_f(spread.se_max)} one of them can have (at least "
        f"{spread.min_ratio:g} times: probability below {sci(defaults.P_FLOOR)} under that "
        f"null); {n_pass} of the {n} published results pass the threshold of the max "
        f"{_f(threshold)}, which says only that they are not equally good."
    )


def history_chance_sentence(spread: SpreadCheck | None) -> str | None:
    """`audit history`: the null is false by inspection for all the results (None when it
    is not, or under the model's se)."""
    if spread is None or not spread.false_by_inspection:
        return None
    return (
        f"Against chance: the null of {spread.n_results} equally good systems is false by "
        f"inspection for all the results: they spread with sd {_f(spread.sd)}, "
        f"{spread.ratio:.1f} times the largest standard error {_f(spread.se_max)} one of "
        f"them can have (at least {spread.min_ratio:g} times: probability below "
        f"{sci(defaults.P_FLOOR)} under that null). A step's p says how rarely the best of "
        "that many equals reaches its record, which these systems are not."
    )


def gap_sentence(g: RecordGap, record: ResultRow) -> str:
    """'0.4400 is 0.0230 below the record 0.4630, 2.7 se of a difference (...)'."""
    how = (
        "paired over the same topics: sqrt(2) x the measured se"
        if g.paired
        else "unpaired, from the [0, 1] bound at each value: an upper bound, so the gap is "
        "at least this many se"
        if g.kind == "bound"
        else f"sqrt(2) x the {g.kind} se"
    )
    if g.gap == 0:
        return f"Gap to the record: {_f(g.value)} equals the record {record.value_text}."
    side = "above" if g.gap > 0 else "below"
    many = f"more than {g.z:.1f}" if g.kind == "bound" else f"{g.z:.1f}"
    return (
        f"Gap to the record: {_f(g.value)} is {abs(g.gap):.4f} {side} the record "
        f"{record.value_text} ({who(record)}), {many} se of a difference (se "
        f"{_f(g.se_diff)}, {how})."
    )


def interaction_sentence(it: TopicInteraction, source: str, se: float) -> str:
    """`audit matrix`: the standard error measured from the interaction, and the F test."""
    differ = "the systems differ" if it.systems_differ else "the systems cannot be told apart"
    used = {
        "interaction": "the thresholds and intervals use it",
        "model": f"the thresholds and intervals use the model's sd / sqrt(n) = {_f(se)} (--se model)",
        "reference": f"the thresholds and intervals use the reference noise {_f(se)}",
        "bound": f"the thresholds and intervals use the bound {_f(se)} (--se bound)",
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


def resampled_sentence(rn: ResampledNull, normal_threshold: float) -> str:
    """`audit matrix`: the threshold of the max and the F test calibrated by resampling."""
    above = "above" if rn.best_mean > rn.max_threshold else "not above"
    return (
        f"Calibrated on the matrix's residuals (topics resampled with all means equal, "
        f"{rn.trials:,} replications, seed {rn.seed}; runs keep their own noise): the "
        f"threshold of the max at alpha {rn.alpha:g} is {_f(rn.max_threshold)} (Monte Carlo "
        f"se {rn.max_offset_se:.4f}; the Normal threshold with one pooled se is "
        f"{_f(normal_threshold)}); the best mean {_f(rn.best_mean)} is {above} it "
        f"(p = {rn.p_max:.3g}, +1 rule). F = {rn.f:.1f} against its resampled {1 - rn.alpha:g} "
        f"point {rn.f_threshold:.2f}: p = {rn.p_f:.3g} by resampling "
        "(bench/bench_calibration.py: the Normal threshold and the F test on its df reject "
        "6-29% of such nulls at 5%, these about 5%)."
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


def luck_sentence(s: Shrinkage, what: str = "the record", bias: WinnersBias | None = None) -> str:
    """How much of the best is luck: the reliability of the population's spread, the
    random-effects estimate of its true mean, and the resampling estimate beside it."""
    extra = (
        ""
        if bias is None
        else f" Beside it, the winner's bias by resampling is {bias.bias:.4f} (Monte Carlo "
        f"se {bias.bias_se:.4f}; {bias.method})."
    )
    return (
        f"How much of {what} is luck: the reliability of the published spread is B = "
        f"tau^2 / (tau^2 + se^2) = {s.weight:.3f}; "
        f"with the true means of the published systems spread "
        f"by tau = {_f(s.tau)} (sd {_f(s.sd)} of the results less the noise se {_f(s.se)}), "
        f"the random-effects estimate of {what}'s true mean is {_f(s.estimate)} (posterior "
        f"sd {_f(s.posterior_sd)}) for the observed {_f(s.value)}: {s.luck:.4f} of it, "
        f"{100 * (1 - s.weight):.1f}% of its distance from the mean {_f(s.mu)} "
        "((1 - B)(record - mean)), is what the noise explains." + extra
    )


def se_source_sentence(nc: NoiseChoice) -> str:
    """Which standard error the audit used and why (`--se`)."""
    if nc.source == "given":
        return f"the standard error {_f(nc.se)} given with --se (the model's would be {_f(nc.model_se)})"
    if nc.source == "reference":
        return (
            f"the standard error {_f(nc.se)}, measured (kind measured: the store's reference "
            f"noise) as "
            f"sqrt(MS_interaction / n) from {nc.origin}; its runs' own se range to "
            f"{_f(nc.se_max or nc.se)} (the model's sd / sqrt(n) would be {_f(nc.model_se)})"
            + (f"; not the stored archive's: {nc.unavailable}" if nc.unavailable else "")
        )
    if nc.source == "bound":
        return (
            f"the standard error {_f(nc.se)}, a bound (kind bound): {nc.origin}; it is an "
            f"upper bound, so the chance answers are conservative (the model's sd / sqrt(n) "
            f"would be {_f(nc.model_se)}, --se model)"
        )
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
            f"system x topic interaction of {pt.what} (kind measured) "
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
        else "no per-topic scores of this population are stored, and the measure has no "
        "[0, 1] bound"
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
    n_rows: int, n_by_inspection: int, alpha: float, kinds: dict[str, int] | None = None
) -> str:
    """`audit summary`: the one null every audit uses, the kinds of se it was measured
    with, and where it is false by inspection."""
    k = kinds or {}
    told = ", ".join(
        f"{kind} {k[kind]}" for kind in ("measured", "bound", "model", "given") if k.get(kind)
    )
    return (
        f"Every audit uses one null: N equally good systems, each measured with the "
        f"population's standard error (kinds: {told or 'none'}; measured from per-topic "
        f"scores where the store has them, else the [0, 1] bound sqrt(m (1 - m) / n), "
        f"else the model's sd / sqrt(n)); `audit best --se` takes another. The published "
        f"results spread at least {defaults.BY_INSPECTION_RATIO:g} times the largest se one "
        f"of them can have, so that the null is false by inspection and no p is given, in "
        f"{n_by_inspection} of {n_rows} populations (alpha {alpha:g})."
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


@dataclass(frozen=True, kw_only=True)
class Found:
    """What a claim audit found besides its three parts, for :func:`claim_answers`."""

    noise: NoiseChoice | None = None
    robust: RobustCheck | None = None
    shrinkage: Shrinkage | None = None
    spread: SpreadCheck | None = None
    gap: RecordGap | None = None
    bias: WinnersBias | None = None
    mixed: MixedNoiseMax | None = None


def claim_answers(
    a: ClaimAudit,
    record: ResultRow,
    subject: ResultRow | None = None,
    found: Found = Found(),
) -> tuple[str, ...]:
    """(a) with its sensitivity line, (b), the gap to the record in se of a difference,
    (c), the luck of the record and the reference model, in this order. ``subject``: the
    published result audited (None for a new value)."""
    value = _f(a.value)
    full = value if subject is None else result_label(subject)
    out = [record_sentence(a, full, record)]
    if found.robust is not None:
        line = robust_sentence(found.robust, a)
        if line:
            out.append(line)
    out.append(chance_sentence(a, value, found.spread, found.mixed))
    if found.gap is not None:
        out.append(gap_sentence(found.gap, record))
    out.append(interval_sentence(a, value))
    if found.shrinkage is not None:
        out.append(luck_sentence(found.shrinkage, bias=found.bias))
    if found.noise is not None:
        out.append(reference_sentence(found.noise, a.reference.n_results))
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
