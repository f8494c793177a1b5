"""The report as a sequence of format-neutral blocks (headings, paragraphs, tables,
figures), rendered by :mod:`.markdown` and :mod:`.html`. Numbers are formatted here,
once, with a fixed number of digits."""

from __future__ import annotations

import json
from dataclasses import dataclass

from litaudit.render.report import figures as F
from litaudit.render.report.model import ClaimSection, LiteratureSection, Report, ReuseSection


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str | None = None
    links: tuple[tuple[str | None, ...], ...] = ()  # per cell: a URL, or None


@dataclass(frozen=True)
class FigureBlock:
    figure: F.Figure


def http_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) URL with a host, else None: stored text never
    becomes a javascript:, data: or relative link. Characters that would end a link
    (spaces, quotes, angle brackets, controls) are percent-encoded."""
    from urllib.parse import quote, urlsplit

    if not url:
        return None
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def f4(x) -> str:
    return "-" if x is None else f"{float(x):.4f}"


def f3(x) -> str:
    return "-" if x is None else f"{float(x):.3f}"


def f2(x) -> str:
    return "-" if x is None else f"{float(x):.2f}"


def yes(x) -> str:
    return "-" if x is None else ("pass" if x else "FAIL")


def cite(aid: int | None) -> str:
    return f"audit #{aid}" if aid is not None else "no audit"


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
        out += _reuse(rep.reuse)
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


def _reuse(r: ReuseSection) -> list:
    out: list = [Heading(2, "Can the collection be trusted? Reusability")]
    if r.verdict is not None:
        out += _reuse_verdict(r, r.verdict)
    if r.rao:
        out += _reuse_rao(r, r.rao)
    if r.lou:
        out += _reuse_lou(r, r.lou)
    if r.subcollections:
        sub = r.subcollections
        out += [
            Heading(3, "Sub-collections (Sanderson et al. 2012)"),
            Table(
                ("sub-collections", "tau", "random tau range", "p", "source"),
                tuple(
                    (
                        f"{p.a} / {p.b}",
                        f4(p.tau),
                        f"{f2(p.random_min)} to {f2(p.random_max)}",
                        f4(p.p_value),
                        cite(r.sub_audit),
                    )
                    for p in sub.pairs
                ),
                f"Kendall's tau between sub-collection rankings, {sub.permutations} "
                f"random splits (seed {sub.seed})",
            ),
        ]
    out += _agreement(r)
    out += [Para(n) for n in r.notes]
    return out


def _reuse_verdict(r: ReuseSection, v) -> list:
    """The reusability verdict: its headline, its tests and the papers' reference values."""
    from litaudit.analyses.wording import p_text

    out: list = []
    out.append(
        Para(
            f"From the {r.n_runs} stored runs: {v.headline} "
            f"({cite(r.verdict_audit)}). {v.coverage.note[:1].upper()}"
            f"{v.coverage.note[1:]}."
        )
    )
    out.append(
        Table(
            ("pool depth", "shift of held-out runs", "p", "adjusted p", "evidence"),
            tuple(
                (
                    "-" if t.depth is None else str(t.depth),
                    f"{t.result.shift_pct:+.2f}%",
                    p_text(t.result.p_value),
                    p_text(t.p_adjusted),
                    "yes" if t.evidence else "no",
                )
                for t in v.tests
            ),
            f"Verdict ({v.correction} at alpha {v.alpha:g})",
        )
    )
    out.append(
        Table(
            ("quantity", "here", "paper", "source"),
            tuple((x.quantity, x.ours, x.paper, x.source) for x in v.references),
            "Beside the papers' reference values (shown, not enforced)",
        )
    )
    return out


def _reuse_rao(r: ReuseSection, a) -> list:
    """Run average overlap (Voorhees et al. 2014), with its figure."""
    out: list = []
    out += [
        Heading(3, "Run average overlap (Voorhees et al. 2014)"),
        Table(
            ("runs", "participants", "depth", "1/P", "mean RAO", "min", "max", "source"),
            (
                (
                    str(a.n_runs),
                    str(a.n_participants),
                    str(a.depth),
                    f4(a.lower_bound),
                    f4(a.mean_rao),
                    f4(a.min_rao),
                    f4(a.max_rao),
                    cite(r.rao_audit),
                ),
            ),
        ),
    ]
    _fig(out, F.rao_figure(r))
    return out


def _reuse_lou(r: ReuseSection, u) -> list:
    """Leave-out-uniques (Voorhees et al. 2014, Table 2), with its figure."""
    out: list = []
    out += [
        Heading(3, "Leave-out-uniques (Voorhees et al. 2014, Table 2)"),
        Table(
            (
                "unique / relevant",
                "largest share",
                "runs considered",
                "mean |% change|",
                "max |% change|",
                f"above {u.noise_pct:g}%",
                "source",
            ),
            (
                (
                    f4(u.unique_fraction),
                    f"{f4(u.largest_share)} ({u.largest_participant or '-'})",
                    str(u.n_considered),
                    f2(u.mean_abs_pct),
                    f2(u.max_abs_pct),
                    str(u.n_above),
                    cite(r.lou_audit),
                ),
            ),
        ),
    ]
    _fig(out, F.lou_figure(r))
    return out


def _agreement(r: ReuseSection) -> list:
    """The verdict's agreement in significance over random hold-out assignments
    (descriptive, not a gate), as `reuse verdict` prints it."""
    from litaudit.analyses.wording import p_text

    a = r.verdict.agreement if r.verdict is not None else None
    if a is None:
        return []
    rows = []
    for p in a.parts:
        pairs = str(p.pairs_min) if p.pairs_min == p.pairs_max else f"{p.pairs_min}-{p.pairs_max}"
        if p.status != "tested" or p.paper_p is None:
            rows.append((p.analysis, pairs, "-", "-", "-", "-", p.reason or p.status))
            continue
        q = p.paper_p
        rows.append(
            (
                p.analysis,
                pairs,
                f"{100 * p.disagreement_real:.1f}% / {100 * p.disagreement_null:.1f}%"
                if p.disagreement_real is not None and p.disagreement_null is not None
                else "-",
                f"{q.median:.3f} ({p_text(q.minimum)} to {p_text(q.maximum)})",
                f"{p.paper_rejections} of {a.assignments}",
                p_text(p.p_value),
                "",
            )
        )
    return [
        Heading(3, "Agreement in significance over random assignments (Carterette et al. 2010)"),
        Para(
            f"Shown beside the verdict, not a gate ({cite(r.verdict_audit)}): {a.source}, "
            f"{a.k} sites held out of each topic, {a.assignments} random assignments (seed "
            f"{a.seed}). Per analysis: pairs of runs tested per assignment; the share of "
            "pairs whose baseline and reuse tests disagree (mean over the assignments), the "
            "topics split by the assignment the scores were simulated with (real) and by "
            "an independent one (random); the paper's chi-square p (pairs taken as "
            f"independent) over the assignments, and how often it is below {a.alpha:g}; "
            f"and a test that keeps the pairs' dependence ({a.flips} sign flips of "
            f"X^2(real) - X^2(random), seed {a.flip_seed}, one-sided)."
        ),
        Table(
            (
                "analysis",
                "pairs",
                "disagree real / random",
                "paper's p: median (range)",
                f"paper's p < {a.alpha:g}",
                "dependence-kept p",
                "note",
            ),
            tuple(rows),
            f"alpha {a.alpha:g}, {a.measure}",
        ),
    ]


def _fig(out: list, fig) -> None:
    if fig is not None:
        out.append(FigureBlock(fig))


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
