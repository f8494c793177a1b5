"""The reference model and the noise an extreme-value audit measured, in plain words
(Carterette, SIGIR 2015).

Which standard error an audit used and why (`--se`), the reference model stated once with
its numbers, the one null of `audit summary`, the gap to the record in se of a difference,
the matrix's measured interaction and its resampling calibration (`audit matrix`), and how
much of a best result is luck (its shrinkage). Each sentence says what was computed and no
more (docs/STATISTICS.md, "Claims").
"""

from __future__ import annotations

from litaudit import defaults
from litaudit.analyses.extreme.noise import NoiseChoice, RecordGap
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.wording import fmt_value, who
from litaudit.analyses.wording import fmt_p
from litaudit.stats.calibrated import ResampledNull
from litaudit.stats.noise import Shrinkage, TopicInteraction, WinnersBias


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
        return f"Gap to the record: {fmt_value(g.value)} equals the record {record.value_text}."
    side = "above" if g.gap > 0 else "below"
    many = f"more than {g.z:.1f}" if g.kind == "bound" else f"{g.z:.1f}"
    return (
        f"Gap to the record: {fmt_value(g.value)} is {abs(g.gap):.4f} {side} the record "
        f"{record.value_text} ({who(record)}), {many} se of a difference (se "
        f"{fmt_value(g.se_diff)}, {how})."
    )


def interaction_sentence(it: TopicInteraction, source: str, se: float) -> str:
    """`audit matrix`: the standard error measured from the interaction, and the F test."""
    differ = "the systems differ" if it.systems_differ else "the systems cannot be told apart"
    used = {
        "interaction": "the thresholds and intervals use it",
        "model": f"the thresholds and intervals use the model's sd / sqrt(n) = {fmt_value(se)} (--se model)",
        "reference": f"the thresholds and intervals use the reference noise {fmt_value(se)}",
        "bound": f"the thresholds and intervals use the bound {fmt_value(se)} (--se bound)",
        "given": f"the thresholds and intervals use the given {fmt_value(se)} (--se)",
    }[source]
    dropped = (
        f"; {it.n_topics_dropped} topics some run lacks left out" if it.n_topics_dropped else ""
    )
    return (
        f"Measured noise: the system x topic interaction of the {it.n_systems} runs x "
        f"{it.n_topics} topics gives a standard error sqrt(MS_interaction / n) = {fmt_value(it.se)} "
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
        f"threshold of the max at alpha {rn.alpha:g} is {fmt_value(rn.max_threshold)} (Monte Carlo "
        f"se {rn.max_offset_se:.4f}; the Normal threshold with one pooled se is "
        f"{fmt_value(normal_threshold)}); the best mean {fmt_value(rn.best_mean)} is {above} it "
        f"(p = {rn.p_max:.3g}, +1 rule). "
        + _equal_means(rn)
        + "(bench/bench_calibration.py: the Normal threshold and the F test on its df reject "
        "6-29% of such nulls at 5%, these about 5%)."
    )


def _equal_means(rn: ResampledNull) -> str:
    """The test of equal means: the studentized max-t where stored, else the F."""
    f = f"F = {rn.f:.1f} against its resampled {1 - rn.alpha:g} point {rn.f_threshold:.2f}"
    if rn.max_t is None:
        return f + f": p = {rn.p_f:.3g} by resampling "
    mt = rn.max_t
    return (
        f"Equal means by the studentized max-t (max |mean - grand mean| / the run's own se, "
        f"bootstrap-t): {mt.statistic:.2f} against {mt.threshold:.2f}, p = {mt.p:.3g}; "
        f"{f} (p = {rn.p_f:.3g}) is shown, not calibrated when runs differ in noise "
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
        f"by tau = {fmt_value(s.tau)} (sd {fmt_value(s.sd)} of the results less the noise se {fmt_value(s.se)}), "
        f"the random-effects estimate of {what}'s true mean is {fmt_value(s.estimate)} (posterior "
        f"sd {fmt_value(s.posterior_sd)}) for the observed {fmt_value(s.value)}: {s.luck:.4f} of it, "
        f"{100 * (1 - s.weight):.1f}% of its distance from the mean {fmt_value(s.mu)} "
        "((1 - B)(record - mean)), is what the noise explains." + extra
    )


def se_source_sentence(nc: NoiseChoice) -> str:
    """Which standard error the audit used and why (`--se`)."""
    if nc.source == "given":
        return f"the standard error {fmt_value(nc.se)} given with --se (the model's would be {fmt_value(nc.model_se)})"
    if nc.source == "reference":
        return (
            f"the standard error {fmt_value(nc.se)}, measured (kind measured: the store's reference "
            f"noise) as "
            f"sqrt(MS_interaction / n) from {nc.origin}; its runs' own se range to "
            f"{fmt_value(nc.se_max or nc.se)} (the model's sd / sqrt(n) would be {fmt_value(nc.model_se)})"
            + (f"; not the stored archive's: {nc.unavailable}" if nc.unavailable else "")
        )
    if nc.source == "bound":
        return (
            f"the standard error {fmt_value(nc.se)}, a bound (kind bound): {nc.origin}; it is an "
            f"upper bound, so the chance answers are conservative (the model's sd / sqrt(n) "
            f"would be {fmt_value(nc.model_se)}, --se model)"
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
            f"the standard error {fmt_value(nc.se)} measured as sqrt(MS_interaction / n) from the "
            f"system x topic interaction of {pt.what} (kind measured) "
            f"({'asked with --se interaction' if nc.asked == 'interaction' else 'the default where per-topic scores are stored'}; "
            f"the model's sd / sqrt(n) would be {fmt_value(nc.model_se)}); check: F = "
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
        f"the model's standard error sd / sqrt(n) = {fmt_value(nc.sd)} / sqrt({nc.n_model:,.0f}) = "
        f"{fmt_value(nc.se)} over {n} ({why}); it is not a measured standard error: give one "
        "measured on per-topic scores with --se VALUE"
    )


def reference_sentence(nc: NoiseChoice, n_results: int) -> str:
    """The reference model stated once, as what it is, with its numbers."""
    ratio = nc.sd / nc.se
    spread = (
        f"the {n_results} published results spread with sd {fmt_value(nc.sd)}, {ratio:.1f} times "
        + (
            "that (sqrt(n) by construction) because they are not equally good"
            if nc.source == "model"
            else "that, because they are not equally good"
        )
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
