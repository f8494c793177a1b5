"""Gather the stored audits of a collection into one frozen :class:`Report`.

Every number of the report comes from a stored audit. The audits are run (and stored)
beforehand by :func:`litaudit.analyses.report_audits.prepare_report`; this module only
reads them, so a first and a second report on the same database are byte-identical. The
data section is read from the results table, fingerprinted like an audit input.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import TYPE_CHECKING, Any

from litaudit.analyses.audits import StoredAudit, fingerprint, get_audit
from litaudit.analyses.report_audits import ReportAudits
from litaudit.curation.filters import CURATION
from litaudit.curation.results import query_results
from litaudit.render.report.model import (
    AuditRef,
    Candidate,
    ClaimSection,
    Conclusion,
    Count,
    DataSection,
    LiteratureSection,
    Report,
    ReuseSection,
    Source,
    anchor,
)
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb


def audit_ref(a, *, timestamp: bool = False) -> AuditRef:
    """The citation of a stored audit (``created_at`` only when timestamps are wanted)."""
    return AuditRef(
        id=a.id,
        kind=a.kind,
        measure=a.measure,
        params=a.params,
        method=a.method,
        seed=a.seed,
        trials=a.trials,
        input_fingerprint=a.input_fingerprint,
        software_version=a.software_version,
        created_at=a.created_at if timestamp else None,
    )


def build_report(
    con: duckdb.DuckDBPyConnection, audits: ReportAudits, *, timestamp: bool = False
) -> Report:
    """The report of the collection whose audits ``audits`` names (from
    :func:`~litaudit.analyses.report_audits.prepare_report`): data, literature, claim,
    reuse."""

    # cycle: litaudit.render.report.build -> litaudit.render.report -> litaudit.render.report.build
    from litaudit.render.report import literature

    ref = resolve_collection(con, audits.collection_id)
    data = data_section(con, ref)
    used: dict[int, StoredAudit] = {}
    lit = tuple(
        literature.section(con, m, b, h, used)
        for m, b, h in zip(audits.measures, audits.best, audits.history, strict=True)
    )
    claims: tuple = ()
    if audits.claim is not None and audits.claim_value is not None:
        claims = (
            literature.claim_section(
                con, audits.measures[0], audits.claim_value, audits.claim, used
            ),
        )
    reuse = reuse_section(con, audits, used)
    generated = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat() if timestamp else None
    refs = tuple(audit_ref(used[i], timestamp=timestamp) for i in sorted(used))
    title = f"Audit report: {ref.title} ({ref.name})"
    conclusions = _conclusions(claims, lit, reuse, audits)
    return Report(
        title=title,
        collection_id=ref.id,
        measures=audits.measures,
        claim=audits.claim_value,
        generated_at=generated,
        data=data,
        literature=lit,
        claims=claims,
        reuse=reuse,
        audits=refs,
        notes=audits.notes,
        filters=audits.filters.describe(),
        options=filter_options(audits.filters),
        conclusions=conclusions,
    )


# ----------------------------------------------------------------------------- conclusions


def cite_text(c: Candidate) -> str:
    """How a reader cites a published result: 'Author et al. (Venue Year)' for a paper,
    'team, leaderboard or track, date' for a leaderboard entry or an official run."""
    if c.source == "paper" and c.citation:
        return c.citation
    when = c.date or (str(c.year) if c.year else None)
    return ", ".join(x for x in (c.participant, c.citation, when) if x)


def filter_options(f) -> str:
    """The filters as the command-line options that give them ('' for none)."""
    parts = []
    if f.source:
        parts.append(f"--source {'papers' if f.source == 'paper' else f.source}")
    parts += [f"--role {r}" for r in f.roles]
    parts += [f"--run-type {r}" for r in f.run_types]
    parts += [f"--reporter {r}" for r in f.reporters]
    if f.years:
        parts.append(f"--years {f.years[0]}-{f.years[1]}")
    if f.since:
        parts.append(f"--since {f.since}")
    if f.until:
        parts.append(f"--until {f.until}")
    if f.track:
        parts.append(f"--track {f.track}")
    if f.topics:
        parts.append(f"--topics {f.topics}")
    if f.include_retracted:
        parts.append("--include-retracted")
    if f.include_nonstandard:
        parts.append("--include-nonstandard")
    if f.zero_shot:
        parts.append("--zero-shot")
    return " ".join(parts)


def _sentence(text: str) -> str:
    return text if text.rstrip().endswith((".", "!", "?")) else text.rstrip() + "."


def _of(c: Candidate) -> str:
    return f"{c.value_text or f'{c.value:.4f}'} by {c.system or '-'} ({cite_text(c)})"


def _conclusions(
    claims: tuple[ClaimSection, ...],
    lit: tuple[LiteratureSection, ...],
    reuse: ReuseSection | None,
    audits: ReportAudits,
) -> tuple[Conclusion, ...]:
    """One answer per question the report was asked, each with its evidence and section:
    the claim against the record and against chance (the audit's own sentences, --claim),
    else the record of each
    measure; then the reusability decision. (Sections added later, such as a baseline,
    add their own conclusion here, in this order: claim, baseline, reusability.)"""
    out: list[Conclusion] = []
    for c in claims:
        where = anchor("claim", c.measure)
        if c.audit is None:
            out.append(Conclusion("record", c.answers[0], "no claim audit", where))
            continue
        n = f"N = {c.n_results} published {c.measure} results"
        # the record sentence, with its sensitivity line when the robust spread changes it
        record = " ".join(
            a for a in c.answers if a.startswith(("Against the record", "Sensitivity"))
        ) + (f" What the record covers: {c.record_covers}." if c.record_covers else "")
        out.append(Conclusion("record", record, f"claim audit #{c.audit}, {n}", where))
        # the audit's own sentence (analyses.extreme.wording): it says "uninformative" itself
        # where the comparison with chance tells nothing
        chance = next((a for a in c.answers if a.startswith("Against chance")), "Against chance: -")
        evidence = f"claim audit #{c.audit}, the max of {c.n_draws} draws"
        out.append(Conclusion("chance", chance, evidence, anchor("chance", c.measure)))
    for c in claims:  # the claim's evidence (issue 21): its run, its baseline
        # cycle: litaudit.render.report.build -> litaudit.render.report -> litaudit.render.report.build
        from litaudit.render.report.document_evidence import evidence_conclusions

        out += [Conclusion(q, t, e, anchor(a)) for q, t, e, a in evidence_conclusions(c)]
    if not claims:
        for s in lit:
            if s.best_audit is None or s.record is None:
                continue
            cov = "-" if s.coverage is None else f"{s.coverage:.0%}"
            k, rest = len(s.candidates) - 1, (s.n or 1) - 1
            band = f"{s.lower:.4f}, the lower end of its {cov} interval"
            others = (
                f"none of the other {rest} published results lies at or above {band}"
                if k < 1
                else f"{k} of the other {rest} published results "
                f"{'lies' if k == 1 else 'lie'} at or above {band}, and cannot be told "
                "apart from it"
            )
            sentence = f"The record for {s.measure}: {_of(s.record)}; {others}." + (
                f" What the record covers: {s.record_covers}." if s.record_covers else ""
            )
            out.append(
                Conclusion(
                    "best",
                    sentence,
                    f"best audit #{s.best_audit}, N = {s.n} published {s.measure} results",
                    anchor("best", s.measure),
                )
            )
    if reuse is not None and reuse.verdict is not None:
        # start-up: scipy (through litaudit.analyses.reuse.wording)
        from litaudit.analyses.reuse.wording import decision_sentence

        out.append(
            Conclusion(
                "reuse",
                _sentence(f"Reusability: {decision_sentence(reuse.verdict)}"),
                f"reuse verdict audit #{reuse.verdict_audit}, {reuse.n_runs} stored runs",
                anchor("reuse"),
            )
        )
    else:
        out.append(
            Conclusion(
                "reuse",
                f"Reusability: not assessed: no run archive is stored for {audits.collection_id}.",
                "runs stored: 0",
                anchor("notes"),
            )
        )
    return tuple(out)


# ---------------------------------------------------------------------------- data section


def data_section(con: duckdb.DuckDBPyConnection, ref) -> DataSection:
    """Sources, counts, years, transcribers and statuses of the collection's results."""

    rows = query_results(con, CURATION, collection=ref.id)
    live = [r for r in rows if r.status != "retracted"]
    by_measure = Counter(r.measure for r in live)
    measures = tuple(
        Count(m, n) for m, n in sorted(by_measure.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    papers = {r.bibkey for r in live if r.source == "paper"}
    sources = []
    n_paper_rows = sum(1 for r in live if r.source == "paper")
    if papers:
        sources.append(Source("paper", f"{len(papers)} papers", n_paper_rows))
    tracks = Counter(r.track or "" for r in live if r.source == "official")
    sources += [Source("official", t, n) for t, n in sorted(tracks.items())]
    years = [r.year for r in live]
    statuses = Counter(r.status for r in rows)
    who = Counter(r.transcribed_by for r in rows)
    when = sorted(r.transcribed_at for r in rows if r.transcribed_at)
    keys = (
        "id",
        "source",
        "bibkey",
        "track",
        "measure",
        "value_text",
        "system",
        "role",
        "year",
        "n_topics",
        "status",
        "transcribed_by",
        "transcribed_at",
    )
    fp = fingerprint([[getattr(r, k) for k in keys] for r in sorted(rows, key=lambda r: r.id)])
    return DataSection(
        collection_id=ref.id,
        collection_name=ref.name,
        collection_title=ref.title,
        default_topics=ref.default_topics,
        measures=measures,
        n_results=len(live),
        n_papers=len(papers),
        sources=tuple(sources),
        first_year=min(years) if years else None,
        last_year=max(years) if years else None,
        statuses=tuple(Count(s, statuses.get(s, 0)) for s in ("verified", "draft", "retracted")),
        transcribers=tuple(
            Count(w, n) for w, n in sorted(who.items(), key=lambda kv: (-kv[1], kv[0]))
        ),
        first_transcribed=when[0] if when else None,
        last_transcribed=when[-1] if when else None,
        fingerprint=fp,
    )


# --------------------------------------------------------------------------- reusability


def reuse_section(
    con: duckdb.DuckDBPyConnection, audits: ReportAudits, used: dict
) -> ReuseSection | None:
    """Verdict, RAO, LOU and sub-collections audits, when runs are stored (the agreement
    in significance is the verdict's own)."""

    if audits.verdict is None:
        return None
    verdict = get_audit(con, audits.verdict)
    used[verdict.id] = verdict
    parts: dict[str, StoredAudit] = {}
    for kind, part_id in verdict.result.audits:
        a = get_audit(con, int(part_id))
        used[a.id] = a
        parts[kind] = a
    decoded = verdict.result
    notes = [f"reusability: {s}" for s in decoded.notes]
    notes += audits.reuse_notes

    def res(a: StoredAudit | None) -> Any:
        return None if a is None else a.result

    def aid(a: StoredAudit | None) -> int | None:
        return None if a is None else a.id

    return ReuseSection(
        n_runs=audits.n_runs,
        verdict_audit=verdict.id,
        verdict=decoded,
        rao_audit=aid(parts.get("reuse-rao")),
        rao=res(parts.get("reuse-rao")),
        lou_audit=aid(parts.get("reuse-lou")),
        lou=res(parts.get("reuse-lou")),
        sub_audit=aid(parts.get("reuse-subcollections")),
        subcollections=res(parts.get("reuse-subcollections")),
        notes=tuple(notes),
    )
