"""The frozen report model: what `litaudit report` knows, before any formatting.

Built by :mod:`litaudit.render.report.build` from stored audits only; rendered to
Markdown, HTML or JSON. Every section names the audits (:class:`AuditRef`) its numbers
come from; an audit's result is its typed stored result, so the report shows exactly
what the store holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litaudit.analyses.extreme.claim_evidence import ClaimEvidence
    from litaudit.analyses.extreme.verdict import VerdictLine
    from litaudit.analyses.reuse.verdict import Verdict

import re
from dataclasses import dataclass

from litaudit.analyses.reuse.lou import LOUReport
from litaudit.analyses.reuse.overlap import RAOReport
from litaudit.analyses.reuse.subcollection_tau import SubcollectionReport


def anchor(*parts: str) -> str:
    """A section's anchor, the same in HTML and Markdown: 'claim-rr-10', 'best-ap'."""
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts if p)


@dataclass(frozen=True, kw_only=True)
class AuditRef:
    """A stored audit as the report cites it (``created_at`` only with --timestamp)."""

    id: int
    kind: str
    measure: str | None
    params: dict
    method: str
    seed: int | None
    trials: int | None
    input_fingerprint: str
    software_version: str
    created_at: str | None


@dataclass(frozen=True)
class Count:
    label: str
    n: int


@dataclass(frozen=True)
class Source:
    kind: str  # paper | official
    name: str  # track, or "N papers"
    results: int


@dataclass(frozen=True)
class DataSection:
    """The published results behind the report and who put them in the store.

    Computed from the results table (not an audit): ``fingerprint`` is the SHA-256 of the
    rows read (:func:`litaudit.analyses.audits.fingerprint`), so a reader can tell whether
    two reports saw the same data.
    """

    collection_id: str
    collection_name: str
    collection_title: str
    default_topics: int | None
    measures: tuple[Count, ...]  # non-retracted results per measure
    n_results: int
    n_papers: int
    sources: tuple[Source, ...]
    first_year: int | None
    last_year: int | None
    statuses: tuple[Count, ...]  # verified / draft / retracted
    transcribers: tuple[Count, ...]
    first_transcribed: str | None
    last_transcribed: str | None
    fingerprint: str


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """A published result the report cites: a member of the candidate best set
    (Carterette 2015, Table 3; ``rank`` 1 = highest) or a record holder (``rank`` 0), with
    what a reader needs to find it (``citation``, ``participant``, ``track``, ``date``;
    the paper: ``doi``, ``url``, ``link``; the code: ``code_url``) and where it was
    transcribed from (``location``: file, line, column)."""

    rank: int
    value: float
    value_text: str | None
    system: str | None
    source: str | None
    citation: str | None  # paper citation or official track
    year: int | None
    doi: str | None
    url: str | None
    participant: str | None = None
    track: str | None = None
    date: str | None = None
    reporter: str | None = None
    link: str | None = None  # the paper or the submission's description
    code_url: str | None = None
    location: str | None = None
    status: str | None = None
    result_id: int | None = None  # the store's id (`results show ID`)


@dataclass(frozen=True)
class HistoryPoint:
    year: int
    n: int  # results published up to this year
    record: float | None  # best so far
    expected_max: float | None  # E[max] of n draws
    threshold: float | None  # alpha threshold of the max of n draws
    when: str | None = None  # the step: a year, or a date for a dated population
    new_record: bool = False  # this step set a new record
    beyond: bool = False  # the record is above the threshold at this step
    holder: str | None = None  # the record's holder, as cited


@dataclass(frozen=True)
class LiteratureSection:
    """Extreme-value audit of one collection and measure (Carterette, SIGIR 2015)."""

    measure: str
    best_audit: int | None
    error: str | None  # why there is no audit (e.g. fewer than 2 results)
    n: int | None  # Table 2
    n_topics: int | None
    mean: float | None
    sd: float | None
    se: float | None
    maximum: float | None
    expected_max: float | None
    alpha: float | None
    max_threshold: float | None
    min_threshold: float | None
    n_above: int | None
    n_below: int | None
    expected_above_under_null: float | None  # N x P(one draw > max threshold)
    p: float | None  # Table 3
    value: float | None
    mu0: float | None
    lower: float | None
    coverage: float | None
    candidates: tuple[Candidate, ...]
    history_audit: int | None
    history: tuple[HistoryPoint, ...]
    history_error: str | None
    population: str | None = None  # the population the audit used, in words
    model_fit: str | None = None  # the reference model against the data, in words
    ranks: str | None = None  # the rank resolution on shared topics or datasets, in words
    ranks_rows: tuple[tuple[str, ...], ...] = ()  # its top systems and set of the best
    record: Candidate | None = None  # the best published result, cited
    history_by: str | None = None  # history steps: date | year
    record_covers: str | None = None  # what the record covers (issue 32)
    history_left_out: int = 0  # reproductions left out of the history (report's default)


@dataclass(frozen=True)
class ClaimSection:
    """A claimed value audited against the published results (a stored 'claim' audit).

    ``answers``: the audit's own sentences, in order: (a) against the record, (b) against
    chance, (c) the claim's interval, the reference model. The numbers: (a) ``record_*``,
    ``claim_in_record_interval``, ``record_in_claim_interval``, ``n_at_or_above``; (b) the
    max of ``n_draws`` draws: ``threshold``, ``passes``, ``expected_above_under_null``,
    ``n_published_above``, ``p_value`` (``p_below_floor``: it is the floor ``p_floor``),
    ``n_star`` (``n_star_capped`` at ``n_star_cap``); (c) ``mu0``, ``lower``, ``coverage``.
    """

    measure: str
    audit: int | None
    error: str | None
    value: float
    answers: tuple[str, ...] = ()
    population: str | None = None
    record_text: str | None = None
    record_value: float | None = None
    record_lower: float | None = None
    claim_in_record_interval: bool | None = None
    record_in_claim_interval: bool | None = None
    n_at_or_above: int | None = None
    n_draws: int | None = None
    alpha: float | None = None
    threshold: float | None = None
    passes: bool | None = None
    expected_above_under_null: float | None = None
    n_published_above: int | None = None
    p_value: float | None = None
    p_below_floor: bool = False
    p_floor: float | None = None
    n_star: float | None = None
    n_star_capped: bool = False
    n_star_cap: float | None = None
    mu0: float | None = None
    lower: float | None = None
    coverage: float | None = None
    record_holder: Candidate | None = None
    n_results: int | None = None  # N, the published results of the population
    evidence: ClaimEvidence | None = None  # its run, same-topic tests, baseline (issue 21)
    value_text: str | None = None  # the claim as printed (issue 32)
    verdict: tuple[VerdictLine, ...] = ()  # one line per question, first in the report
    record_covers: str | None = None  # what the record covers (issue 32)


@dataclass(frozen=True)
class Conclusion:
    """One answer of the report's opening "Conclusions": the question it answers, the
    sentence, the evidence it rests on (named), and the section showing it (``anchor``)."""

    question: str  # record | chance | baseline | reuse | best
    sentence: str
    evidence: str
    anchor: str


@dataclass(frozen=True, kw_only=True)
class ReuseSection:
    """Reusability of the collection from its stored run archive."""

    n_runs: int
    verdict_audit: int | None
    verdict: Verdict | None  # stored reuse-verdict result, decoded
    rao_audit: int | None
    rao: RAOReport | None
    lou_audit: int | None
    lou: LOUReport | None
    sub_audit: int | None
    subcollections: SubcollectionReport | None
    notes: tuple[str, ...]  # components missing and why


@dataclass(frozen=True, kw_only=True)
class Report:
    title: str
    collection_id: str
    measures: tuple[str, ...]
    claim: float | None
    generated_at: str | None  # only with --timestamp
    data: DataSection
    literature: tuple[LiteratureSection, ...]
    claims: tuple[ClaimSection, ...]
    reuse: ReuseSection | None
    audits: tuple[AuditRef, ...]
    notes: tuple[str, ...]
    filters: str = ""  # the population filters in words ('' for none)
    options: str = ""  # the same as command-line options ('--until 2021-12-31')
    conclusions: tuple[Conclusion, ...] = ()

    def audit(self, audit_id: int | None) -> AuditRef | None:
        for a in self.audits:
            if a.id == audit_id:
                return a
        return None
