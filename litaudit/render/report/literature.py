"""Literature sections of a report: the stored 'best', 'claim' and 'history' audits.

Carterette, "The Best Published Result is Random", SIGIR 2015: Table 2 (N, mean, sd,
max), Table 3 (mu0, the 1-2p interval, the candidate best set), the beyond-chance
threshold, the record over the years against the expected max, and a claimed value
judged as the best of N + 1 draws. The audits are typed results read from the store
(:class:`~litaudit.analyses.best.BestReport` ...), run beforehand by
:func:`litaudit.analyses.report_audits.prepare_report`.
"""

from __future__ import annotations

import math

from litaudit.analyses.audits import StoredAudit
from litaudit.analyses.best import BestReport, ClaimReport, HistoryReport
from litaudit.analyses.report_audits import Prepared
from litaudit.render.report.model import (
    Candidate,
    ClaimSection,
    HistoryPoint,
    LiteratureSection,
)


def _stored(con, prepared: Prepared, used: dict[int, StoredAudit]) -> StoredAudit | None:
    from litaudit.analyses.audits import get_audit

    if prepared.audit_id is None:
        return None
    a = get_audit(con, prepared.audit_id)
    used[a.id] = a
    return a


def _num(x: float | None) -> float | None:
    """A stored number as the report shows it (NaN: none)."""
    return None if x is None or math.isnan(x) else float(x)


def section(con, measure: str, best: Prepared, hist: Prepared,
            used: dict[int, StoredAudit]) -> LiteratureSection:
    """Tables 2-3, thresholds, candidates (with provenance) and history of one measure."""
    h = _stored(con, hist, used)
    history = _history(h.result) if h is not None else ()
    b = _stored(con, best, used)
    if b is None:
        return LiteratureSection(
            measure=measure, best_audit=None, error=best.error, n=None, n_topics=None,
            mean=None, sd=None, se=None, maximum=None, expected_max=None, alpha=None,
            max_threshold=None, min_threshold=None, n_above=None, n_below=None,
            expected_false_positives=None, p=None, value=None, mu0=None, lower=None,
            coverage=None, candidates=(), history_audit=h.id if h else None,
            history=history, history_error=hist.error)
    r: BestReport = b.result
    rf, th, iv, mx = r.stats.reference, r.stats.thresholds, r.stats.interval, r.stats.mxvd
    return LiteratureSection(
        measure=measure, best_audit=b.id, error=None, n=rf.n_results, n_topics=rf.n_topics,
        mean=_num(rf.mu), sd=_num(rf.sd), se=_num(rf.se), maximum=_num(rf.maximum),
        expected_max=_num(mx.expected_max), alpha=_num(th.alpha),
        max_threshold=_num(th.max_threshold), min_threshold=_num(th.min_threshold),
        n_above=th.n_above, n_below=th.n_below,
        expected_false_positives=_num(th.expected_false_positives), p=_num(iv.p),
        value=_num(iv.value), mu0=_num(iv.mu0), lower=_num(iv.lower),
        coverage=_num(iv.coverage), candidates=_candidates(r),
        history_audit=h.id if h else None, history=history, history_error=hist.error)


def _candidates(r: BestReport) -> tuple[Candidate, ...]:
    """The candidate best set with citations (the stored rows' provenance)."""
    return tuple(Candidate(c.rank, c.result.value, c.result.value_text, c.result.system,
                           c.result.source, c.result.citation or c.result.track,
                           c.result.year, c.result.doi, c.result.url) for c in r.candidates)


def _history(r: HistoryReport) -> tuple[HistoryPoint, ...]:
    return tuple(HistoryPoint(p.year, p.N, _num(p.record), _num(p.expected_max),
                              _num(p.threshold)) for p in r.history.points)


# ----------------------------------------------------------------------------------- claim

def claim_section(con, measure: str, value: float, prepared: Prepared,
                  used: dict[int, StoredAudit]) -> ClaimSection:
    """The claim check of ``value`` from its stored 'claim' audit."""
    a = _stored(con, prepared, used)
    if a is None:
        return ClaimSection(measure, None, prepared.error, value, n_draws=None, alpha=None,
                            p_value=None, beyond_chance=None, mu0=None, lower=None,
                            n_star=None, in_candidate_set=None,
                            sentence=f"{_v(value)} could not be checked: {prepared.error}")
    r: ClaimReport = a.result
    c = r.claim
    pv = _num(c.p_value)
    cur_lower = _num(r.current_lower)
    return ClaimSection(measure, a.id, None, value, c.n_draws, c.alpha, pv, c.beyond_chance,
                        _num(c.interval.mu0), _num(c.interval.lower), c.n_star,
                        r.in_candidate_set,
                        claim_sentence(value, c.n_draws, pv, c.alpha, c.beyond_chance,
                                       c.n_star, r.in_candidate_set, cur_lower))


def _v(x: float) -> str:
    """A claimed value as the user typed it (0.36, not 0.3600)."""
    return f"{x:.6f}".rstrip("0").rstrip(".") if x == x else "nan"


def fmt_p(p: float | None) -> str:
    """A p-value with 4 decimals, or in scientific notation below 0.0001."""
    if p is None:
        return "-"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.2e}"


def fmt_count(n: int) -> str:
    """A count in full up to a billion, else in scientific notation."""
    return str(n) if n < 10**9 else f"about {float(n):.2e}"


def claim_sentence(value: float, n_draws, p_value, alpha, beyond, n_star, in_set,
                   lower) -> str:
    """The claim check in plain words (the reviewer's question, answered)."""
    if n_draws is None or p_value is None:
        return f"{_v(value)} could not be checked against the published results."
    p = f"p = {fmt_p(p_value)}"
    if beyond:
        s = (f"{_v(value)} is beyond what the best of {n_draws} equally good systems reaches "
             f"by chance ({p} < {alpha:g}).")
        if n_star is not None:
            s += (f" It would stop being beyond chance only if {fmt_count(n_star)} equally "
                  "good systems had been tried.")
    else:
        s = (f"{_v(value)} is within what the best of {n_draws} equally good systems reaches "
             f"by chance ({p} >= {alpha:g}).")
    if in_set is not None and lower is not None:
        s += (f" It is {'in' if in_set else 'below'} the candidate best set of the published "
              f"results (lower bound {lower:.4f}).")
    return s
