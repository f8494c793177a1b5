"""The terminal text of the extreme-value audits (Carterette, SIGIR 2015): `audit best`,
`audit claim` and `audit matrix`, and the header every extreme-value report opens with;
`audit history` in :mod:`litaudit.render.audits_history`, `audit summary` in
:mod:`litaudit.render.audits_summary`; listed by result type in
:data:`litaudit.render.audits.RENDERERS`."""

from __future__ import annotations

import math

from litaudit import defaults
from litaudit.analyses.extreme.best import BestReport, ClaimReport
from litaudit.analyses.extreme.history import HistoryReport
from litaudit.analyses.extreme.matrix import MatrixAudit
from litaudit.analyses.extreme.wording import cited, fmt_n_star, population_sentence
from litaudit.analyses.extreme.wording_best import (
    best_chance_sentence,
    best_threshold_sentence,
)
from litaudit.analyses.extreme.wording_noise import (
    interaction_sentence,
    luck_sentence,
    reference_sentence,
    resampled_sentence,
)
from litaudit.analyses.wording import p_text
from litaudit.render import audits_evidence as evidence
from litaudit.render import audits_ranks as ranks
from litaudit.render.audits_evidence import line, wide
from litaudit.render.audits_records import winner_sentence
from litaudit.render.console import out, table


# ----------------------------------------------------------------------- audit matrix
def render_matrix(rep: MatrixAudit, audit_id: int | None) -> None:
    st = rep.stats
    line(
        f"Matrix audit: {rep.file} ({rep.measure}, {rep.n_runs} runs x {rep.n_topics} "
        f"topics{'' if rep.topics_complete else ', some cells missing'})"
    )
    ref, th, iv = st.reference, st.thresholds, st.interval
    out.print(
        table(
            "Table 2 and 3 rows",
            ["N", "n", "mean", "sd", "max", "mu0", "lower", "candidates", "max threshold", "above"],
            [
                (
                    ref.n_results,
                    ref.n_topics,
                    ref.mu,
                    ref.sd,
                    ref.maximum,
                    iv.mu0,
                    iv.lower,
                    st.n_candidates,
                    th.max_threshold,
                    th.n_above,
                )
            ],
        )
    )
    if rep.interaction is not None:
        line(interaction_sentence(rep.interaction, rep.se_source, ref.se))
    if rep.winner is not None:
        line(winner_sentence(rep.winner, rep.runs[rep.winner.winner]))
    if rep.resampled is not None:
        line(resampled_sentence(rep.resampled, th.max_threshold))
    out.print(table("Candidate best runs", ["run", "mean"], rep.candidates))


# ------------------------------------------------- audit best / claim / history / summary
def value_text(x: float | None, digits: int = 4) -> str:
    return "-" if x is None or x != x else f"{x:.{digits}f}"


def p_value_text(
    x: float | None, below: bool = False, floor: float | None = defaults.P_FLOOR
) -> str:
    """A p-value: 3 significant digits, or '< 1e-6' below its floor (defaults.P_FLOOR)."""
    return p_text(None if x is None or x != x else x, below, floor)


def _head(rep: BestReport | ClaimReport | HistoryReport, what: str, audit_id: int | None) -> str:
    """'Claim audit: Robust04 AP (papers), 249 topics  [audit #3]'."""
    aid = f"  [audit #{audit_id}]" if audit_id is not None else ""
    other = (
        f" ({rep.n_other_topics} results on other topic counts left out)"
        if rep.n_other_topics
        else ""
    )
    src = {"paper": "papers", "official": "official", None: "all sources"}[rep.source]
    return f"{what}: {rep.collection_name} {rep.measure} ({src}), {rep.n_topics} topics{other}{aid}"


def population_header(
    rep: BestReport | ClaimReport | HistoryReport,
    what: str,
    audit_id: int | None,
    *,
    method: str | None = None,
    extra: str = "",
) -> None:
    """The one header of the extreme-value reports (`audit best`, `claim`, `history`):
    what was audited, its audit id and method (``extra`` after them), then the population
    it used (:func:`litaudit.analyses.extreme.wording.population_sentence`)."""
    line(_head(rep, what, audit_id) + (f"  method: {method}" if method else "") + extra)
    line(population_sentence(rep.population))


def _method(st) -> str:
    return st.method + (f" ({st.trials} trials, seed {st.seed})" if st.trials else "")


def render_best(rep: BestReport, audit_id: int | None) -> None:
    s = rep.stats
    ref, th, iv, mx = s.reference, s.thresholds, s.interval, s.mxvd
    population_header(rep, "Best-result audit", audit_id, method=_method(s))
    if rep.coverage:
        line(f"What the record covers: {rep.coverage}.")
    wide(
        table(
            "Table 2: the published population",
            ["N", "mean", "sd", "se", "min", "max"],
            [(ref.n_results, ref.mu, ref.sd, ref.se, ref.minimum, ref.maximum)],
        )
    )
    cov = f"{round(100 * iv.coverage)}%"
    wide(
        table(
            f"Table 3: intrinsic effectiveness of the best (p = {s.p})",
            ["best", "mu0", f"{cov} interval", "mu0 below best", "candidates"],
            [
                (
                    iv.value,
                    iv.mu0,
                    f"[{value_text(iv.lower)}, {value_text(iv.upper)}]",
                    f"{100 * iv.drop:.1f}%",
                    s.n_candidates,
                )
            ],
        )
    )
    a, n = th.alpha, ref.n_results
    wide(
        table(
            f"Thresholds of the max and min of N = {n} at alpha = {a}",
            ["", "threshold", "published results", f"expected of {n} draws under the model"],
            [
                ("max above", th.max_threshold, th.n_above, th.expected_above_under_null),
                ("min below", th.min_threshold, th.n_below, th.expected_below_under_null),
                ("within", None, th.n_within, None),
            ],
            digits=4,
        )
    )
    rm = rep.resampled_max
    if rm is None:
        inspected = best_chance_sentence(rep.spread, th.max_threshold, th.n_above, n)
    else:
        line(best_threshold_sentence(rm, s.values, th.max_threshold, rep.spread))
        above = sum(1 for v in s.values if v > rm.threshold)
        inspected = best_chance_sentence(rep.spread, rm.threshold, above, n)
    if inspected:
        line(inspected)
    if rep.noise is not None:
        line(reference_sentence(rep.noise, ref.n_results))
    if rep.shrinkage is not None:
        line(luck_sentence(rep.shrinkage, "the best", rep.winners_bias))
    if rep.winner is not None:
        line(winner_sentence(rep.winner, rep.best.system))
    g = mx.gumbel
    line(
        f"Expected max of {ref.n_results} draws: {value_text(mx.expected_max)} "
        f"(+{100 * mx.lift:.1f}% over the mean; Gumbel location "
        f"{value_text(g.location)}, scale {value_text(g.scale)})"
    )
    wide(
        table(
            f"Candidate best systems (>= {value_text(iv.lower)})",
            ["rank", "value", "system", "role", "type", "year", "source", "location"],
            [
                (
                    c.rank,
                    c.result.value_text,
                    c.result.system,
                    c.result.role,
                    c.result.run_type or "-",
                    c.result.year,
                    cited(c.result),
                    c.result.location or "-",
                )
                for c in rep.candidates
            ],
        )
    )
    if rep.ranks is not None:
        ranks.render_ranks_section(rep.ranks)


def render_claim(rep: ClaimReport, audit_id: int | None) -> None:
    """`audit claim`: the answers first, then the population and the tables (a)-(c)."""
    method = _method(rep.stats)
    population_header(rep, "Claim audit", audit_id, method=None if method == "exact" else method)
    if rep.verdict:  # the verdict first, one line per question (issue 32)
        line("Verdict:")
        for v in rep.verdict:
            line(f"- {v.line()}")
        line("")
    for sentence in rep.answers:  # the answers first (issue 20), then what they rest on
        line(sentence)
    if rep.resolution is not None:
        line(rep.resolution.sentence)
    _claim_record_table(rep)
    _claim_chance_tables(rep)
    if rep.per_dataset is not None:
        ranks.render_per_dataset(rep.per_dataset)
    if rep.ranks is not None:
        ranks.render_ranks_section(rep.ranks)


def _claim_chance_tables(rep: ClaimReport) -> None:
    """Tables (b) against chance and (c) the claim's own interval of a claim audit."""
    ch, iv = rep.stats.chance, rep.stats.interval
    cov = f"{round(100 * iv.coverage)}%"
    # JSON has no infinity: a stored "no feasible number" (inf) reads back as NaN
    n_star = math.inf if ch.n_star != ch.n_star else ch.n_star
    informative = rep.spread is None or not rep.spread.false_by_inspection
    gone = "- (null false by inspection)"
    wide(
        table(
            f"(b) against chance: the max of M = {ch.n_draws} equally good systems, each "
            f"Normal({value_text(ch.mu)}, {value_text(ch.se)})",
            ["", "value"],
            [
                (f"threshold (exceeded with probability {ch.alpha:g})", value_text(ch.threshold)),
                ("claim above the threshold", "yes" if ch.passes else "no"),
                (
                    "threshold above the mean, in between-system sd",
                    "-" if ch.gap_sd != ch.gap_sd else f"{ch.gap_sd:.2f}",
                ),
                (
                    "expected above it under the model (M x P(one draw))",
                    f"{ch.expected_above_under_null:.3f}",
                ),
                ("published results above it", str(ch.n_published_above)),
                (
                    "p = P(max of M >= claim), descriptive",
                    p_value_text(ch.p_value, ch.p_below_floor, ch.p_floor) if informative else gone,
                ),
                (
                    "N* (experiments whose max reaches the claim with probability alpha)",
                    fmt_n_star(n_star, ch.n_star_capped, ch.n_star_cap) if informative else gone,
                ),
            ],
            justify_numbers=False,
        )
    )
    wide(
        table(
            f"(c) the claim's own interval (max of M, p = {iv.p:g})",
            ["", "value"],
            [
                ("mu0", value_text(iv.mu0)),
                (f"{cov} interval", f"[{value_text(iv.lower)}, {value_text(iv.upper)}]"),
            ],
            justify_numbers=False,
        )
    )
    if rep.evidence is not None:
        evidence.render_evidence(rep.evidence)


def _claim_record_table(rep: ClaimReport) -> None:
    """Table (a) of a claim audit: the claim against the record."""
    st = rep.stats
    rc = st.record
    cov = f"{round(100 * st.interval.coverage)}%"
    rec, riv = rep.record_holder, rc.record_interval
    where = (
        "yes"
        if rc.claim_in_record_interval
        else "no (above it)"
        if rc.value > rc.record
        else "no (below it)"
    )
    wide(
        table(
            "(a) against the record",
            ["", "value"],
            [
                ("record", f"{rec.value_text} {rec.system} ({cited(rec)})"),
                (
                    f"record's {cov} band (max of {st.reference.n_results})",
                    f"[{value_text(riv.lower)}, {value_text(riv.upper)}]",
                ),
                ("claim in the record's band", where),
                ("record in the claim's band", "yes" if rc.record_in_claim_interval else "no"),
                (
                    "published results >= claim" + (" (others)" if rep.subject else ""),
                    str(rc.n_at_or_above),
                ),
            ],
            justify_numbers=False,
        )
    )
