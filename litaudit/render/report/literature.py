"""Literature sections of a report: the stored 'best', 'claim' and 'history' audits.

Carterette, "The Best Published Result is Random", SIGIR 2015: Table 2 (N, mean, sd,
max), Table 3 (mu0, the 1-2p interval, the candidate best set), the alpha threshold
of the max, the record over the years against the expected max, and a claim audited
against the record, against chance and by its own interval. The audits are typed results
read from the store (:class:`~litaudit.analyses.extreme.best.BestReport` ...), run beforehand by
:func:`litaudit.analyses.report_audits.prepare_report`; the sentences are the ones the
terminal prints (:mod:`litaudit.analyses.extreme.wording`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from litaudit.analyses.audits import StoredAudit, get_audit
from litaudit.analyses.extreme.best import BestReport, ClaimReport
from litaudit.analyses.extreme.history import HistoryReport
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.ranks import RanksAudit
from litaudit.analyses.extreme.wording import cited, population_sentence
from litaudit.analyses.extreme.wording_noise import reference_sentence
from litaudit.analyses.report_audits import Prepared
from litaudit.analyses.wording import printed_number as printed
from litaudit.render.report.model import (
    Candidate,
    ClaimSection,
    HistoryPoint,
    LiteratureSection,
)

if TYPE_CHECKING:
    import duckdb


def _stored(
    con: duckdb.DuckDBPyConnection, prepared: Prepared, used: dict[int, StoredAudit]
) -> StoredAudit | None:

    if prepared.audit_id is None:
        return None
    a = get_audit(con, prepared.audit_id)
    used[a.id] = a
    return a


def _num(x: float | None) -> float | None:
    """A stored number as the report shows it (NaN: none)."""
    return None if x is None or math.isnan(x) else float(x)


def section(
    con: duckdb.DuckDBPyConnection,
    measure: str,
    best: Prepared,
    hist: Prepared,
    used: dict[int, StoredAudit],
) -> LiteratureSection:
    """Tables 2-3, thresholds, candidates (with provenance) and history of one measure."""
    h = _stored(con, hist, used)
    history = history_points(h.result) if h is not None else ()
    by = h.result.by if h is not None else None
    b = _stored(con, best, used)
    if b is None:
        return LiteratureSection(
            measure=measure,
            best_audit=None,
            error=best.error,
            n=None,
            n_topics=None,
            mean=None,
            sd=None,
            se=None,
            maximum=None,
            expected_max=None,
            alpha=None,
            max_threshold=None,
            min_threshold=None,
            n_above=None,
            n_below=None,
            expected_above_under_null=None,
            p=None,
            value=None,
            mu0=None,
            lower=None,
            coverage=None,
            candidates=(),
            history_audit=h.id if h else None,
            history=history,
            history_error=hist.error,
        )
    r: BestReport = b.result
    rf, th, iv, mx = r.stats.reference, r.stats.thresholds, r.stats.interval, r.stats.mxvd
    return LiteratureSection(
        measure=measure,
        best_audit=b.id,
        error=None,
        n=rf.n_results,
        n_topics=rf.n_topics,
        mean=_num(rf.mu),
        sd=_num(rf.sd),
        se=_num(rf.se),
        maximum=_num(rf.maximum),
        expected_max=_num(mx.expected_max),
        alpha=_num(th.alpha),
        max_threshold=_num(th.max_threshold),
        min_threshold=_num(th.min_threshold),
        n_above=th.n_above,
        n_below=th.n_below,
        expected_above_under_null=_num(th.expected_above_under_null),
        p=_num(iv.p),
        value=_num(iv.value),
        mu0=_num(iv.mu0),
        lower=_num(iv.lower),
        coverage=_num(iv.coverage),
        candidates=_candidates(r),
        record=cited_result(r.best, 0),
        history_by=by,
        history_left_out=_left_out(r, h.result if h is not None else None),
        record_covers=r.coverage,
        history_audit=h.id if h else None,
        history=history,
        history_error=hist.error,
        population=population_sentence(r.population),
        model_fit=None if r.noise is None else reference_sentence(r.noise, rf.n_results),
        ranks=None if r.ranks is None else ranks_sentence(r.ranks),
        ranks_rows=() if r.ranks is None else ranks_rows(r.ranks),
    )


def _left_out(best: BestReport, hist: HistoryReport | None) -> int:
    """The reproductions of the best audit's population that the history left out (its
    roles leave out 'reproduction', as `report` does unless --with-reproductions)."""
    roles = hist.filters.roles if hist is not None else ()
    if hist is None or not roles or "reproduction" in roles:
        return 0
    return max(0, best.stats.reference.n_results - hist.population.n)


def ranks_sentence(rk: RanksAudit) -> str:
    """The rank resolution's finding, its input and method, in words."""
    noise = f"; {rk.noise}" if rk.noise else ""
    return f"Ranks: {rk.answer}. Input: {rk.what}{noise}. Method: {rk.resolution.method}."


def ranks_rows(rk: RanksAudit, shown: int = 10) -> tuple[tuple[str, ...], ...]:
    """The top ``shown`` systems and every member of the set of the best, as table rows."""
    r = rk.resolution
    top = list(r.order[:shown]) + [i for i in r.best_set if i not in r.order[:shown]]
    return tuple(
        (
            str(r.rank[i]),
            rk.systems[i],
            f"{r.means[i]:.4f}",
            f"{r.rank_low[i]}-{r.rank_high[i]}",
            f"{r.p_first[i]:.3f}",
            "yes" if r.in_best_set[i] else "",
        )
        for i in top
    )


def cited_result(row: ResultRow, rank: int) -> Candidate:
    """A stored result as the report cites it, with every lookup the store holds."""
    return Candidate(
        rank=rank,
        value=row.value,
        value_text=printed(row.value_text),
        system=row.system,
        source=row.source,
        citation=cited(row),
        year=row.year,
        doi=row.doi,
        url=row.url,
        participant=row.participant,
        track=row.track,
        date=row.date,
        reporter=row.reporter,
        link=row.link,
        code_url=row.code_url,
        location=row.location,
        status=row.status,
        result_id=row.id,
    )


def _candidates(r: BestReport) -> tuple[Candidate, ...]:
    """The candidate best set with citations (the stored rows' provenance)."""
    return tuple(cited_result(c.result, c.rank) for c in r.candidates)


def history_points(r: HistoryReport) -> tuple[HistoryPoint, ...]:
    """The history audit's steps as the history plot takes them (the report's and the
    site's)."""
    return tuple(
        HistoryPoint(
            p.year,
            p.N,
            _num(p.record),
            _num(p.expected_max),
            _num(p.threshold),
            when=p.when,
            new_record=p.new_record,
            beyond=bool(p.beyond_chance),
            holder=f"{printed(rec.value_text)} {rec.system} ({cited(rec)})",
        )
        for p, rec in zip(r.history.points, r.records, strict=True)
    )


# ----------------------------------------------------------------------------------- claim


def claim_section(
    con: duckdb.DuckDBPyConnection,
    measure: str,
    value: float,
    prepared: Prepared,
    used: dict[int, StoredAudit],
) -> ClaimSection:
    """The claim audit of ``value`` from its stored 'claim' audit.

    Its sentences and numbers are those of the stored result (kind 'claim', written by
    :func:`litaudit.analyses.extreme.best.run_claim`), so the report says what the terminal said.
    """
    a = _stored(con, prepared, used)
    if a is None:
        return ClaimSection(
            measure,
            None,
            prepared.error,
            value,
            answers=(f"{_v(value)} could not be audited: {prepared.error}",),
        )
    r: ClaimReport = a.result
    st = r.stats
    rc, ch, iv = st.record, st.chance, st.interval
    return ClaimSection(
        measure=measure,
        audit=a.id,
        error=None,
        value=value,
        answers=r.answers,
        population=population_sentence(r.population),
        record_text=f"{printed(r.record_holder.value_text)} {r.record_holder.system} "
        f"({cited(r.record_holder)})",
        record_value=_num(rc.record),
        record_lower=_num(rc.record_interval.lower),
        claim_in_record_interval=rc.claim_in_record_interval,
        record_in_claim_interval=rc.record_in_claim_interval,
        n_at_or_above=rc.n_at_or_above,
        n_draws=ch.n_draws,
        alpha=_num(ch.alpha),
        threshold=_num(ch.threshold),
        passes=ch.passes,
        expected_above_under_null=_num(ch.expected_above_under_null),
        n_published_above=ch.n_published_above,
        p_value=_num(ch.p_value),
        p_below_floor=ch.p_below_floor,
        p_floor=ch.p_floor,
        n_star=_num(ch.n_star),
        n_star_capped=ch.n_star_capped,
        n_star_cap=ch.n_star_cap,
        mu0=_num(iv.mu0),
        lower=_num(iv.lower),
        coverage=_num(iv.coverage),
        record_holder=cited_result(r.record_holder, 0),
        n_results=st.reference.n_results,
        evidence=r.evidence,
        value_text=r.value_text,
        verdict=r.verdict,
        record_covers=r.coverage,
    )


def _v(x: float) -> str:
    """A claimed value as the user typed it (0.36, not 0.3600)."""
    return f"{x:.6f}".rstrip("0").rstrip(".") if x == x else "nan"
