"""The reusability verdict in words (:mod:`litaudit.analyses.reuse.verdict`): string formatting
of its typed result, no statistic. :func:`decision_sentence` is the one sentence a
collection builder can act on, the first line of `reuse verdict` and of the report's
reusability section; the renderers use these functions so that terminal and report say
the same words.
"""

from __future__ import annotations

from litaudit.analyses.reuse.decision import NO_DEPTH, NO_POOLS
from litaudit.stats.holdout_shift import (
    BOOT_T,
    INCONCLUSIVE,
    KNOWN_MEAN,
    LOSE,
    REUSABLE,
    HoldoutShift,
)

NOISE_SOURCE = "Voorhees et al. 2014"
FEW_SITES = 8  # ours: under 8 sites the site-level answer is about these sites only


def outcome_words(outcome: str, margin_pct: float) -> str:
    """The outcome as the verdict prints it ("reusable within 1%", ...)."""
    if outcome == REUSABLE:
        return f"reusable within {margin_pct:g}%"
    if outcome == LOSE:
        return f"new systems lose more than {margin_pct:g}%"
    return outcome


def _pct(x: float) -> str:
    return f"{abs(x):.2f}"


def _signed(x: float) -> str:
    return f"{_pct(x)}% {'lower' if x < 0 else 'higher'}"


def shift_words(r: HoldoutShift, measure: str | None = None) -> str:
    """ "score 1.23% lower (90% CI 0.98-1.49%)": the shift and its interval in words
    ("score 1.23% lower in AP (...)" with the ``measure``)."""
    level = f"{100 * r.level:.0f}% CI"
    lo, hi = r.ci.low, r.ci.high
    if r.shift_pct == 0 and lo == hi == 0:
        return f"score the same ({level} 0.00-0.00%)"
    way = "lower" if r.shift_pct < 0 else "higher"
    if hi <= 0:
        ci = f"{level} {_pct(hi)}-{_pct(lo)}%"
    elif lo >= 0:
        ci = f"{level} {_pct(lo)}-{_pct(hi)}%"
    else:
        ci = f"{level} {_pct(lo)}% lower to {_pct(hi)}% higher"
    return f"score {_pct(r.shift_pct)}% {way}{f' in {measure}' if measure else ''} ({ci})"


def depth_sentence(depth: int | None, r: HoldoutShift, measure: str | None = None) -> str:
    """One row's finding as a sentence, with its outcome."""
    where = f"At pool depth {depth}, " if depth is not None else "With the given scores, "
    return (
        f"{where}runs of a site left out of judging {shift_words(r, measure)} on the topics it did "
        f"not judge; evaluation noise is {r.margin_pct:g}% ({NOISE_SOURCE}): "
        f"{outcome_words(r.outcome, r.margin_pct)}."
    )


def decision_sentence(v) -> str:
    """The first line of `reuse verdict` and of the report's reusability section: one
    sentence a collection builder can act on (``v``: a :class:`~.verdict.Verdict`)."""
    if v.decision is not None:
        text = depth_sentence(v.decision.depth, v.decision.result, v.measure)
        if v.topics:
            text = (
                f"On topics {v.topics} ({v.decision.result.topics} topics): "
                + text[0].lower()
                + text[1:]
            )
        return text
    name = v.collection_id or "these scores"
    if v.outcome == NO_DEPTH and v.tests:
        lo = min(v.tests, key=lambda t: t.result.shift_pct)
        hi = max(v.tests, key=lambda t: t.result.shift_pct)
        return (
            f"No decision: the pool depth of {name} is not recorded, so no depth is the "
            f"collection's (give --depth); runs of a site left out of judging score from "
            f"{_signed(hi.result.shift_pct)} (depth {hi.depth}) to "
            f"{_signed(lo.result.shift_pct)} (depth {lo.depth}) on the topics it did not "
            f"judge, one row per depth below; evaluation noise is {v.margin_pct:g}% "
            f"({NOISE_SOURCE})."
        )
    if v.outcome == NO_POOLS:
        return (
            f"No decision from {name}: one full-judgment score per run and topic does not "
            "depend on which sites are held out of judging, so the shift is 0 by "
            "construction and says nothing about reuse (a decision needs a run archive "
            "with its qrels: --collection); the agreement analysis below is descriptive."
        )
    reason = "; ".join(v.notes[:1]) or "no hold-out shift could be computed"
    return f"Not enough data for a reusability decision on {name}: {reason}."


def sites_sentence(r: HoldoutShift) -> str:
    """Sites as the unit: the interval over sites and the sites losing more than the
    margin (each by its own interval over topics)."""
    n = len(r.sites)
    losing = sum(s.loses for s in r.sites)
    level = f"{100 * r.level:.0f}% CI"
    head = f"Sites as the unit: {losing} of {n} sites lose more than {r.margin_pct:g}% " + (
        f"(their own {level} over topics below -{r.margin_pct:g}%)"
    )
    if r.site_ci is not None:
        c = r.site_ci
        head += (
            f"; the mean over sites is {c.estimate:+.2f}% ({level} {c.low:+.2f}% to "
            f"{c.high:+.2f}%, {c.df} df)"
        )
    if n < FEW_SITES:
        head += f"; with {n} sites this answer is about these sites, not sites in general"
    return head + "."


def interval_sentence(r: HoldoutShift) -> str:
    """How the interval of the relative shift was computed, with its se and the se with
    the mean score taken as known (docs/STATISTICS.md, reusability)."""
    if r.interval == KNOWN_MEAN:
        return (
            "Interval: the mean score taken as known (stored by a version before the "
            "delta method; run the verdict again for the interval with it estimated)."
        )
    how = r.interval
    if r.interval == BOOT_T:
        how += f" ({r.resamples} resamples, seed {r.boot_seed}; Efron and Tibshirani 1993)"
    if r.se_pct is not None and r.se_known_mean_pct is not None:
        how += (
            f"; se of the relative shift {r.se_pct:.3f}% by the delta method, "
            f"{r.se_known_mean_pct:.3f}% with the mean score taken as known"
        )
    return f"Interval: {how}."


def _topics_needed(r: HoldoutShift) -> int | None:
    """Topics that would make the interval narrow enough to decide at this estimate and
    this variance (half-width shrinking as 1 / sqrt(N)); None: no number of topics does
    (the estimate sits on the margin)."""
    half = (r.ci.high - r.ci.low) / 2
    gap = (
        (-r.margin_pct - r.shift_pct)
        if r.shift_pct < -r.margin_pct
        else (r.margin_pct - abs(r.shift_pct))
    )
    if not (gap > 0 and half > 0):
        return None
    return int(-(-r.topics * (half / gap) ** 2 // 1))


def next_step(v) -> str:
    """What to do next, for every outcome, with the figures behind it (``v``: a
    :class:`~.verdict.Verdict`)."""
    from litaudit.analyses.reuse.decision import NO_POOLS, NOT_ENOUGH

    m = v.measure
    deeper = ""
    if v.decision is not None:
        ok = [
            t
            for t in v.tests
            if t.depth and t.depth > (v.depth or 0) and t.result.outcome == REUSABLE
        ]
        if ok:
            t = ok[0]
            deeper = (
                f"judging to depth {t.depth} would make it reusable within {t.result.margin_pct:g}% "
                f"(shift {t.result.shift_pct:+.2f}% at depth {t.depth}, computed on the same archive)"
            )
    if v.outcome == REUSABLE:
        return (
            f"Next step: the collection can be reused for {m} at pool depth {v.depth}; report "
            f"new systems' {m} with the pool depth and its source ({v.depth_source})."
        )
    if v.outcome == LOSE:
        tail = f"; {deeper}" if deeper else "; no depth computed here makes it reusable"
        return (
            f"Next step: do not compare new systems' {m} with the pooled runs' as is: judge "
            f"their unjudged top documents, or report a measure that tolerates unjudged "
            f"documents (bpref, condensed lists) beside {m}{tail}."
        )
    if v.outcome == INCONCLUSIVE:
        r = v.decision.result
        need = _topics_needed(r)
        more = (
            f"about {need} topics at this variance would decide it ({r.topics} now)"
            if need is not None
            else "the estimate lies on the margin: no number of topics decides it"
        )
        return "Next step: " + "; or ".join(x for x in (more, deeper) if x) + "."
    if v.outcome == NO_DEPTH:
        return (
            f"Next step: record the pool depth with its source (`litaudit collections depth "
            f"{v.collection_id} K --source ...`) or give --depth K; the rows below show the "
            "shift at each depth."
        )
    if v.outcome == NO_POOLS:
        return "Next step: import the runs and qrels (`litaudit runs import`) and decide on them."
    if v.outcome == NOT_ENOUGH:
        return "Next step: an archive of runs from at least 3 sites is needed for a decision."
    return ""
