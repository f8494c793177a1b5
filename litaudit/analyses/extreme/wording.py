"""The extreme-value audits in plain words (Carterette, SIGIR 2015): what every sentence
shares, and the population an audit used.

How a result is named (:func:`cited`, :func:`who`, :func:`result_label`), how values, shares
and N* are printed, and :func:`population_sentence`. The sentences of each audit family are
in their own modules: a claim audit's answers in
:mod:`litaudit.analyses.extreme.wording_claim`, `audit best` and `audit history` in
:mod:`litaudit.analyses.extreme.wording_best`, the reference model and the measured noise
(the se used and why, the gap, the matrix, the luck) in
:mod:`litaudit.analyses.extreme.wording_noise`. Each sentence says what was computed and no
more (docs/STATISTICS.md, "Claims").
"""

from __future__ import annotations

import dataclasses
import math

from litaudit.analyses.extreme.population import ResultRow, track_label
from litaudit.analyses.extreme.population_summary import PopulationSummary
from litaudit.analyses.wording import sci


def fmt_n_star(n: float, capped: bool, cap: float | None) -> str:
    """N* in full below a billion, else '1.23e+15'; '> 1e+12 (capped)' at the cap."""
    if capped and cap is not None:
        return f"> {sci(cap)} (capped)"
    if math.isinf(n):
        return "no feasible number"
    return f"{n:.0f}" if n < 1e9 else f"{n:.3g}"


def pct(x: float) -> str:
    """0.95 as "95%"."""
    return f"{round(100 * x)}%"


def fmt_value(x: float) -> str:
    """A value as the audits print it, to four decimals."""
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
