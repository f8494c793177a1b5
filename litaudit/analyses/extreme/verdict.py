"""A claim's verdict: one line per question a reviewer asks, each a plain answer with the
figure behind it (issue 32, item 1).

The questions, in order: is the claim's run sound (only when it is not: judged topics
missing, a copy of an archived run)? is the claim above the record (and what the record
covers)? is it explained by chance? is its baseline weak? does its run reproduce the printed
value? and, for each run it was compared with topic by topic, is it better, worse or not
distinguishable? Each line is made from the claim audit's own numbers; the chance line is
the audit's own chance sentence (:func:`litaudit.analyses.extreme.wording_claim.chance_sentence`,
as stored in its answers), so the verdict never says more or other than the audit. The
long explanations follow the verdict in every output.

No line contradicts another: the record line takes one position (the reference model's
band with the sd; the robust spread, where it changes the standing, is said as the
condition it is), and a direction (above, below, higher, lower) is always stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litaudit.analyses.extreme.baselines_wording import verdict_text
from litaudit.analyses.extreme.claim_evidence import ClaimEvidence
from litaudit.analyses.extreme.claim_evidence_wording import run_check_sentence
from litaudit.analyses.extreme.claim_run import RunEvaluation
from litaudit.analyses.extreme.same_topic import Comparison, SameTopic
from litaudit.analyses.extreme.wording import cited
from litaudit.analyses.extreme.wording_claim import band_place
from litaudit.analyses.wording import printed_number


@dataclass(frozen=True, kw_only=True)
class VerdictLine:
    """One answer: ``question`` (run | record | coverage | chance | baseline | reproduces |
    same-topic), ``label`` as a reviewer reads it ('Above the record?'), ``answer`` the
    plain answer ('yes', 'no', 'worse', 'not distinguishable', ...) and ``text`` the
    figure behind it."""

    question: str
    label: str
    answer: str
    text: str

    def line(self) -> str:
        if not self.answer:
            return f"{self.label} {self.text}"
        return f"{self.label} {self.answer[0].upper()}{self.answer[1:]}: {self.text}"


def _f(x: float) -> str:
    return f"{x:.4f}"


def record_line(rep) -> VerdictLine:
    """Above the record? With how many published results are at or above the claim and
    what the reference model's noise allows (the record's band, or the claim's)."""
    a, holder = rep.stats, rep.record_holder
    r, iv = a.record, a.interval
    claim = rep.value_text or _f(rep.value)
    who = f"{printed_number(holder.value_text)} ({holder.system}, {_cited(holder)})"
    gap = abs(r.value - r.record)
    n = a.reference.n_results
    at = (
        "no published result is at or above it"
        if r.n_at_or_above == 0
        else f"{r.n_at_or_above} of the {n} published results "
        f"{'is' if r.n_at_or_above == 1 else 'are'} at or above it"
    )
    cov = f"{round(100 * iv.coverage)}%"
    if r.standing == "equal":
        answer, text = "no, equal", f"{claim} equals the record {who}; {at}"
    elif r.standing.startswith("above"):
        answer = "yes"
        noise = (
            f"the record lies within the claim's {cov} band [{_f(iv.lower)}, {_f(iv.value)}], "
            f"a gap picking the best of {a.chance.n_draws} equally good systems produces"
            if r.record_in_claim_interval
            else f"the record lies below the claim's {cov} band [{_f(iv.lower)}, "
            f"{_f(iv.value)}], a gap wider than picking the best of {a.chance.n_draws} equally "
            "good systems produces"
        )
        text = f"{claim} is {_f(gap)} above the record {who}; {at}; {noise}"
    else:
        answer = "no"
        lo = r.record_interval.lower
        noise = (
            f"it lies within the record's {cov} band [{_f(lo)}, {_f(r.record)}]: not "
            f"distinguishable from the record under the reference model"
            if r.claim_in_record_interval
            else f"it lies below the record's {cov} band [{_f(lo)}, {_f(r.record)}]"
        )
        text = f"{claim} is {_f(gap)} below the record {who}; {at}; {noise}"
    run = None if rep.evidence is None else rep.evidence.run
    if run is not None and run.reproduces is False:
        text += f" (the value as claimed; its run gives {run.compared_text}: see below)"
    robust = getattr(rep, "robust", None)
    if robust is not None and robust.changes:
        rr = robust.record
        text += f" (with the robust spread of the published results instead of their sd, {band_place(rr)})"
    return VerdictLine(question="record", label="Above the record?", answer=answer, text=text)


def _cited(r) -> str:

    return cited(r)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


def chance_line(answers: tuple[str, ...]) -> VerdictLine | None:
    """Beyond chance? The audit's own chance sentence (wording.chance_sentence, stored in
    its answers): its first sentence that carries a figure, with the ones before it."""
    said = next((s for s in answers if s.startswith("Against chance")), None)
    if said is None:
        return None
    body = said.split(":", 1)[1].strip() if ":" in said else said
    parts = _SENTENCE_END.split(body)
    kept: list[str] = []
    for p in parts:
        kept.append(p)
        if re.search(r"\d", p):
            break
    text = " ".join(kept).rstrip(".")
    low = text.lower()
    if low.startswith("uninformative"):
        answer = "not decidable"
    elif "false by inspection" in low:
        answer = "not decidable"
    elif " is not above " in low:
        answer = "within chance"
    elif " is above " in low:
        answer = "not explained by chance"
    else:
        answer = "see below"
    return VerdictLine(question="chance", label="Against chance?", answer=answer, text=text)


def baseline_line(b) -> VerdictLine | None:
    """Is the baseline weak? The standing's own judgement with its figure."""
    if b is None or b.value is None:
        return None

    answer, text = verdict_text(b)
    return VerdictLine(question="baseline", label="Baseline weak?", answer=answer, text=text)


def reproduces_line(r: RunEvaluation | None) -> VerdictLine | None:
    """Does the run reproduce the printed value? (Only with a run and a printed claim.)"""
    if r is None or r.reproduces is None or r.claimed_text is None:
        return None
    over = (
        f"over all {r.n_qrels_topics} judged topics, {r.n_missing} missing as 0"
        if r.n_missing
        else f"over {r.n_topics} topics"
    )
    shown = f"{r.compared_value:.6f}".rstrip("0")
    if r.reproduces:
        text = f"run {r.tag} gives {shown} {over}, {r.rounded} to the claim's {r.digits} digits"
        return VerdictLine(
            question="reproduces",
            label=f"Run reproduces {r.claimed_text}?",
            answer="yes",
            text=text,
        )
    d = r.difference or 0.0
    text = (
        f"run {r.tag} gives {shown} {over}, {r.rounded} to the claim's {r.digits} digits: "
        f"{_f(abs(d))} {'higher' if d > 0 else 'lower'} than printed "
        f"({abs(r.difference_units or 0.0):.1f} units of the last digit)"
    )
    return VerdictLine(
        question="reproduces", label=f"Run reproduces {r.claimed_text}?", answer="no", text=text
    )


_WHY = {"record": "the record's run", "best run": "the archive's best run", "against": "run"}


def comparison_line(c: Comparison, st: SameTopic) -> VerdictLine:
    """Against one run on the same topics: better, worse or not distinguishable, with the
    direction of the mean difference always said."""
    pt = c.paired
    sig_t = c.holm_t is not None and c.holm_t <= st.alpha
    sig_r = c.holm_randomization <= st.alpha
    direction = "higher" if pt.mean > 0 else "lower" if pt.mean < 0 else "equal"
    lvl = f"{round(100 * pt.level)}%"
    diff = (
        f"mean {pt.mean:+.4f} ({direction}; {lvl} CI [{pt.low:+.4f}, {pt.high:+.4f}]), "
        f"wins/ties/losses {pt.wins}/{pt.ties}/{pt.losses}"
    )
    if sig_t and sig_r and pt.mean != 0:
        answer = "better" if pt.mean > 0 else "worse"
        how = f"significant by both tests at {st.alpha:g} after Holm"
    else:
        answer = "not distinguishable"
        how = (
            f"significant by the {'t-test' if sig_t else 'randomization test'} only"
            if sig_t or sig_r
            else "significant by neither test"
        ) + f" at {st.alpha:g} after Holm"
    return VerdictLine(
        question="same-topic",
        label=f"Against {_WHY.get(c.why, 'run')} {c.tag} on {pt.n} topics?",
        answer=answer,
        text=f"{diff}; {how}",
    )


def run_line(ev: ClaimEvidence | None) -> VerdictLine | None:
    """The run check, first: judged topics missing, a copy of an archived run."""
    if ev is None or ev.run is None:
        return None
    said = run_check_sentence(ev.run)
    if said is None:
        return None
    body = said.split(": ", 1)[1].rstrip(".")
    problems = []
    if ev.run.n_missing:
        problems.append("topics missing")
    if ev.run.identical:
        problems.append("a copy of an archived run")
    return VerdictLine(
        question="run",
        label=f"Run {ev.run.file} sound?",
        answer="no, " + " and ".join(problems),
        text=body,
    )


def claim_verdict(rep) -> tuple[VerdictLine, ...]:
    """The verdict of a claim audit (:class:`litaudit.analyses.extreme.best.ClaimReport`),
    one line per question asked, in order."""
    ev = rep.evidence
    out: list[VerdictLine | None] = [run_line(ev), record_line(rep)]
    cover = getattr(rep, "coverage", None)
    if cover is not None:
        out.append(
            VerdictLine(question="coverage", label="What the record covers:", answer="", text=cover)
        )
    out.append(chance_line(rep.answers))
    if ev is not None:
        out.append(baseline_line(ev.baseline))
        out.append(reproduces_line(ev.run))
        if ev.same_topic is not None:
            out += [comparison_line(c, ev.same_topic) for c in ev.same_topic.comparisons]
    return tuple(x for x in out if x is not None)
