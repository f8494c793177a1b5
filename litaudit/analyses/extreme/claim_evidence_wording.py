"""A claim's evidence in words (issue 21): its run checked against the claimed value
(:func:`run_check_sentence`, which the verdict's "run" line quotes, and
:func:`run_sentence`), each same-topic comparison with an archive run
(:func:`comparison_sentence`), and all of them in order (:func:`evidence_sentences`, from a
:class:`~litaudit.analyses.extreme.claim_evidence.ClaimEvidence`): what was computed, and
nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.extreme.claim_run import RunEvaluation
from litaudit.analyses.extreme.same_topic import SameTopic
from litaudit.analyses.extreme.wording import fmt_value
from litaudit.analyses.wording import fmt_p

if TYPE_CHECKING:
    from litaudit.analyses.extreme.claim_evidence import ClaimEvidence


def _p(p: float | None) -> str:

    return "-" if p is None else fmt_p(p, p < defaults.P_FLOOR, defaults.P_FLOOR)


def run_check_sentence(r: RunEvaluation) -> str | None:
    """What is wrong with the claim's run before it is believed (None when nothing is):
    judged topics it lacks, with both means and which one stands for it; archive runs it
    is a copy of."""
    parts = []
    if r.n_missing and r.value_all is not None:
        parts.append(
            f"it lacks {r.n_missing} of the {r.n_qrels_topics} judged topics: {r.measure} "
            f"{r.value_all:.4f} over all {r.n_qrels_topics} with those as 0 (trec_eval -c), "
            f"the mean compared here, and {r.value:.4f} over its {r.n_topics} topics"
        )
    if r.identical:
        names = ", ".join(r.identical)
        on = f"on the {r.n_topics} topics it was evaluated on" if r.n_missing else "on every topic"
        parts.append(
            f"its per-topic {r.measure} equals archived run{'s' if len(r.identical) > 1 else ''}"
            f" {names} {on}"
        )
    if not parts:
        return None
    return f"Run check ({r.file}): " + "; ".join(parts) + "."


def run_sentence(r: RunEvaluation, value_from_run: bool) -> str:
    """The claim's run against the claimed value."""
    shown = r.compared_text if r.n_missing else r.value_text
    over = (
        f"over all {r.n_qrels_topics} judged topics, the {r.n_missing} it lacks as 0 "
        f"({r.value_text} over its {r.n_topics})"
        if r.n_missing
        else f"over {r.n_topics} of the {r.n_qrels_topics} judged topics"
    )
    head = f"{r.measure} {shown} {over} (run {r.tag}, file {r.file}, evaluated as trec_eval does)"
    if value_from_run or r.reproduces is None:
        return f"The claim's value is its run's: {head}."
    if r.reproduces:
        return (
            f"The claim's run reproduces the claimed {r.claimed_text}: {head}, "
            f"{r.rounded} to the claim's {r.digits} digits."
        )
    d = r.difference or 0.0
    return (
        f"The claim's run does not reproduce the claimed {r.claimed_text}: {head}, "
        f"{r.rounded} to the claim's {r.digits} digits, {fmt_value(abs(d))} "
        f"{'higher' if d > 0 else 'lower'} ({abs(r.difference_units or 0.0):.1f} units of "
        "the last digit)."
    )


_WHY = {"record": "the record's run", "best run": "the archive's best run", "against": "run"}


def comparison_sentence(c, st: SameTopic) -> str:
    """One same-topic comparison in words."""
    pt, rt = c.paired, c.randomization
    lvl = f"{round(100 * pt.level)}%"
    how = (
        f"exact over {rt.n_assignments:.0f} sign assignments"
        if rt.method == "exact"
        else f"{rt.permutations:,} random sign assignments, seed {rt.seed}"
    )
    tt = "no variance" if pt.t is None else f"t = {pt.t:.2f} (df {pt.df}), {_p(pt.p_value)}"
    sig_t = c.holm_t is not None and c.holm_t <= st.alpha
    sig_r = c.holm_randomization <= st.alpha
    verdict = (
        "significant by both tests"
        if sig_t and sig_r
        else "significant by the t-test only"
        if sig_t
        else "significant by the randomization test only"
        if sig_r
        else "significant by neither test"
    )
    # the direction, always (issue 32): a significant difference is never said without it
    side = "higher" if pt.mean > 0 else "lower" if pt.mean < 0 else "equal"
    verdict = f"the claim is {side}, {verdict}"
    s = (
        f"Against {_WHY[c.why]} {c.tag} on {pt.n} topics: the claim wins {pt.wins}, ties "
        f"{pt.ties}, loses {pt.losses}; mean difference {pt.mean:+.4f} ({lvl} CI "
        f"[{pt.low:+.4f}, {pt.high:+.4f}]); paired {tt}, Holm {_p(c.holm_t)}; randomization "
        f"{_p(rt.p_value)} ({how}), Holm {_p(c.holm_randomization)}: {verdict} at "
        f"{st.alpha:g} after Holm across {len(st.comparisons)} comparison"
        f"{'s' if len(st.comparisons) != 1 else ''}."
    )
    if c.worst:
        s += (
            " Largest losses: "
            + ", ".join(f"topic {g.topic} ({g.difference:+.4f})" for g in c.worst)
            + "."
        )
    return s


def evidence_sentences(ev: ClaimEvidence) -> tuple[str, ...]:
    out: list[str] = []
    if ev.run is not None:
        check = run_check_sentence(ev.run)
        out += [check] if check else []
        out.append(run_sentence(ev.run, ev.value_from_run))
    if ev.same_topic is not None:
        out.append(f"Same-topic comparison of the claim's scores ({ev.same_topic.claim_from}):")
        out.extend(comparison_sentence(c, ev.same_topic) for c in ev.same_topic.comparisons)
    elif ev.same_topic_note:
        out.append(f"No same-topic comparison: {ev.same_topic_note}.")
    if ev.chance_se is not None and fmt_value(ev.chance_se) == fmt_value(ev.population_se):
        out.append(
            f"The chance check uses se {fmt_value(ev.chance_se)}, the {ev.chance_se_source}: "
            "at 4 decimals the se the population's audit used."
        )
    elif ev.chance_se is not None:
        out.append(
            f"The chance check uses se {fmt_value(ev.chance_se)}, the {ev.chance_se_source}, instead "
            f"of the {fmt_value(ev.population_se)} the population's audit used."
        )
    return tuple(out)
