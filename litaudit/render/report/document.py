"""The report as a sequence of format-neutral blocks (headings, paragraphs, lists,
tables, figures), rendered by :mod:`.markdown` and :mod:`.html`. Numbers are formatted
here, once, with a fixed number of digits (the block types and formats: :mod:`.blocks`). Here: the order of the
sections, the answer first (the conclusions, then the claim), the literature sections (the
best published result, its candidates and history: Carterette 2015), the data, and the
appendices (the audits' parameters, where each cited value was transcribed); the
reusability section is built by :mod:`.document_reuse`."""

from __future__ import annotations

from litaudit.render.report import figures as F
from litaudit.render.report.blocks import (
    Bullets,
    FigureBlock,
    Heading,
    Para,
    Table,
    cite,
    f3,
    f4,
    http_url,
)
from litaudit.render.report.build import cite_text
from litaudit.render.report.document_evidence import evidence_blocks
from litaudit.render.report.document_reuse import reuse_blocks
from litaudit.render.report.model import (
    Candidate,
    ClaimSection,
    LiteratureSection,
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
        out += _literature(lit, value)
    if rep.reuse is not None:
        out += reuse_blocks(rep.reuse)
    out += _data(rep)
    out += _audits(rep)
    out += _provenance(rep)
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
            links += _lookups(holder, "its")
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


def paper_url(c: Candidate) -> str | None:
    """The paper (or the submission's description) of a cited result: its DOI, else its
    link, else its URL; http(s) only."""
    for u in (f"https://doi.org/{c.doi}" if c.doi else None, c.link, c.url):
        if http_url(u):
            return http_url(u)
    return None


def _lookups(c: Candidate, whose: str) -> list[tuple[str, str]]:
    out = []
    if paper_url(c):
        out.append((f"{whose} paper", paper_url(c) or ""))
    if http_url(c.code_url):
        out.append((f"{whose} code", http_url(c.code_url) or ""))
    return out


def _short(url: str | None, doi: str | None = None) -> str:
    """A link's text in a table: short (a DOI as 'doi:...', else the URL's host), never
    the raw URL that runs a table off the page."""
    if not url:
        return "-"
    if doi and url.endswith(doi):
        return f"doi:{doi}"
    from urllib.parse import urlsplit

    host = urlsplit(url).netloc or url.split("://", 1)[-1]
    return host.removeprefix("www.")


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
        out.append(_cited_table((c.record_holder,), c.measure, "The record holder"))
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


def _literature(lit: LiteratureSection, claim: float | None = None) -> list:
    out: list = [
        Heading(
            2,
            f"The best published {lit.measure} against the best of N equally good systems",
            anchor("best", lit.measure),
        )
    ]
    if lit.best_audit is None:
        out.append(Para(f"No extreme-value audit for {lit.measure}: {lit.error}."))
        return out
    src = cite(lit.best_audit)
    if lit.population:
        out.append(Para(lit.population))
    out.append(
        Para(
            f"The {lit.n} published {lit.measure} values are treated as {lit.n} draws from one "
            f"normal distribution (mean {f4(lit.mean)}, standard error {f4(lit.se)} over "
            f"{lit.n_topics} topics; Carterette, SIGIR 2015). The best of {lit.n} equally good "
            f"systems is expected to reach {f4(lit.expected_max)} by chance; {lit.n_above} "
            f"published results lie above {f4(lit.max_threshold)}, the value that best exceeds "
            f"with probability {lit.alpha:g}; if all {lit.n} were draws from that distribution, "
            f"{f3(lit.expected_above_under_null)} would be expected above it."
        )
    )
    if lit.model_fit:
        out.append(Para(lit.model_fit))
    if lit.ranks:
        out.append(Para(lit.ranks))
        head = ("rank", "system", "mean", "95% rank interval", "P(first)", "set of the best")
        out.append(Table(head, lit.ranks_rows, caption="Rank resolution"))
    out += _literature_tables(lit, src)
    for fig in (F.mxvd_figure(lit, claim), F.expected_max_figure(lit, claim)):
        if fig is not None:
            out.append(FigureBlock(fig))
    if lit.candidates:
        out += _candidates(lit, src)
    fig = F.history_figure(lit, claim)
    if fig is not None:
        out += [
            Heading(3, "The record over time", anchor("history", lit.measure)),
            FigureBlock(fig),
        ]
    elif lit.history_error:
        out.append(Para(f"No history: {lit.history_error}."))
    return out


def _literature_tables(lit: LiteratureSection, src: str) -> list:
    """Tables 2 and 3 of Carterette (2015) and the thresholds of the max and min of N."""
    out: list = []
    out.append(
        Table(
            ("N", "topics", "mean", "sd", "max", "expected max", "source"),
            (
                (
                    str(lit.n),
                    str(lit.n_topics),
                    f4(lit.mean),
                    f4(lit.sd),
                    f4(lit.maximum),
                    f4(lit.expected_max),
                    src,
                ),
            ),
            "Table 2 of Carterette (2015): the published results",
        )
    )
    out.append(
        Table(
            (
                "alpha",
                "max threshold",
                "published above",
                "min threshold",
                "published below",
                "expected above under the model",
                "source",
            ),
            (
                (
                    f"{lit.alpha:g}",
                    f4(lit.max_threshold),
                    str(lit.n_above),
                    f4(lit.min_threshold),
                    str(lit.n_below),
                    f3(lit.expected_above_under_null),
                    src,
                ),
            ),
            "Thresholds of the max and min of N",
        )
    )
    cover = "-" if lit.coverage is None else f"{lit.coverage:.0%}"
    out.append(
        Table(
            ("best", "p", "mu0", "interval", "coverage", "candidates", "source"),
            (
                (
                    f4(lit.value),
                    f"{lit.p:g}",
                    f4(lit.mu0),
                    f"[{f4(lit.lower)}, {f4(lit.value)}]",
                    cover,
                    str(len(lit.candidates)),
                    src,
                ),
            ),
            "Table 3 of Carterette (2015): intrinsic effectiveness of the best",
        )
    )
    return out


def _candidates(lit: LiteratureSection, src: str) -> list:
    """The candidate best systems: every result at or above the lower bound."""
    out: list = [
        Heading(
            3, f"Candidate best systems ({len(lit.candidates)})", anchor("candidates", lit.measure)
        )
    ]
    out.append(
        Para(
            f"Every result at or above the lower bound {f4(lit.lower)} could be "
            "the truly best system; they cannot be told apart by these numbers."
        )
    )
    out.append(_cited_table(lit.candidates, lit.measure, f"Candidate best set ({src})"))
    return out


def _cited_table(cs: tuple[Candidate, ...], measure: str, caption: str) -> Table:
    """Published results as a reader cites them, linked to their paper and code (where
    they were transcribed from is in the appendix)."""
    rows, links = [], []
    for c in cs:
        paper, code = paper_url(c), http_url(c.code_url)
        rows.append(
            (
                str(c.rank) if c.rank else "-",
                c.value_text or f4(c.value),
                c.system or "-",
                cite_text(c),
                _short(paper, c.doi),
                _short(code),
                "-" if c.result_id is None else str(c.result_id),
            )
        )
        links.append((None, None, None, None, paper, code, None))
    return Table(
        ("#", measure, "system", "cited as", "paper or page", "code", "result"),
        tuple(rows),
        caption,
        tuple(links),
    )


def params_text(params: dict) -> str:
    """An audit's parameters in words: 'alpha 0.05; p 0.2; filters: dated up to ...'."""
    from litaudit.curation.filters import Filters

    parts = []
    for k in sorted(params):
        v = params[k]
        if k in ("collection", "measure", "method") or v is None:
            continue  # said elsewhere (the method has its column), or not given
        if k == "filters" and isinstance(v, dict):
            known = {f: v[f] for f in Filters.__dataclass_fields__ if f in v}
            for f in ("roles", "run_types", "statuses", "reporters"):
                if known.get(f) is not None:
                    known[f] = tuple(known[f])
            if known.get("years") is not None:
                known["years"] = tuple(known["years"])
            try:
                words = Filters(**known).describe()
            except TypeError:  # a stored shape this version does not know
                words = ", ".join(f"{a} {b}" for a, b in sorted(v.items()) if b)
            parts.append(f"filters: {words or 'none'}")
        elif isinstance(v, dict):
            inner = ", ".join(f"{a} {_value(b)}" for a, b in sorted(v.items()))
            parts.append(f"{k.replace('_', ' ')}: {inner or 'none'}")
        else:
            parts.append(f"{k.replace('_', ' ')} {_value(v)}")
    return "; ".join(parts) or "-"


def _value(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ", ".join(_value(x) for x in v) or "none"
    if isinstance(v, dict):
        return ", ".join(f"{a} {_value(b)}" for a, b in sorted(v.items())) or "none"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _audits(rep: Report) -> list:
    """Appendix A: the audits cited, their parameters in words (the JSON report has them
    as stored)."""
    rows = []
    for a in rep.audits:
        row = (
            f"#{a.id}",
            a.kind,
            a.measure or "-",
            params_text(a.params),
            a.method,
            "-" if a.seed is None else str(a.seed),
            "-" if a.trials is None else str(a.trials),
            a.input_fingerprint[:16],
            a.software_version,
        )
        rows.append(row + ((a.created_at or "-",) if rep.generated_at else ()))
    cols = (
        "audit",
        "kind",
        "measure",
        "parameters",
        "method",
        "seed",
        "trials",
        "input fingerprint",
        "version",
    ) + (("created",) if rep.generated_at else ())
    return [
        Heading(2, "Appendix A: the audits cited", anchor("audits")),
        Table(
            cols,
            tuple(rows),
            "Input fingerprints are SHA-256 (first 16 hex digits "
            "shown; the JSON report has them in full, with the parameters as stored).",
        ),
    ]


def _provenance(rep: Report) -> list:
    """Appendix B: where each cited value was transcribed from (file, line, column, or
    track), and its curation status."""
    seen: dict[tuple, Candidate] = {}
    for c in rep.claims:
        if c.record_holder is not None:
            seen.setdefault(_key(c.record_holder), c.record_holder)
    for lit in rep.literature:
        for x in ((lit.record,) if lit.record else ()) + lit.candidates:
            seen.setdefault(_key(x), x)
    if not seen:
        return []
    rows = tuple(
        (
            c.value_text or f4(c.value),
            c.system or "-",
            cite_text(c),
            c.location or c.track or "-",
            c.reporter or "-",
            c.status or "-",
        )
        for c in seen.values()
    )
    return [
        Heading(2, "Appendix B: where the cited values were transcribed", anchor("provenance")),
        Table(("value", "system", "cited as", "transcribed from", "reported by", "status"), rows),
    ]


def _key(c: Candidate) -> tuple:
    return (c.value_text, c.system, c.citation, c.location, c.date)
