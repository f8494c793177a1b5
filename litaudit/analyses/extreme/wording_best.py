"""The sentences of `audit best` and `audit history` (Carterette, SIGIR 2015).

The threshold of the max each used (Normal, or resampled from a stored archive's residuals:
:func:`resampled_max_phrase`, which a claim's answer quotes too), the null of N equally good
systems where it is false by inspection, and what a history's reference uses.
"""

from __future__ import annotations

from litaudit import defaults
from litaudit.analyses.extreme.wording import fmt_value
from litaudit.analyses.wording import sci
from litaudit.stats.calibrated_max import MixedNoiseMax
from litaudit.stats.noise import SpreadCheck


def resampled_max_phrase(m: MixedNoiseMax, claim: str, *, with_p: bool = True) -> str:
    """'0.3100 is above 0.2569, the value that the best of 79 ... resampled from the
    archive's residuals (...; p = ...)' (:func:`litaudit.stats.calibrated_max.resampled_max`);
    no p where the null is false by inspection."""
    p = f"; p = {m.p_value:.3g}, +1 rule" if with_p else ""
    return (
        f"{claim} {'is' if m.value > m.threshold else 'is not'} above {fmt_value(m.threshold)}, the "
        f"value that the best of {m.n_draws} equally good systems exceeds with probability "
        f"{m.alpha:g}, resampled from the stored run archive's residuals (each system one of "
        f"its {m.n_runs} runs drawn at random, its residuals over the {m.n_topics} topics "
        f"resampled; {m.trials:,} replications, seed {m.seed}, Monte Carlo se "
        f"{m.threshold_se:.4f}{p})"
    )


def best_threshold_sentence(
    m: MixedNoiseMax, values, normal_threshold: float, spread: SpreadCheck | None
) -> str:
    """`audit best` with a stored archive: the threshold of the max it used."""
    n_above = sum(1 for v in values if v > m.threshold)
    inspected = spread is not None and spread.false_by_inspection
    best = resampled_max_phrase(m, "the best " + fmt_value(m.value), with_p=not inspected)
    return (
        f"Threshold of the max used: {best}; {n_above} of the {len(values)} published "
        f"results are above it. The table's {fmt_value(normal_threshold)} is the Normal threshold "
        "on the measured se, one se for every run."
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
        f"published results spread with sd {fmt_value(spread.sd)}, {spread.ratio:.1f} times the "
        f"largest standard error {fmt_value(spread.se_max)} one of them can have (at least "
        f"{spread.min_ratio:g} times: probability below {sci(defaults.P_FLOOR)} under that "
        f"null); {n_pass} of the {n} published results pass the threshold of the max "
        f"{fmt_value(threshold)}, which says only that they are not equally good."
    )


def history_chance_sentence(spread: SpreadCheck | None) -> str | None:
    """`audit history`: the null is false by inspection for all the results (None when it
    is not, or under the model's se)."""
    if spread is None or not spread.false_by_inspection:
        return None
    return (
        f"Against chance: the null of {spread.n_results} equally good systems is false by "
        f"inspection for all the results: they spread with sd {fmt_value(spread.sd)}, "
        f"{spread.ratio:.1f} times the largest standard error {fmt_value(spread.se_max)} one of "
        f"them can have (at least {spread.min_ratio:g} times: probability below "
        f"{sci(defaults.P_FLOOR)} under that null). A step's p says how rarely the best of "
        "that many equals reaches its record, which these systems are not."
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
