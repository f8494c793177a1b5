"""The answers of a claim audit in plain words (Carterette, SIGIR 2015; `audit claim`).

(a) the claim against the record (where it lies against the reference model's bands), with
its sensitivity line; (b) against chance, or "false by inspection"; (c) the claim's own
interval; and :func:`claim_answers`, all of them in order with the gap, the luck and the
reference model (:mod:`litaudit.analyses.extreme.wording_noise`). A claim within the
record's band is within what picking the best of N equally good systems produces, which is
not a paired test of the claim against the record (docs/STATISTICS.md, "Claims").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from litaudit import defaults
from litaudit.analyses.extreme.noise import NoiseChoice, RecordGap, RobustCheck
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.wording import fmt_n_star, fmt_value, pct, result_label
from litaudit.analyses.extreme.wording_best import resampled_max_phrase
from litaudit.analyses.extreme.wording_noise import gap_sentence, luck_sentence, reference_sentence
from litaudit.analyses.wording import fmt_p, sci
from litaudit.stats.calibrated_max import MixedNoiseMax
from litaudit.stats.claim import ClaimAudit
from litaudit.stats.noise import Shrinkage, SpreadCheck, WinnersBias


def _count(k: int, other: bool) -> str:
    o = "other " if other else ""
    if k == 0:
        return f"no {o}published result is at or above it"
    return f"{k} {o}published result{'s are' if k != 1 else ' is'} at or above it"


def _band(lo: float, hi: float) -> str:
    return f"[{fmt_value(lo)}, {fmt_value(hi)}]"


def record_sentence(a: ClaimAudit, claim: str, record: ResultRow) -> str:
    """(a) The claim against the record, in one sentence: where it lies against the 1 - 2p
    bands of the reference model (the record's as the max of N, the claim's as the max of
    M), saying that this is what the model's noise produces and that only a paired test on
    the same topics tells the two apart."""
    r, iv, c = a.record, a.interval, a.chance
    cov = pct(iv.coverage)
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
        f"Sensitivity: with the robust spread 1.4826 x MAD = {fmt_value(rc.robust_sd)} of the "
        f"published results instead of their sd {fmt_value(a.reference.sd)} (se {fmt_value(rc.se)}), "
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
        f"each measured with standard error {fmt_value(c.se)} around the mean {fmt_value(c.mu)}, "
        f"exceeds with probability {c.alpha:g}"
    )
    if spread is not None and spread.false_by_inspection:
        return (
            f"Against chance: the null of {ref.n_results} equally good systems is false by "
            f"inspection: the published results spread with sd {fmt_value(spread.sd)}, "
            f"{spread.ratio:.1f} times the largest standard error {fmt_value(spread.se_max)} one "
            f"of them can have (at least {spread.min_ratio:g} times: under that null a "
            f"spread this wide has probability below {sci(defaults.P_FLOOR)}), so no p "
            f"and no N* are given. {claim} {'is' if c.passes else 'is not'} above "
            f"{fmt_value(c.threshold)}, {where}; {c.n_published_above} of the {ref.n_results} "
            "published results are above it: passing it says only that a result is not "
            "one of N equally good systems, which these are not."
            + (
                f" Threshold used, resampled: {resampled_max_phrase(mixed, claim, with_p=False)}."
                if mixed is not None and mixed.method == "resampled"
                else ""
            )
        )
    p = fmt_p(c.p_value, c.p_below_floor, c.p_floor)
    if c.passes:
        head = f"{claim} is above {fmt_value(c.threshold)}, {where} ({p})"
    else:
        head = (
            f"{claim} is not above {fmt_value(c.threshold)}, {where} ({p}): it is within what "
            f"the best of {c.n_draws} such systems reaches by chance"
        )
    ns = fmt_n_star(c.n_star, c.n_star_capped, c.n_star_cap)
    ns = f"N* {ns}" if ns.startswith(">") else f"N* = {ns}"
    if mixed is not None and mixed.method == "resampled":
        return (
            f"Against chance: {resampled_max_phrase(mixed, claim)}. With the Normal threshold "
            f"on the measured se instead: {head}; under it {c.expected_above_under_null:.3f} "
            f"of the {c.n_draws} draws are expected above {fmt_value(c.threshold)}; "
            f"{c.n_published_above} of the {ref.n_results} published results are above it. "
            f"{ns}: the number of experiments whose best reaches {claim} with probability "
            f"{c.alpha:g}."
        )
    runs = (
        ""
        if mixed is None
        else f" Runs differ in noise: with each system's se that of a measured reference run "
        f"drawn at random, the threshold is {fmt_value(mixed.threshold)} (Monte Carlo se "
        f"{mixed.threshold_se:.4f}, {mixed.trials:,} simulations, seed {mixed.seed}) and "
        f"{claim} {'is' if mixed.value > mixed.threshold else 'is not'} above it (p = "
        f"{mixed.p_value:.3g})."
    )
    return (
        f"Against chance: {head}. Under that null {c.expected_above_under_null:.3f} of "
        f"the {c.n_draws} draws are expected above {fmt_value(c.threshold)}; {c.n_published_above} "
        f"of the {ref.n_results} published results are above it. {ns}: the number of "
        f"experiments whose best reaches {claim} with probability {c.alpha:g}.{runs}"
    )


def interval_sentence(a: ClaimAudit, claim: str) -> str:
    """(c) The claim's own mu0 and interval."""
    iv, c = a.interval, a.chance
    drop = "" if math.isnan(iv.drop) else f", {100 * iv.drop:.1f}% lower"
    return (
        f"The claim's own interval: the lowest population mean whose best of "
        f"{c.n_draws} draws reaches {fmt_value(iv.value)} with probability {iv.p:g} is mu0 = "
        f"{fmt_value(iv.mu0)}{drop}; the claim's {pct(iv.coverage)} interval is "
        f"[{fmt_value(iv.lower)}, {fmt_value(iv.value)}]."
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
    value = fmt_value(a.value)
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
