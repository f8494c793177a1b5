"""The report as a sequence of format-neutral blocks (headings, paragraphs, lists,
tables, figures), rendered by :mod:`.markdown` and :mod:`.html`. Numbers are formatted
here, once, with a fixed number of digits (the block types and formats: :mod:`.blocks`). Here: the order of the
sections, the answer first (the conclusions, then the claim), the literature sections (the
best published result, its candidates and history: Carterette 2015), the data, and the
appendices (the audits' parameters, where each cited value was transcribed). Built
elsewhere: the literature sections (:mod:`.document_literature`), the reusability section
(:mod:`.document_reuse`), the claim's evidence (:mod:`.document_evidence`) and the
appendices (:mod:`.document_appendix`)."""

from __future__ import annotations

from litaudit.render.report.blocks import (
    Bullets,
    Heading,
    Para,
    Table,
    cite,
    f4,
)
from litaudit.render.report.build import cite_text
from litaudit.render.report.document_appendix import audits_appendix, provenance_appendix
from litaudit.render.report.document_evidence import evidence_blocks
from litaudit.render.report.document_literature import cited_table, literature_blocks, lookups
from litaudit.render.report.document_reuse import reuse_blocks
from litaudit.render.report.model import (
    ClaimSection,
    Report,
    anchor,
)


def blocks(rep: Report) -> list:
    """Everything the Markdown and HTML reports show, in order: the answer first."""
    out: list = [Heading(1, rep.title)]
    out += verdict_blocks(rep)
    out += _conclusions(rep)
    # Optional sections that answer a question of their own (a baseline, a same-topic
    # comparison) go here, after the conclusions, each with its conclusion in
    # rep.conclusions and its anchor.
    for c in rep.claims:
        out += evidence_blocks(c.evidence, c.audit)
    for c in rep.claims:
        out += _claim(c)
    claim = rep.claims[0] if rep.claims else None
    for lit in rep.literature:
        value = claim.value if claim is not None and claim.measure == lit.measure else None
        out += literature_blocks(lit, value)
    if rep.reuse is not None:
        out += reuse_blocks(rep.reuse)
    out += _data(rep)
    out += audits_appendix(rep)
    out += provenance_appendix(rep)
    if rep.notes:
        out += [Heading(2, "Notes", anchor("notes"))] + [Para(n) for n in rep.notes]
    return out


def claim_text(c: ClaimSection) -> str:
    """The claim as printed (0.3100 keeps its digits), else as typed."""
    return c.value_text or f"{c.value:g}"


def verdict_blocks(rep: Report) -> list:
    """The verdict, first: per claim, one line per question with its plain answer and the
    figure behind it (the claim audit's own verdict lines); the explanations follow."""
    out: list = []
    for c in rep.claims:
        if not c.verdict:
            continue
        head = f"Verdict: {c.measure} = {claim_text(c)} on {rep.data.collection_name}"
        items = tuple((v.line(), ()) for v in c.verdict)
        out += [Heading(2, head, anchor("verdict", c.measure)), Bullets(items, "verdict")]
    return out


def scope(rep: Report) -> str:
    """The report's first paragraph: what was checked against which published results,
    and the filters as words and as options."""
    d = rep.data
    where = f"{d.collection_title} (`{rep.collection_id}`)"
    if rep.filters:
        which = f"with these filters: {rep.filters} (`{rep.options}`)"
    else:
        which = "(all of them: no filters)"
    if rep.claims:
        c = rep.claims[0]
        n = "the" if c.n_results is None else f"the {c.n_results}"
        head = (
            f"The claim {c.measure} = {claim_text(c)} on {where} is checked against {n} "
            f"published {c.measure} results in the litaudit store {which}."
        )
    else:
        ms = ", ".join(rep.measures) or "no measure's"
        head = (
            f"The best published {ms} results on {where} are audited from the "
            f"published results in the litaudit store {which}."
        )
    if rep.reuse is not None:
        head += f" Reusability is judged from the {rep.reuse.n_runs} stored runs" + (
            " (the filters do not apply to runs)." if rep.filters else "."
        )
    if rep.generated_at:
        head += f" Generated {rep.generated_at}."
    return head


def _conclusions(rep: Report) -> list:
    """The answers, one sentence per question asked, each with its evidence and a link to
    the section that shows it."""
    items = []
    for c in rep.conclusions:
        links: list[tuple[str, str]] = [(f"evidence: {c.evidence}", f"#{c.anchor}")]
        if c.question == "record" and rep.claims and rep.claims[0].record_holder is not None:
            holder = rep.claims[0].record_holder
            if holder.source != "paper":  # a paper's citation is in the sentence already
                links.append((f"the record: {cite_text(holder)}", ""))
            links += lookups(holder, "its")
        items.append((c.sentence, tuple(links)))
    return [
        Heading(2, "Conclusions", anchor("conclusions")),
        Para(scope(rep)),
        Bullets(tuple(items)),
        Para(
            "Every number below cites the stored audit it comes from (audit #id); the "
            "audits' parameters and where each cited value was transcribed are in the "
            "appendices."
        ),
    ]


def _claim(c: ClaimSection) -> list:
    """The claim audit: its sentences in order (record, chance, own interval, reference model),
    then a table for each of (a), (b) and (c)."""
    out: list = [
        Heading(2, f"Claim audit: {c.measure} = {claim_text(c)}", anchor("claim", c.measure))
    ]
    if c.population:
        out.append(Para(c.population))
    out += [Para(s) for s in c.answers]
    if c.audit is None:
        return out
    src = cite(c.audit)
    cov = "-" if c.coverage is None else f"{c.coverage:.0%}"
    inside = (
        "yes"
        if c.claim_in_record_interval
        else "no (above it)"
        if c.record_value is not None and c.value > c.record_value
        else "no (below it)"
    )
    out.append(
        Table(
            (
                "record",
                f"record's {cov} interval",
                "claim in it",
                "record in the claim's interval",
                "published results >= claim",
                "source",
            ),
            (
                (
                    c.record_text or "-",
                    f"[{f4(c.record_lower)}, {f4(c.record_value)}]",
                    inside,
                    "yes" if c.record_in_claim_interval else "no",
                    str(c.n_at_or_above),
                    src,
                ),
            ),
            "(a) Against the record",
        )
    )
    out.append(_claim_chance(c, src))
    if c.record_holder is not None:
        out.append(cited_table((c.record_holder,), c.measure, "The record holder"))
    out.append(
        Table(
            ("claim", "mu0", f"{cov} interval", "source"),
            ((f4(c.value), f4(c.mu0), f"[{f4(c.lower)}, {f4(c.value)}]", src),),
            "(c) The claim's own interval",
        )
    )
    return out


def _claim_chance(c: ClaimSection, src: str) -> Table:
    """Table (b) of the claim audit: the claim against chance."""
    from litaudit.analyses.extreme.wording import fmt_n_star
    from litaudit.analyses.wording import p_text

    ns = "-" if c.n_star is None else fmt_n_star(c.n_star, c.n_star_capped, c.n_star_cap)
    return Table(
        (
            "draws (M)",
            "alpha",
            "threshold of the max of M",
            "claim above it",
            "expected above it under the model (M x P(one draw))",
            "published results above it",
            "p (descriptive)",
            "N*",
            "source",
        ),
        (
            (
                str(c.n_draws),
                f"{c.alpha:g}",
                f4(c.threshold),
                "yes" if c.passes else "no",
                f"{c.expected_above_under_null:.3f}",
                str(c.n_published_above),
                p_text(c.p_value, c.p_below_floor, c.p_floor),
                ns,
                src,
            ),
        ),
        "(b) Against chance",
        anchor=anchor("chance", c.measure),
    )


def _data(rep: Report) -> list:
    d = rep.data
    st = {c.label: c.n for c in d.statuses}
    years = "-" if d.first_year is None else f"{d.first_year}-{d.last_year}"
    when = "-" if d.first_transcribed is None else f"{d.first_transcribed} to {d.last_transcribed}"
    rows = (
        ("collection", f"{d.collection_title} ({d.collection_name}, {d.collection_id})"),
        ("topics (default set)", str(d.default_topics or "-")),
        ("results (not retracted)", str(d.n_results)),
        ("papers", str(d.n_papers)),
        ("publication years", years),
        ("verified / draft / retracted", f"{st['verified']} / {st['draft']} / {st['retracted']}"),
        ("transcribed by", "; ".join(f"{c.label} ({c.n})" for c in d.transcribers) or "-"),
        ("transcribed", when),
        ("input fingerprint", d.fingerprint[:16]),
    )
    out = [
        Heading(2, "Data and provenance", anchor("data")),
        Table(
            ("", ""),
            rows,
            "Every published result of the collection in the store, before any filter "
            "(results table, not an audit; the fingerprint is over the rows read).",
        ),
        Table(
            ("source", "from", "results"),
            tuple((s.kind, s.name, str(s.results)) for s in d.sources),
            "Sources",
        ),
        Table(
            ("measure", "results"),
            tuple((c.label, str(c.n)) for c in d.measures),
            "Results per measure",
        ),
    ]
    return out
