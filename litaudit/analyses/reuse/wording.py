"""The reusability verdict in words (:mod:`litaudit.analyses.reuse.verdict`): string formatting
of its typed result, no statistic. :func:`decision_sentence` is the one sentence a
collection builder can act on, the first line of `reuse verdict` and of the report's
reusability section; the renderers use these functions so that terminal and report say
the same words.
"""

from __future__ import annotations

from litaudit.analyses.reuse.decision import NO_DEPTH, NO_POOLS, NOT_ENOUGH
from litaudit.stats.holdout_intervals import INCONCLUSIVE, LOSE, REUSABLE
from litaudit.stats.holdout_shift import BOOT_T, KNOWN_MEAN, HoldoutShift
from litaudit.stats.reuse_sites import FEW_SITES as UNDECIDED_FEW

NOISE_SOURCE = "Voorhees et al. 2014"
FEW_SITES = 8  # ours: under 8 sites the site-level answer is about these sites only


def outcome_words(outcome: str, margin_pct: float) -> str:
    """The outcome as the verdict prints it ("reusable within 1%", ...)."""
    if outcome == REUSABLE:
        return f"reusable within {margin_pct:g}%"
    if outcome == LOSE:
        return f"new systems lose more than {margin_pct:g}%"
    if outcome == UNDECIDED_FEW:
        return "undecided: too few sites"
    return outcome


def few_sites_words(r: HoldoutShift) -> str:
    """Why a new site's runs are undecided though their interval lies within the margin
    (:data:`~litaudit.stats.reuse_sites.FEW_SITES`)."""
    return (
        f'undecided, {len(r.sites)} sites are too few to say "reusable" about a new site '
        f"(skewed site effects: about {r.new_site_min_sites} sites would decide it)"
    )


def _pct(x: float) -> str:
    return f"{abs(x):.2f}"


def _signed(x: float) -> str:
    return f"{_pct(x)}% {'lower' if x < 0 else 'higher'}"


def _ci_words(est: float, lo: float, hi: float, level: float, measure: str | None) -> str:
    """ "score 1.23% lower in AP (90% CI 0.98-1.49%)"."""
    level_s = f"{100 * level:.0f}% CI"
    if est == 0 and lo == hi == 0:
        return f"score the same ({level_s} 0.00-0.00%)"
    way = "lower" if est < 0 else "higher"
    if hi <= 0:
        ci = f"{level_s} {_pct(hi)}-{_pct(lo)}%"
    elif lo >= 0:
        ci = f"{level_s} {_pct(lo)}-{_pct(hi)}%"
    else:
        ci = f"{level_s} {_pct(lo)}% lower to {_pct(hi)}% higher"
    return f"score {_pct(est)}% {way}{f' in {measure}' if measure else ''} ({ci})"


def shift_words(r: HoldoutShift, measure: str | None = None) -> str:
    """ "score 1.23% lower (90% CI 0.98-1.49%)": the shift and its interval in words
    ("score 1.23% lower in AP (...)" with the ``measure``)."""
    return _ci_words(r.shift_pct, r.ci.low, r.ci.high, r.level, measure)


def these_words(outcome: str, margin_pct: float) -> str:
    """The outcome of these sites' runs in words."""
    if outcome == REUSABLE:
        return f"within {margin_pct:g}%"
    if outcome == LOSE:
        return f"lose more than {margin_pct:g}%"
    if outcome == UNDECIDED_FEW:
        return "undecided: too few sites"
    return outcome


def depth_sentence(depth: int | None, r: HoldoutShift, measure: str | None = None) -> str:
    """One row's finding as a sentence, with its outcome: a new site's runs (sites and
    topics as samples) and these sites' runs (topics the only sample); these sites'
    alone for a row stored before the new-site interval."""
    where = f"At pool depth {depth}, " if depth is not None else "With the given scores, "
    noise = f"evaluation noise is {r.margin_pct:g}% ({NOISE_SOURCE})"
    new, decided = r.new_site_ci, r.new_site_outcome
    if new is None or decided is None:
        return (
            f"{where}runs of a site left out of judging {shift_words(r, measure)} on the "
            f"topics it did not judge; {noise}: {outcome_words(r.outcome, r.margin_pct)}."
        )
    n = len(r.sites)
    if decided == UNDECIDED_FEW:  # the decision is about these sites' runs
        return (
            f"{where}these {n} sites' runs left out of judging {shift_words(r, measure)} on "
            f"the topics they did not judge, the topics the only sample; {noise}: "
            f"{outcome_words(r.outcome, r.margin_pct)} for these {n} sites' runs. A new "
            f"site's runs would {_ci_words(new.estimate, new.low, new.high, r.level, None)}, "
            f"the sites and topics taken as samples: {few_sites_words(r)}."
        )
    return (
        f"{where}a new site's runs left out of judging would "
        f"{_ci_words(new.estimate, new.low, new.high, r.level, measure)} on the topics the "
        f"site did not judge, the sites and topics taken as samples; {noise}: "
        f"{outcome_words(decided, r.margin_pct)}. These {n} sites' runs "
        f"{shift_words(r)}, the topics the only sample: {these_words(r.outcome, r.margin_pct)}."
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


def site_counts(r: HoldoutShift) -> tuple[int, int, int]:
    """Sites whose runs lose more than the margin, are within it, are undecided (each
    by its own interval over topics)."""
    m = r.margin_pct
    lose = sum(s.high < -m for s in r.sites)
    within = sum(-m < s.low and s.high < m for s in r.sites)
    return lose, within, len(r.sites) - lose - within


def sites_sentence(r: HoldoutShift) -> str:
    """Sites as the unit: how many sites' runs lose more than the margin, are within it,
    are undecided (each by its own interval over topics), and the interval over sites."""
    n = len(r.sites)
    lose, within, undecided = site_counts(r)
    level = f"{100 * r.level:.0f}% CI"
    head = (
        f"Sites as the unit, each by its own {level} over topics: of {n} sites, {lose} "
        f"lose more than {r.margin_pct:g}%, {within} are within {r.margin_pct:g}%, "
        f"{undecided} are undecided"
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
    if r.new_site_method is not None:
        how += f"; a new site's: {r.new_site_method}"
        if r.new_site_min_sites is not None:
            how += f', "reusable" only from {r.new_site_min_sites} sites'
    return f"Interval: {how}."


def new_site_method_words(tests) -> str:
    """How the rows' new-site intervals were computed, for a table's caption ("two-way
    random effects" for rows stored before the skew-safe interval): the sites and topics
    as samples, with the method the rows name and the site floor of a "reusable"."""
    methods = sorted({m for t in tests if (m := t.result.new_site_method) is not None})
    floors = [f for t in tests if (f := t.result.new_site_min_sites) is not None]
    how = "; ".join(methods) if methods else "two-way random effects"
    if floors:
        how += f'; "reusable" only from {min(floors)} sites'
    return f"the sites and topics as samples ({how})"


def _needed(est: float, lo: float, hi: float, margin: float, n: int) -> int | None:
    """The sample size that would make the interval narrow enough to decide at this
    estimate and this variance (half-width shrinking as 1 / sqrt(n)); None: none does
    (the estimate sits on the margin)."""
    half = (hi - lo) / 2
    gap = (-margin - est) if est < -margin else (margin - abs(est))
    if not (gap > 0 and half > 0):
        return None
    return int(-(-n * (half / gap) ** 2 // 1))


def unjudged_words(v) -> str:
    """The shift with measures that tolerate unjudged documents, computed on the same
    archive and pools (``v.unjudged``; "" when not computed): "with bpref the shift is
    -0.40% [-0.90, +0.10]: within 1% for these sites' runs (a new site's: ...)"."""
    if not v.unjudged or v.decision is None:
        return ""
    level = f"{100 * v.decision.result.level:.0f}% CI"
    parts = []
    for u in v.unjudged:
        c = u.ci
        name = "AP on condensed lists" if u.measure.startswith("AP(judged_only") else u.measure
        text = f"with {name} the shift is {c.estimate:+.2f}% [{c.low:+.2f}, {c.high:+.2f}]"
        if not u.measure.startswith("Judged@"):
            words = these_words(u.outcome, v.margin_pct)
            if c.low > v.margin_pct:  # wholly above the margin: the measure favours them
                words = f"gain more than {v.margin_pct:g}% (inconclusive)"
            text += f": {words} for these sites' runs"
            n = u.new_site_ci
            if n is not None and u.new_site_outcome is not None:
                new = these_words(u.new_site_outcome, v.margin_pct)
                if n.low > v.margin_pct:
                    new = f"gain more than {v.margin_pct:g}% (inconclusive)"
                text += f" (a new site's [{n.low:+.2f}, {n.high:+.2f}]: {new})"
        parts.append(text)
    same = any(u.new_site_method is not None for u in v.unjudged)
    return (
        "report a measure that tolerates unjudged documents beside "
        f"{v.measure} (computed on the same archive at depth {v.unjudged[0].depth}, {level}, "
        "% of each measure's mean"
        + (f"; a new site's interval computed as {v.measure}'s" if same else "")
        + "): "
        + "; ".join(parts)
    )


def next_step(v) -> str:
    """What to do next, for every outcome, with the figures behind it (``v``: a
    :class:`~.verdict.Verdict`)."""

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
        text = (
            f"Next step: the collection can be reused for {m} at pool depth {v.depth}; report "
            f"new systems' {m} with the pool depth and its source ({v.depth_source})"
        )
        r = v.decision.result if v.decision is not None else None
        if r is not None and r.new_site_outcome == UNDECIDED_FEW:
            text += (
                f"; this holds for runs like these {len(r.sites)} sites'; to vouch for a new "
                f"site's, run the verdict on an archive of about {r.new_site_min_sites} sites"
            )
        return text + "."
    if v.outcome == LOSE:
        tail = f"; {deeper}" if deeper else "; no depth computed here makes it reusable"
        return (
            f"Next step: do not compare new systems' {m} with the pooled runs' as is: judge "
            f"their unjudged top documents (Judged@10 shows how many there are: `litaudit "
            f"runs eval -m Judged@10`), or report a measure that tolerates unjudged "
            f"documents (bpref, condensed lists) beside {m}{tail}."
        )
    if v.outcome == INCONCLUSIVE:
        r = v.decision.result
        c, n, unit = r.ci, r.topics, "topics"
        if r.new_site_ci is not None:  # the decision is a new site's: more sites
            c, n, unit = r.new_site_ci, len(r.sites), "sites"
        need = _needed(c.estimate, c.low, c.high, r.margin_pct, n)
        if unit == "sites" and r.new_site_method is not None:
            need = r.new_site_needs  # with the floor on the sites a "reusable" needs
        more = (
            f"about {need} {unit} at this variance would decide it ({n} now, the interval "
            f"taken to narrow as 1/sqrt({unit}))"
            if need is not None
            else f"the estimate lies on the margin: no number of {unit} decides it"
        )
        return "Next step: " + "; or ".join(x for x in (more, deeper, unjudged_words(v)) if x) + "."
    if v.outcome == NO_DEPTH:
        return (
            f"Next step: record the pool depth with its source (`litaudit collections depth "
            f"{v.collection_id} K --citation ...`) or give --depth K; the rows below show the "
            "shift at each depth."
        )
    if v.outcome == NO_POOLS:
        return "Next step: import the runs and qrels (`litaudit runs import`) and decide on them."
    if v.outcome == NOT_ENOUGH:
        return "Next step: an archive of runs from at least 3 sites is needed for a decision."
    return ""
