"""The report as a sequence of format-neutral blocks (headings, paragraphs, tables,
figures; the types and number formats in :mod:`.blocks`), rendered by :mod:`.markdown`
and :mod:`.html`. Numbers are formatted once, with a fixed number of digits. Here: the order of the sections,
the data and its provenance, the literature sections (the best published result, its
candidates and history, a claim: Carterette 2015) and the audits cited; the reusability
section is built by :mod:`.document_reuse`."""

from __future__ import annotations

import json

from litaudit.render.report import figures as F
from litaudit.render.report.blocks import (
    FigureBlock,
    Heading,
    Para,
    Table,
    cite,
    f3,
    f4,
)
from litaudit.render.report.document_reuse import reuse_blocks
from litaudit.render.report.model import ClaimSection, LiteratureSection, Report


def blocks(rep: Report) -> list:
    """Everything the Markdown and HTML reports show, in order."""
    out: list = [Heading(1, rep.title)]
    intro = (
        f"Collection `{rep.collection_id}`; measures: {', '.join(rep.measures) or 'none'}."
        " Every number below cites the stored audit it comes from (audit #id); the "
        "audits, with their parameters, method, seed, input fingerprint and software "
        "version, are listed at the end."
    )
    if rep.generated_at:
        intro += f" Generated {rep.generated_at}."
    out.append(Para(intro))
    out += _data(rep)
    for lit in rep.literature:
        out += _literature(lit)
    for c in rep.claims:
        out += _claim(c)
    if rep.reuse is not None:
        out += reuse_blocks(rep.reuse)
    out += _audits(rep)
    if rep.notes:
        out += [Heading(2, "Notes")] + [Para(n) for n in rep.notes]
    return out


def _claim(c: ClaimSection) -> list:
    """The claim audit: its sentences in order (record, chance, own interval, model fit),
    then a table for each of (a), (b) and (c)."""
    out: list = [Heading(2, f"Claim audit: {c.measure} = {c.value:g}")]
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
    from litaudit.analyses.wording import fmt_n_star, p_text

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
        Heading(2, "Data and provenance"),
        Table(
            ("", ""),
            rows,
            "Published results in the store (results table, not an "
            "audit; the fingerprint is over the rows read).",
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


def _literature(lit: LiteratureSection) -> list:
    out: list = [
        Heading(2, f"The best published {lit.measure} against the best of N equally good systems")
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
    out += _literature_tables(lit, src)
    for fig in (F.mxvd_figure(lit), F.expected_max_figure(lit)):
        if fig is not None:
            out.append(FigureBlock(fig))
    if lit.candidates:
        out += _candidates(lit, src)
    fig = F.history_figure(lit)
    if fig is not None:
        out += [Heading(3, "The record over the years"), FigureBlock(fig)]
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
    out: list = [Heading(3, f"Candidate best systems ({len(lit.candidates)})")]
    out.append(
        Para(
            f"Every result at or above the lower bound {f4(lit.lower)} could be "
            "the truly best system; they cannot be told apart by these numbers."
        )
    )
    rows, links = [], []
    for c in lit.candidates:
        rows.append(
            (
                str(c.rank),
                c.value_text or f4(c.value),
                c.system or "-",
                c.citation or "-",
                str(c.year or "-"),
            )
        )
        url = f"https://doi.org/{c.doi}" if c.doi else c.url
        links.append((None, None, None, url, None))
    out.append(
        Table(
            ("#", lit.measure, "system", "source", "year"),
            tuple(rows),
            f"Candidate best set ({src})",
            tuple(links),
        )
    )
    return out


def _audits(rep: Report) -> list:
    rows = []
    for a in rep.audits:
        params = json.dumps(a.params, sort_keys=True, separators=(", ", ": "))
        row = (
            f"#{a.id}",
            a.kind,
            a.measure or "-",
            params,
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
        Heading(2, "Audits cited"),
        Table(
            cols,
            tuple(rows),
            "Input fingerprints are SHA-256 (first 16 hex digits "
            "shown; the JSON report has them in full).",
        ),
    ]
